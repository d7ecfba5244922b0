"""Request handlers: one module per API family, thin adapters from messages to the broker."""
