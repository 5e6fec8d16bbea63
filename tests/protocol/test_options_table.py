"""The room options are declared once (protocol/options_table.py): the engine's Options, the
wire model and its schema, the catalogues' words and the docs' tables all agree with it."""

from __future__ import annotations

import json
from dataclasses import fields
from pathlib import Path
from typing import Any

import pytest

from clients.i18n import CATALOGUES
from clients.terminal.tui.text import t
from protocol.engine import Options
from protocol.errors import BadOptions
from protocol.messages import RoomOptions
from protocol.options_table import (
    OPTIONS,
    RULES,
    WORD_KEYS,
    OptionSpec,
    room_values,
    summary_words,
)
from server.routes import ROOM_OPTIONS_JS

ROOT = Path(__file__).resolve().parents[2]


def test_the_engine_keeps_the_declared_rules_in_their_order_with_their_defaults() -> None:
    assert [(f.name, f.default) for f in fields(Options)] == [(s.name, s.default) for s in RULES]


def test_the_wire_model_takes_every_option_with_its_default_and_bounds() -> None:
    schema = RoomOptions.model_json_schema()["properties"]
    for spec in OPTIONS:
        assert RoomOptions.model_fields[spec.name].default == spec.default, spec.name
        prop = schema[spec.name]
        kinds = [prop, *prop.get("anyOf", [])]
        assert {"ge": spec.low, "le": spec.high, "gt": spec.above} == {
            "ge": next((k["minimum"] for k in kinds if "minimum" in k), None),
            "le": next((k["maximum"] for k in kinds if "maximum" in k), None),
            "gt": next((k["exclusiveMinimum"] for k in kinds if "exclusiveMinimum" in k), None),
        }, spec.name
        if spec.choices:
            assert prop["enum"] == list(spec.choices), spec.name


def wrong_values(spec: OptionSpec) -> list[Any]:
    out: list[Any] = ["nonsense", [], True if spec.kind != "flag" else 1]
    if spec.low is not None:
        out.append(spec.low - 1)
    if spec.high is not None:
        out.append(spec.high + 1)
    if spec.above is not None:
        out.append(spec.above)
    if spec.kind == "count":
        out.append(float(spec.default))
    if not spec.nullable:
        out.append(None)
    return out


@pytest.mark.parametrize("spec", RULES, ids=lambda spec: spec.name)
def test_the_engine_refuses_what_the_declaration_refuses_and_names_the_option(
    spec: OptionSpec,
) -> None:
    for value in wrong_values(spec):
        assert not spec.accepts(value), (spec.name, value)
        with pytest.raises(BadOptions) as refused:
            Options(**{spec.name: value})
        assert refused.value.params["reason"] == spec.name
        assert str(refused.value) == spec.explain()
    edges = [spec.low, spec.high] if spec.kind == "count" else list(spec.choices) or [True]
    for value in edges:
        kept = Options(**{spec.name: value}).to_dict()  # omit_default: absent at default
        assert kept.get(spec.name, spec.default) == value
        assert (spec.name in kept) == (not spec.omit_default or value != spec.default)


@pytest.mark.parametrize("spec", OPTIONS, ids=lambda spec: spec.name)
def test_the_wire_model_and_the_declaration_agree_on_every_value(spec: OptionSpec) -> None:
    good = [spec.default, spec.low, spec.high, *spec.choices, *spec.presets]
    for value in [*good, *wrong_values(spec)]:
        try:
            RoomOptions.model_validate({spec.name: value})
            taken = True
        except ValueError:
            taken = False
        assert taken == spec.accepts(value), (spec.name, value)


def test_the_room_document_lists_the_room_options_in_order() -> None:
    doc = room_values(RoomOptions())
    assert list(doc) == [s.name for s in OPTIONS if s.in_room_options]
    assert "public" not in doc


def test_every_language_words_every_option() -> None:
    assert len(CATALOGUES) >= 3
    for lang, words in CATALOGUES.items():
        missing = set(WORD_KEYS) - set(words)
        assert not missing, (lang, sorted(missing))


def test_the_terminal_words_every_summary_in_every_language() -> None:
    """In its own words (``tui.summary.…``) where they are shorter, else the web client's."""
    summary = [key for key in WORD_KEYS if key.startswith("summary.")]
    for lang in CATALOGUES:
        for key in summary:
            assert "{" not in t(lang, key, value="25"), (lang, key)


def test_a_summary_names_what_differs_from_a_plain_room_in_the_declarations_order() -> None:
    plain = room_values(RoomOptions())
    assert summary_words(plain) == [("summary.target", {"value": "25"}), ("summary.draw.end", {})]
    odd = room_values(RoomOptions(kings_first=True, turn_timer=2.5, casual=True, pace="fast"))
    assert [key for key, _ in summary_words(odd)] == [
        "summary.target",
        "summary.draw.end",
        "summary.kings_first",
        "summary.turn_timer",
        "summary.casual",
        "summary.pace.fast",
    ]
    assert summary_words({"turn_timer": 30.0}) == [("summary.turn_timer", {"value": "30"})]
    assert summary_words({"public": False}) == [("summary.public.off", {})]
    # A corners match is one hand: its target means nothing and is not named.
    corners = room_values(RoomOptions(scoring="corners", opening_refill=True))
    assert [key for key, _ in summary_words(corners)] == [
        "summary.draw.end",
        "summary.opening_refill",
        "summary.scoring.corners",
    ]


def test_the_web_client_imports_the_declaration_as_served() -> None:
    body = ROOM_OPTIONS_JS.split("export default ", 1)[1].rstrip().removesuffix(";")
    assert json.loads(body) == [spec.public() for spec in OPTIONS]


def engine_row(spec: OptionSpec) -> str:
    default = {True: "`True`", False: "`False`"}.get(spec.default, f"`{spec.default!r}`")
    default = default.replace("'", '"')
    if spec.kind == "count" and spec.high is not None and spec.low is not None:
        if spec.high - spec.low <= 4:
            values = ", ".join(str(n) for n in range(spec.low, spec.high + 1))
        else:
            values = f"integer {spec.low}..{spec.high}"
    elif spec.kind == "choice":
        values = ", ".join(f'`"{c}"`' for c in spec.choices)
    else:
        values = "`True`, `False`"
    return f"| `{spec.name}` | {default} | {values} | {spec.changes} |"


def test_the_engine_docs_table_is_the_declaration() -> None:
    docs = (ROOT / "docs" / "engine.md").read_text()
    table = "\n".join(engine_row(spec) for spec in RULES)
    assert table in docs, f"docs/engine.md's options table should read:\n{table}"


def test_the_protocol_docs_give_every_option_its_default() -> None:
    docs = (ROOT / "docs" / "protocol.md").read_text()
    for spec in OPTIONS:
        assert f"| `{spec.name}` | `{json.dumps(spec.default)}` |" in docs, spec.name
