"""Every language's catalogue (``clients/i18n/<code>.json``, one file per language present) is
complete against English: the same keys, each with the same values to fill in, no empty text.
The web client and the Python clients read the same files; this checks what each gets."""

from __future__ import annotations

import json
import re
import string
from pathlib import Path
from typing import Any

import pytest

from clients.i18n import LANGUAGES, PYTHON_ONLY, texts, web_module

FOLDER = Path(__file__).resolve().parents[2] / "clients" / "i18n"
FILES = sorted(FOLDER.glob("*.json"))


def read(path: Path) -> dict[str, Any]:
    """A catalogue as written, refusing a key written twice (JSON would keep the last)."""

    def unique(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
        keys = [key for key, _ in pairs]
        twice = sorted({key for key in keys if keys.count(key) > 1})
        assert not twice, (path.name, twice)
        return dict(pairs)

    found: dict[str, Any] = json.loads(path.read_text("utf-8"), object_pairs_hook=unique)
    return found


def placeholders(text: str) -> set[str]:
    """The values a text fills in: ``{name}`` and the like, and nothing else in braces
    (the Python clients fill them with ``str.format``, the web client with a pattern)."""
    names: set[str] = set()
    for _, field, spec, conversion in string.Formatter().parse(text):
        if field is None:
            continue
        assert re.fullmatch(r"\w+", field) and not spec and conversion is None, text
        names.add(field)
    return names


ENGLISH = read(FOLDER / "en.json")
PAGE = json.loads(web_module().split("export default ", 1)[1].rstrip().removesuffix(";"))


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.stem)
def test_every_language_has_every_text_of_english_with_the_same_placeholders(path: Path) -> None:
    code = path.stem
    words = read(path)
    assert sorted(set(ENGLISH) - set(words)) == [], f"{code} lacks these texts"
    assert sorted(set(words) - set(ENGLISH)) == [], f"{code} has texts English has not"
    for key, text in words.items():
        assert isinstance(text, str) and text.strip(), (code, key)
        assert placeholders(text) == placeholders(ENGLISH[key]), (code, key, text)
    # What each client gets: the Python clients every text, the page all but their own.
    assert code in LANGUAGES and texts(code) == words
    assert PAGE[code] == {k: v for k, v in words.items() if not k.startswith(PYTHON_ONLY)}
    # The languages are the files present, English first (the language menus' order).
    assert list(PAGE) == list(LANGUAGES) and LANGUAGES[0] == "en"
    assert set(LANGUAGES) == {p.stem for p in FILES}
