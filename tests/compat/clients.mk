# Included by the Makefile: the clients of other languages that `make compat` drives
# (kcat, kafkajs, sarama, franz-go), installed on first use and cached. The Python clients
# (kafka-python, aiokafka, confluent-kafka) come with the test dependencies (.[test]).
#
#   kcat      Debian's package, installed with apt-get when there is no kcat on the PATH
#   kafkajs   tests/compat/js: `npm ci` from package-lock.json into js/node_modules
#   sarama,   tests/compat/go: one Go module (go.mod, go.sum), `go build` of cmd/* into
#   franz-go  go/bin; the modules come from the Go module proxy into Go's own cache
#
# Each step runs again only when its inputs change: a second `make compat-clients` does
# nothing but check.
.PHONY: compat-clients compat-kcat

COMPAT_JS    := tests/compat/js
COMPAT_GO    := tests/compat/go
COMPAT_GO_BINS := $(COMPAT_GO)/bin/sarama-roundtrip $(COMPAT_GO)/bin/franz-roundtrip
COMPAT_GO_SOURCES := $(COMPAT_GO)/go.mod $(COMPAT_GO)/go.sum $(shell find $(COMPAT_GO)/cmd $(COMPAT_GO)/internal -name '*.go')
# apt-get needs root: sudo only for those who are not
COMPAT_SUDO  := $(if $(filter 0,$(shell id -u)),,sudo)

compat-clients: compat-kcat $(COMPAT_JS)/node_modules/.installed $(COMPAT_GO_BINS)

# apt-get update only when the package lists do not know kcat yet (a fresh machine)
compat-kcat:
	@command -v kcat >/dev/null 2>&1 || { \
	  echo "installing kcat (Debian package)"; \
	  $(COMPAT_SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q kcat || { \
	    $(COMPAT_SUDO) apt-get update -q && \
	    $(COMPAT_SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -q kcat; }; }

$(COMPAT_JS)/node_modules/.installed: $(COMPAT_JS)/package.json $(COMPAT_JS)/package-lock.json
	cd $(COMPAT_JS) && npm ci --no-audit --no-fund --loglevel=error
	touch $@

# one `go build` for both programs; touched, since go build leaves an up-to-date binary as it was
$(COMPAT_GO_BINS) &: $(COMPAT_GO_SOURCES)
	cd $(COMPAT_GO) && go build -o bin/ ./cmd/...
	touch $(COMPAT_GO_BINS)
