"""Every text the clients show, one catalogue per language: ``<code>.json`` in this folder.

A catalogue maps a key to a text; ``{name}`` marks a value filled in when the text is shown.
The web client and the Python clients read the same files. Most keys are shared; two
prefixes mark the texts only the Python clients show:

- ``term.<key>``: the terminal clients' own wording, where they word ``<key>`` differently
  from the web client (or show a text the web client has no need of);
- ``tui.<key>``: the full-screen terminal client's labels, prompts and key lists.

English is the reference: every other language has its keys, with the same values to fill in
(a test checks). A language is added by adding its file; the languages are the files present.
"""

from __future__ import annotations

import json
from importlib import resources
from typing import Final

#: The reference language, and the one used when a language is unknown.
ENGLISH: Final = "en"
#: The key prefixes of the texts only the Python clients show (the page is not sent them).
PYTHON_ONLY: Final = ("term.", "tui.")


def _load() -> dict[str, dict[str, str]]:
    found: dict[str, dict[str, str]] = {}
    for entry in resources.files(__name__).iterdir():
        if entry.name.endswith(".json"):
            found[entry.name.removesuffix(".json")] = json.loads(entry.read_text("utf-8"))
    # English first, then the others by their names in their own words.
    order = sorted(found, key=lambda code: (code != ENGLISH, found[code]["lang.name"]))
    return {code: found[code] for code in order}


#: Each language's texts, by key; in the order the language menus list them.
CATALOGUES: Final = _load()
#: The language codes, in the order the language menus list them.
LANGUAGES: Final = tuple(CATALOGUES)


def texts(lang: str) -> dict[str, str]:
    """The texts of ``lang``, by key (English's when the language is unknown)."""
    return CATALOGUES.get(lang, CATALOGUES[ENGLISH])


def section(prefix: str) -> dict[str, dict[str, str]]:
    """The texts under ``prefix`` in each language, keyed without it, the terminal clients'
    own ``term.<prefix>…`` wording over the shared one: ``section("log.")["en"]["left"]``."""
    own = f"term.{prefix}"
    out: dict[str, dict[str, str]] = {}
    for code, words in CATALOGUES.items():
        shared = {k.removeprefix(prefix): v for k, v in words.items() if k.startswith(prefix)}
        out[code] = shared | {k.removeprefix(own): v for k, v in words.items() if k.startswith(own)}
    return out


def web_module() -> str:
    """The catalogues as the web client imports them (``/texts.js``): an ES module whose
    default export maps each language, in menu order, to the texts the page shows."""
    page = {
        code: {key: text for key, text in words.items() if not key.startswith(PYTHON_ONLY)}
        for code, words in CATALOGUES.items()
    }
    body = json.dumps(page, ensure_ascii=False, separators=(",", ":"))
    head = "// The texts, from clients/i18n/<code>.json; served, never edited.\n"
    return f"{head}export default {body};\n"


def web_language_module(lang: str) -> str | None:
    """One language's texts as the page imports them (``/texts/<code>.js``): an ES module
    whose default export maps each key to its text; None for a language not present. The
    page loads only the player's language (a tenth of :func:`web_module`'s size)."""
    if lang not in CATALOGUES:
        return None
    words = {k: v for k, v in CATALOGUES[lang].items() if not k.startswith(PYTHON_ONLY)}
    body = json.dumps(words, ensure_ascii=False, separators=(",", ":"))
    head = f"// The {lang} texts, from clients/i18n/{lang}.json; served, never edited.\n"
    return f"{head}export default {body};\n"


def web_languages_module() -> str:
    """The languages as the page's menu lists them (``/languages.js``): an ES module whose
    default export maps each code, in menu order, to the language's name in its own words."""
    names = {code: words["lang.name"] for code, words in CATALOGUES.items()}
    body = json.dumps(names, ensure_ascii=False, separators=(",", ":"))
    return f"// The languages of clients/i18n; served, never edited.\nexport default {body};\n"


__all__ = [
    "CATALOGUES",
    "ENGLISH",
    "LANGUAGES",
    "PYTHON_ONLY",
    "section",
    "texts",
    "web_language_module",
    "web_languages_module",
    "web_module",
]
