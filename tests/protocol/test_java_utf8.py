"""`decode_utf8`: a string field's bytes read as Kafka's Java reads them, malformed input
included.

The expected strings follow Java's decoder rule by rule (protocol/primitives.py says which);
tests/compat/test_on_disk.py compares `pylog dump-log` with `kafka-dump-log.sh` on random
binary values, and tests/compat/test_odd_values.py sends such strings to both brokers,
which checks the same against Java itself.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from protocol.primitives import decode_utf8

R = "\ufffd"


@pytest.mark.parametrize("data,expected", [
    (b"plain ascii", "plain ascii"),
    ("grüße €😀".encode(), "grüße €😀"),
    (b"\x80", R), (b"\xbf\x41", R + "A"), (b"\xff\xfe", R + R),
    (b"\xc0\x80", R + R),                    # C0 and C1 never start a sequence
    (b"\xc3\x41", R + "A"),                  # two-byte lead, no continuation: the A is read again
    (b"\xc3", R),                            # cut short at the end
    (b"\xe2\x82", R),                        # three-byte lead and one continuation at the end
    (b"\xe2\x41", R + "A"),                  # ... and a byte that cannot continue it
    (b"\xe2\x41\x42", R + "AB"),             # second byte at fault: one U+FFFD for the lead alone
    (b"\xe2\x82\x41", R + "A"),              # third byte at fault: one U+FFFD for lead and second
    (b"\xe0\x80\x80", R + R + R),            # overlong after E0: the lead alone, then two strays
    (b"\xed\xa0\x80", R),                    # an encoded surrogate: one U+FFFD for all three
    (b"\xf0\x9f\x98\x80", "\U0001f600"),
    (b"\xf0\x80\x80\x80", R + R + R + R),    # overlong after F0
    (b"\xf4\x90\x80\x80", R + R + R + R),    # above U+10FFFF
    (b"\xf5\x80\x80\x80", R + R + R + R),
    (b"\xf0\x9f\x41\x80", R + "A" + R),      # third byte at fault: lead and second replaced
    (b"\xf0\x9f\x98\x41", R + "A"),          # fourth byte at fault: three bytes replaced
    (b"\xf0\x9f\x98", R),                    # cut short: one U+FFFD, stop
    (b"\xf0\x9f\x41", R + "A"),              # cut short with a stray after: go on with it
    (b"\xf0\x41", R + "A"),
    (b"\xf8\x88\x80\x80\x80", R * 5),
])
def test_java_replacements(data, expected):
    assert decode_utf8(data) == expected


@settings(deadline=None)   # no wall-clock bound per example: the suite shares two cores
@given(st.text())
def test_well_formed_text_decodes_as_python_does(text):
    assert decode_utf8(text.encode()) == text


@settings(deadline=None)
@given(st.binary(max_size=64))
def test_any_bytes_decode(data):
    text = decode_utf8(data)
    assert isinstance(text, str) and len(text) <= len(data)
    assert all(not 0xD800 <= ord(c) <= 0xDFFF for c in text)
