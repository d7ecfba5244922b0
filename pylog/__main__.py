import sys

from pylog.cli import main

sys.exit(main())
