"""The replay client without a server: a match played by the engine, rebuilt step by step."""

from __future__ import annotations

import random
import socket
from typing import Any

import pytest

import clients.terminal.replay as replay_module
from clients.terminal.render import Style, sorted_hand
from clients.terminal.replay import (
    Go,
    ReplayError,
    build,
    caption,
    fetch_record,
    http_base,
    navigate,
    render_step,
    run,
)
from protocol.engine import NEXT_HAND, Match, Options, legal_actions, new_match

LETTERS = Style(symbols=False)


def played_match(seed: str = "replay", seats: int = 3, target: int = 30) -> Match:
    """A whole match of random legal actions (several hands at this target)."""
    rng = random.Random(seed)
    match = new_match(Options(seats=seats, target=target), seed=seed)
    while match.phase != "finished":
        if match.phase == "hand_over":
            match = match.next_hand()
        else:
            match = match.apply(rng.choice(legal_actions(match.position)))
    return match


def record_of(match: Match) -> dict[str, Any]:
    """The record the server keeps of ``match`` (GET /api/matches/ID)."""
    names = ["Ana", "Bot 2", "Ben", "Bot 4"][: match.options.seats]
    return {
        "id": "ABCDEF-1",
        "room": "ABCDEF",
        "finished_at": 1_700_000_000.0,
        **match.record(),
        "seats": [
            {"name": name, "kind": "bot" if name.startswith("Bot") else "human", "level": None}
            for name in names
        ],
        "results": [list(r.penalties) for r in match.results],
        "totals": list(match.totals),
        "winners": list(match.winners),
        "daily": None,
    }


@pytest.fixture(scope="module")
def match() -> Match:
    return played_match()


def test_the_replay_reproduces_the_record(match: Match) -> None:
    record = record_of(match)
    replay = build(record)
    assert replay.totals == record["totals"] and replay.winners == record["winners"]
    assert replay.mismatch() is None
    assert len(replay.steps) == len(record["log"]) + 1
    assert len(replay.hand_starts) == len(match.results) >= 3
    for step in replay.steps:
        # Step i is the match after the first i entries of the log, exactly.
        assert step.match.log == tuple(record["log"][: step.index])
    for hand, start in enumerate(replay.hand_starts, start=1):
        step = replay.steps[start]
        assert step.hand == hand and step.seat is None and step.match.hand_log == ()
        assert step.entry == (None if hand == 1 else NEXT_HAND)
    assert replay.steps[-1].match.phase == "finished"


def test_a_tampered_record_is_reported_and_a_broken_one_refused(match: Match) -> None:
    record = record_of(match)
    assert "totals" in (build({**record, "totals": [0, 0, 0]}).mismatch() or "")
    assert "winners" in (build({**record, "winners": [9]}).mismatch() or "")
    with pytest.raises(ReplayError, match="does not replay"):
        build({**record, "log": [*record["log"][:3], "QH>NW"]})
    with pytest.raises(ReplayError):
        build({key: value for key, value in record.items() if key != "seed"})


def test_stepping_forward_back_and_jumping(match: Match) -> None:
    replay = build(record_of(match))
    last, starts = replay.last, replay.hand_starts
    assert navigate(replay, 0, "") == Go(1)
    assert navigate(replay, 0, "n\n") == Go(1)
    assert navigate(replay, 7, "b") == Go(6)
    assert navigate(replay, 7, "h 2") == Go(starts[1])
    assert navigate(replay, 7, "  H 3 ") == Go(starts[2])
    assert navigate(replay, 7, f"hand {len(starts)}") == Go(starts[-1])
    assert navigate(replay, 7, "e") == Go(last)
    assert navigate(replay, last, "s") == Go(0)
    assert navigate(replay, 7, "q") == Go(None)
    # At the edges, and for lines that are no keys, the step stays and a note says why.
    at_end = navigate(replay, last, "n")
    assert at_end.index == last and "end of the match" in (at_end.note or "")
    at_start = navigate(replay, 0, "b")
    assert at_start.index == 0 and "first hand" in (at_start.note or "")
    for line in ("h 0", f"h {len(starts) + 1}", "h", "h two"):
        go = navigate(replay, 7, line)
        assert go.index == 7 and f"from 1 to {len(starts)}" in (go.note or "")
    wrong = navigate(replay, 7, "jump")
    assert wrong.index == 7 and "Not a replay key" in (wrong.note or "")
    assert "the deal of hand N" in (navigate(replay, 7, "help").note or "")


def test_captions_say_what_each_step_did(match: Match) -> None:
    replay = build(record_of(match))
    names = replay.names()
    first = replay.steps[0].match.position
    assert caption(replay, 0) == (
        f"Hand 1 dealt by seat {first.dealer + 1} ({names[first.dealer]}); "
        f"seat {first.turn + 1} ({names[first.turn]}) plays first."
    )
    assert caption(replay, replay.hand_starts[1]).startswith("Hand 2 dealt by seat ")
    seen = set()
    for step in replay.steps[1:]:
        if step.entry == NEXT_HAND:
            continue
        assert step.seat is not None and step.entry is not None
        text = caption(replay, step.index, LETTERS)
        who = f"seat {step.seat + 1} ({names[step.seat]}) "
        assert text.startswith(who)
        if step.entry == "end":
            seen.add("end")
            assert text.startswith(who + "ended the turn")
        elif step.entry[0] in "NESW":
            seen.add("move")
            src, dst = step.entry.split(">")
            assert text.startswith(f"{who}moved pile {src} onto {dst}")
        else:
            seen.add("play")
            code, pile = step.entry.split(">")
            assert text.startswith(f"{who}played {code} on {pile}")
        before = replay.steps[step.index - 1].match.position.hands[step.seat]
        if len(step.match.position.hands[step.seat]) > len(before):
            assert "and drew a card" in text
    assert seen == {"end", "move", "play"}
    assert caption(replay, replay.last).endswith("is over. The match is over.")


def test_each_step_shows_every_hand_the_table_and_the_scores(match: Match) -> None:
    replay = build(record_of(match))
    screen = render_step(replay, 5, LETTERS)
    position = replay.steps[5].match.position
    assert screen.startswith(f"Replay of match ABCDEF-1 · step 5 of {replay.last} · hand 1 of")
    for seat, hand in enumerate(position.hands):
        assert " ".join(sorted_hand(hand)) in screen.splitlines()[3 + seat]  # by suit
    assert "Table (base … top):" in screen and "Scores (target 30):" in screen
    assert "Keys: Enter/n next" in screen

    end_of_hand = replay.hand_starts[1] - 1
    screen = render_step(replay, end_of_hand, LETTERS)
    assert "Hand 1 over: " in screen and "penalty" in screen
    assert "type 'next'" not in screen  # no prompt to deal: this is a replay

    screen = render_step(replay, replay.last)
    winners = " and ".join(replay.names()[i] for i in replay.winners)
    assert f"Match over: {winners} won." in screen
    (total_line,) = [line for line in screen.splitlines() if line.startswith("  total ")]
    assert [int(t) for t in total_line.split()[1:]] == replay.totals


def test_run_steps_through_typed_lines() -> None:
    replay = build(record_of(played_match("short", seats=2, target=10)))
    lines = iter(["", "n", "b", "h 2", "x", "e", "n", "q", "never read"])
    out: list[str] = []
    assert run(replay, lambda: next(lines), out.append, style=LETTERS) == 0
    shown = [int(text.split(" · step ")[1].split()[0]) for text in out if " · step " in text]
    assert shown == [0, 1, 2, 1, replay.hand_starts[1], replay.last]
    assert any(text.startswith("Not a replay key: 'x'") for text in out)
    assert "This is the end of the match" in out[-1]
    # The end of input quits too.
    assert run(replay, lambda: None, out.append) == 0


def test_server_addresses_and_fetch_errors() -> None:
    assert http_base("ws://127.0.0.1:8000/") == "http://127.0.0.1:8000"
    assert http_base("wss://cards.example/play") == "https://cards.example"
    assert http_base("http://127.0.0.1:8000/api") == "http://127.0.0.1:8000"
    assert http_base("localhost:9000") == "http://localhost:9000"
    with pytest.raises(ReplayError, match="is not a match id"):
        fetch_record("http://127.0.0.1:1", "../etc/passwd")
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # bound, never listening: nothing answers there
        with pytest.raises(ReplayError, match="Cannot reach the server"):
            fetch_record(f"http://127.0.0.1:{port}", "ABCDEF-1", timeout=5)


def test_the_command_line_starts_at_a_hand_and_warns_of_a_mismatch(
    match: Match, monkeypatch: pytest.MonkeyPatch
) -> None:
    record = {**record_of(match), "totals": [1, 2, 3]}
    asked: list[tuple[str, str]] = []

    def fetch(url: str, match_id: str, timeout: float = 10.0) -> dict[str, Any]:
        asked.append((url, match_id))
        return record

    monkeypatch.setattr(replay_module, "fetch_record", fetch)
    out: list[str] = []
    lines = iter(["b", "q"])
    argv = ["ABCDEF-1", "--url", "ws://h:1/", "--hand", "3", "--ascii"]
    assert replay_module.main(argv, read_line=lambda: next(lines), write=out.append) == 0
    assert asked == [("ws://h:1/", "ABCDEF-1")]
    assert out[0].startswith("Warning: this engine replays the match differently")
    assert out[1].startswith(
        "Match ABCDEF-1 in room ABCDEF, finished 2023-11-14 22:13 UTC: 3 seats"
    )
    replay = build(record)
    shown = [int(text.split(" · step ")[1].split()[0]) for text in out if " · step " in text]
    assert shown == [replay.hand_starts[2], replay.hand_starts[2] - 1]
    assert "\x1b[" not in "".join(out) and "♥" not in "".join(out)

    out.clear()
    argv = ["ABCDEF-1", "--hand", "99"]
    assert replay_module.main(argv, read_line=lambda: None, write=out.append, tty=True) == 0
    assert any(text.startswith("Which hand? h N") for text in out)
    assert " · step 0 of " in out[-1] and "\x1b[" in out[-1]
