# The two commands a new user needs: `make run` and `make test`.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench install clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml storage/_append.c | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/pylog serve --host localhost --port 9092 --data-dir ./pylog-data

# The whole suite, then storage and the broker's unit tests again with the Python code
# alone: what a machine without a C compiler runs (storage/_append.c is optional).
test: $(STAMP)
	$(BIN)/python -m pytest -q
	PYLOG_PURE_PYTHON=1 $(BIN)/python -m pytest -q tests/storage tests/pylog

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
