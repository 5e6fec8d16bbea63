"""A second client, written only from docs/protocol.md and protocol/schema.json."""
