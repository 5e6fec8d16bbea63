"""The full-screen client's texts, from the catalogues (:mod:`clients.i18n`).

The table log and the server's refusals are worded by :mod:`clients.words`; the labels,
prompts and key lists around them are the catalogues' ``tui.<key>`` texts, and the texts the
web client shows too (a seat's card count, a pane's title) are its shared keys.
"""

from __future__ import annotations

from typing import Any

from clients.i18n import texts


def t(lang: str, key: str, **params: Any) -> str:
    """The text ``key`` in ``lang`` (English when the language is unknown): this client's
    own ``tui.<key>`` where there is one, else the shared ``key``."""
    words = texts(lang)
    template = words.get(f"tui.{key}") or words[key]
    return template.format_map(params) if params else template


__all__ = ["t"]
