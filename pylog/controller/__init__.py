"""The KRaft controller: the metadata log, its records and the rules that write them."""
