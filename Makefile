# The two commands a new user needs: `make run` and `make test`. `make compat` runs pylog
# against the reference Apache Kafka, its tools and the clients of other languages; it needs
# Java 17 with Maven, Go and Node.js, and installs the rest itself on first use.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test bench install clean codegen compat kafka-reference bytecode

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

run: $(STAMP)
	$(BIN)/pylog serve --host localhost --port 9092 --data-dir ./pylog-data

# Where the environment says not to write bytecode (PYTHONDONTWRITEBYTECODE, as some CI images
# do), every broker process the suites start would compile pylog's sources again (~0.25 s each
# here). compileall writes the bytecode once; files unchanged since are skipped.
bytecode: $(STAMP)
	$(BIN)/python -m compileall -q pylog storage protocol

# The whole suite (tests/compat, which needs the other toolchains, is `make compat`), as four
# pytest runs side by side: the cluster and client tests mostly wait (tests/suite.py).
test: $(STAMP) bytecode
	$(BIN)/python -m tests.suite

# Regenerate protocol/messages, protocol/internal and protocol/metadata from Kafka's definitions, fetched once
# from its sources jars in the Maven repository (the versions are pinned in protocol/kafka_specs.py).
codegen: $(STAMP)
	$(BIN)/python -m protocol.codegen

# The reference Kafka (version in tests/compat/versions.properties): its jars resolved by
# Maven into tests/compat/kafka/target/lib, the Java test programs compiled beside them.
KAFKA_VERSION := $(shell sed -n 's/^kafka\.version=//p' tests/compat/versions.properties)
KAFKA_PROJECT := tests/compat/kafka
KAFKA_STAMP   := $(KAFKA_PROJECT)/target/.resolved-$(KAFKA_VERSION)

$(KAFKA_STAMP): $(KAFKA_PROJECT)/pom.xml tests/compat/versions.properties $(shell find $(KAFKA_PROJECT)/src -name '*.java')
	cd $(KAFKA_PROJECT) && mvn -q -B package -Dkafka.version=$(KAFKA_VERSION)
	touch $@

kafka-reference: $(KAFKA_STAMP)

include tests/compat/clients.mk

compat: $(STAMP) bytecode $(KAFKA_STAMP) compat-clients
	$(BIN)/python -m pytest -q tests/compat

bench: $(STAMP)
	$(BIN)/python -m pip install --quiet -e '.[test,bench]'
	$(BIN)/python -m bench

clean:
	rm -rf $(VENV) build *.egg-info
