"""The web client words every log event and refusal of the protocol itself, in each of its
languages: the server sends data (docs/protocol.md), never a sentence."""

from __future__ import annotations

import json
import re
from typing import Any, get_args

import pytest

from protocol.log_events import LogEvent
from protocol.schema import error_classes

from .conftest import Pages

#: One example of every log event, with its parameters (names of seats 0 and 1: Ana, Ben).
EVENTS: list[dict[str, Any]] = [
    {"ev": "sat", "seat": 1, "name": "Ben", "bot": None},
    {"ev": "moved_seat", "seat": 1, "from": 0},
    {"ev": "left", "seat": 1, "name": "Ben"},
    {"ev": "bot_took", "seat": 1, "name": "Ben", "level": "heuristic"},
    {"ev": "kicked", "seat": 1, "name": "Ben"},
    {"ev": "host", "seat": 1},
    {"ev": "locked", "seat": 0, "locked": True},
    {"ev": "configured", "seat": 0},
    {"ev": "away", "seat": 1, "away": True},
    {"ev": "timed_out", "seat": 1},
    {"ev": "rematch_vote", "seat": 1},
    {"ev": "started", "dealer": 1, "rematch": False},
    {"ev": "dealt", "dealer": 0, "hand": 2},
    {"ev": "played", "seat": 0, "card": "7H", "pile": "N"},
    {"ev": "moved", "seat": 1, "from": "N", "to": "NE"},
    {"ev": "drew", "seat": 0},
    {"ev": "ended", "seat": 1},
    {"ev": "took", "seat": 0, "count": 1},
    {"ev": "took", "seat": 1, "count": 3},
    {"ev": "hand_over", "out": 0, "reason": "emptied", "penalties": [0, 12]},
    {"ev": "match_over", "winners": [0]},
    # The variants' (opening_refill, scoring: corners): after the others, so the indices
    # read below stay.
    {"ev": "collected", "seat": 0, "corner": "NE", "total": 1},
    {"ev": "moved", "seat": 1, "from": "N", "to": "NE", "refill": "5C"},
    {"ev": "match_over", "winners": [0, 1], "places": [1, 1, 3]},
]
ERRORS: list[dict[str, Any]] = [
    {"code": "does_not_fit", "params": {"card": "6S", "pile": "N", "onto": "8C"}},
    {"code": "not_in_hand", "params": {"card": "QD"}},
    {"code": "rate_limited", "params": {"reason": "hints", "limit": 3}},
    {"code": "bad_message", "params": {"reason": "too_large", "limit": 16384}},
    {"code": "not_ready", "params": {"seats": [1]}},
    {"code": "must_play_card", "params": {}},
    {"code": "cannot_draw", "params": {"reason": "playable", "card": "8D", "pile": "N"}},
    {"code": "cannot_draw", "params": {"reason": "stock_empty"}},
]

WORDS = """async ([events, errors]) => {
  const panel = await import("/panel.js");
  const sync = await import("/sync.js");
  const names = ["Ana", "Ben"];
  return {
    events: events.map((e) => panel.logText({ ...e, names })),
    errors: errors.map((e) => sync.errorText({ ...e, message: "SERVER WORDS" })),
  };
}"""


def test_the_examples_cover_every_event_and_the_codes_exist() -> None:
    kinds = {m.model_fields["ev"].default for m in get_args(get_args(LogEvent)[0])}
    assert {e["ev"] for e in EVENTS} == kinds
    codes = {cls.code for cls in error_classes()}
    assert {e["code"] for e in ERRORS} <= codes


@pytest.mark.parametrize("locale", ["en-US", "es-ES"])
def test_every_event_and_refusal_is_worded_in_the_players_language(
    pages: Pages, locale: str
) -> None:
    page = pages.open(f"words-{locale}", locale=locale)
    page.wait_for_function("() => document.documentElement.lang !== ''")
    words = page.evaluate(WORDS, [EVENTS, ERRORS])
    for event, text in zip(EVENTS, words["events"], strict=True):
        assert text and "{" not in text and "log." not in text, (event, text)
        assert "Something happened" not in text and "Pasó algo" not in text, (event, text)
    for error, text in zip(ERRORS, words["errors"], strict=True):
        assert text != "SERVER WORDS" and "{" not in text, (error, text)
    joined = json.dumps(words, ensure_ascii=False)
    assert "Ben" in words["events"][5]  # the new host, named from the seats
    fit = words["errors"][0]
    assert re.search("6\u2660\ufe0e?", fit) and re.search("8\u2663\ufe0e?", fit)
    if locale == "es-ES":
        assert "jugó" in words["events"][13] and "encaja" in fit, joined
        assert words["events"][18] == "Ben robó 3 cartas y sigue jugando.", joined
    else:
        assert "played" in words["events"][13] and "does not fit" in fit, joined
        assert words["events"][17] == "Ana drew a card.", joined
        assert words["events"][18] == "Ben drew 3 cards and plays on.", joined
        assert words["errors"][6].startswith("8♦"), joined  # the card that can be played
