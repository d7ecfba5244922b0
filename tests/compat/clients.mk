# Included by the Makefile: the clients of other languages that `make compat` drives
# (kcat, kafkajs, sarama, franz-go), installed on first use and cached.
.PHONY: compat-clients
compat-clients:
