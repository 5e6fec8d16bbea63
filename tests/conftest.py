"""Shared test settings.

hypothesis is imported here, at collection, rather than lazily by its plugin in pytest's
terminal summary: late imports there have hit a CPython 3.11 parser error
("AST constructor recursion depth mismatch") after long asyncio runs.
"""

import hypothesis  # noqa: F401
