"""Hardening: limits, browsers, fuzzing, slow and dead clients, storms and audits under load."""
