"""Typed lines to commands, and the token file."""

from __future__ import annotations

import stat
from pathlib import Path

from clients.terminal.commands import Act, Invalid, Say, Simple, Sit, Start, parse
from clients.terminal.render import action_label
from clients.terminal.tokens import KEEP, Saved, TokenFile, default_path

LEGAL = ["7H>N", "N>E", "end"]


def test_numbers_pick_the_numbered_legal_action() -> None:
    assert parse("1", LEGAL) == Act("7H>N")
    assert parse(" 3 ", LEGAL) == Act("end")
    bad = parse("4", LEGAL)
    assert isinstance(bad, Invalid) and "1 to 3" in bad.message
    waiting = parse("1", [])
    assert isinstance(waiting, Invalid) and "not your turn" in waiting.message


def test_action_text_is_normalized() -> None:
    assert parse("7h>n") == Act("7H>N")
    assert parse("10d > ne") == Act("10D>NE")
    assert parse("n>e") == Act("N>E")
    assert parse("END") == Act("end")
    assert parse("end") == Act("end")
    assert isinstance(parse("7X>N"), Invalid)
    assert isinstance(parse("hello there"), Invalid)


def test_drawing_is_typed_draw_or_picked_by_its_number() -> None:
    assert parse("Draw") == Act("draw")
    assert parse(" DRAW ") == Act("draw")
    assert parse("2", ["N>E", "draw"]) == Act("draw")
    assert action_label("draw") == "draw a card"


def test_words() -> None:
    assert parse("hint") == Simple("hint")
    assert parse("Next") == Simple("next")
    assert parse("") == Simple("look")
    assert parse("quit") == Simple("quit")
    assert parse("leave") == Simple("leave")
    assert parse("help") == Simple("help")
    assert parse("chat  good luck all ") == Say("good luck all")
    assert isinstance(parse("chat"), Invalid)
    assert parse("start") == Start(None)
    assert parse("start Hard") == Start("hard")
    assert isinstance(parse("start grandmaster"), Invalid)
    assert parse("sit 2") == Sit(1)
    assert isinstance(parse("sit 0"), Invalid)
    assert isinstance(parse("sit x"), Invalid)


def test_token_file_round_trip_is_private_and_bounded(tmp_path: Path) -> None:
    path = tmp_path / "deep" / "tokens.json"
    tokens = TokenFile(path)
    url = "ws://example.test:8000/"
    assert tokens.get(url, "ABCDEF") is None
    tokens.put(url, "abcdef", Saved(token="secret", seat=2, name="Ana"))
    assert tokens.get(url, "ABCDEF") == Saved(token="secret", seat=2, name="Ana")
    assert tokens.get("ws://other.test/", "ABCDEF") is None
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    for i in range(KEEP + 5):
        tokens.put(url, f"R{i:05d}", Saved(token=str(i), seat=0, name="Ana"))
    assert tokens.get(url, "ABCDEF") is None  # the oldest were forgotten
    assert tokens.get(url, f"R{KEEP + 4:05d}") == Saved(token=str(KEEP + 4), seat=0, name="Ana")
    tokens.forget(url, f"R{KEEP + 4:05d}")
    assert tokens.get(url, f"R{KEEP + 4:05d}") is None
    path.write_text("not json", encoding="utf-8")
    assert tokens.get(url, "R00010") is None


def test_default_token_path_is_in_the_home_directory() -> None:
    assert default_path().is_relative_to(Path.home())
