"""Shared by the server and every client: the rules engine, wire messages and errors.

Importing this package loads nothing beyond the standard library; the pydantic wire
messages live in :mod:`protocol.messages` and are imported only where needed.
"""
