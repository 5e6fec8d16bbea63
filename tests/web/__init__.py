"""Browser tests of the web client."""
