"""The terminal client's pure rendering: what a viewer's document shows, and nothing more."""

from __future__ import annotations

import random
import re
from typing import Any

from clients.terminal.app import TURN_ENDS, moves_key, screen_key
from clients.terminal.render import (
    Style,
    action_label,
    card,
    describe,
    render,
    render_actions,
    render_pile,
    render_scores,
    sorted_hand,
)
from protocol.engine import legal_actions
from protocol.messages import RoomOptions
from server.room import Room, bot_seat_event, create_event

CARD_TOKEN = re.compile(r"(?<![0-9A-Z])(10|[2-9AJQK])([♥♦♣♠])")
SUIT_LETTER = {"♥": "H", "♦": "D", "♣": "C", "♠": "S"}


def make_room(seats: int = 3, target: int = 25) -> Room:
    """Ana#4F7K (seat 0, human), a medium bot (seat 1) and Ben#Q2ZT (seat 2, away)."""
    options = RoomOptions(seats=seats, target=target, dealer=seats - 1)  # Ana moves first
    room = Room(create_event("ABCDEF", options))
    ana = {"e": "sit", "seat": 0, "name": "Ana", "kind": "human", "token": "h", "tag": "4F7K"}
    room.apply(ana)
    room.apply({"e": "presence", "seat": 0, "connected": True})
    room.apply(bot_seat_event(1, "medium"))
    if seats > 2:
        room.apply({"e": "sit", "seat": 2, "name": "Ben", "kind": "human", "tag": "Q2ZT"})
        room.apply({"e": "away", "seat": 2, "away": True})
    return room


def started(room: Room, seed: str = "render") -> Room:
    room.apply({"e": "start", "seed": seed})
    return room


def play_to_hand_over(room: Room, seed: int = 3) -> list[dict[str, Any]]:
    """Random legal actions until the hand ends; returns the log lines produced."""
    rng = random.Random(seed)
    lines: list[dict[str, Any]] = []
    assert room.match is not None
    while room.match.phase == "playing":
        seat = room.match.position.turn
        action = rng.choice(legal_actions(room.match.position))
        lines.extend(room.apply({"e": "act", "seat": seat, "a": action.text()}))
    return lines


def shown_cards(text: str) -> set[str]:
    """Every card drawn in ``text`` (symbol form), as codes."""
    return {rank + SUIT_LETTER[suit] for rank, suit in CARD_TOKEN.findall(text)}


def table_cards(game: dict[str, Any]) -> set[str]:
    return {c for pile in game["piles"].values() for c in pile}


def test_card_uses_symbols_and_colours_only_when_asked() -> None:
    assert card("10D") == "10♦"
    assert card("QS", Style(symbols=False)) == "QS"
    red = card("7H", Style(color=True))
    black = card("7C", Style(color=True))
    assert red.startswith("\x1b[31") and red.endswith("\x1b[0m") and "7♥" in red
    assert black.startswith("\x1b[30") and "7♣" in black
    assert "\x1b" not in render(started(make_room()).doc(0))


def test_action_labels() -> None:
    assert action_label("7H>N") == "7♥ → N"
    assert action_label("N>NE") == "pile N → NE"
    assert action_label("end") == "end turn"
    text = render_actions(["7H>N", "S>NE", "end"])
    assert " 1) 7♥ → N" in text and " 2) pile S → NE" in text and " 3) end turn" in text


def test_pile_shows_base_top_and_count() -> None:
    assert render_pile("N", ["8C", "7H", "6S"]) == "N : 8♣ … 6♠  (3 cards)"
    assert render_pile("E", ["9D"]) == "E : 9♦  (1 card)"
    assert render_pile("NE", []) == "NE: empty  (kings only)"
    assert render_pile("W", []) == "W : empty"


def test_lobby_shows_seats_and_tells_the_host_to_start() -> None:
    room = Room(create_event("QWERTY", RoomOptions(seats=3)))
    room.apply({"e": "sit", "seat": 0, "name": "Ana", "kind": "human", "token": "h"})
    room.apply(bot_seat_event(1, "hard"))
    host_view = render(room.doc(0), 0)
    assert "Room QWERTY · lobby" in host_view
    assert "Ana (you, host)" in host_view
    assert "not ready" not in host_view  # the host starts; only guests say they are ready
    assert "bot hard" in host_view
    assert "(free)" in host_view
    assert "type 'start' to begin" in host_view
    watcher_view = render(room.doc(None), None)
    assert "Waiting for Ana to start the match." in watcher_view
    assert "Type 'ready'" not in watcher_view


def test_lobby_says_who_is_not_ready_yet() -> None:
    seat = {"kind": "human", "level": None, "connected": True, "away": False}
    doc: dict[str, Any] = {
        "room": {
            "code": "QWERTY",
            "phase": "lobby",
            "options": {"seats": 3, "target": 25, "draw": "end", "kings_first": False},
            "seats": [
                {**seat, "name": "Ana", "ready": False},
                {**seat, "name": "Ben", "ready": False},
                {**seat, "name": "Cai", "ready": True},
            ],
            "host": 0,
            "rematch": [],
        },
        "game": None,
    }
    host = render(doc, 0)
    assert "Not ready yet: Ben." in host
    assert "Ana (you, host)          human, connected\n" in host
    ben = render(doc, 1)
    assert "Ben (you)                human, connected, not ready" in ben
    assert "Cai                      human, connected, ready" in ben
    assert "Waiting for Ana to start the match. Type 'ready' when you are." in ben
    assert "Type 'ready'" not in render(doc, 2)


def test_player_view_shows_everything_public_and_only_its_own_hand() -> None:
    room = started(make_room())
    assert room.match is not None
    me = room.match.position.turn
    doc = room.doc(me)
    game = doc["game"]
    text = render(doc, me, log=[{"ev": "started", "dealer": 0, "rematch": False}])
    # The hand, every pile and the stock.
    hand = game["hand"]
    shown = " ".join(card(c) for c in sorted_hand(hand))  # by suit, highest first
    assert f"Your hand ({len(hand)}): " + shown in text
    for name, pile in game["piles"].items():
        assert render_pile(name, pile) in text
    assert f"Stock: {game['stock']} cards" in text
    # Seats: names, who plays, connection, card counts, turn marker.
    assert "Ana" in text and "human, connected" in text
    assert "Bot 2" in text and "bot medium" in text
    assert "Ben" in text and "human, away (a bot plays)" in text
    assert " 7 cards" in text
    assert re.search(rf"▶ {me + 1}\. ", text)
    assert "Your turn." in text
    # The numbered legal actions, in order.
    for n, action in enumerate(game["legal"], start=1):
        assert f"{n:>2}) {action_label(action)}" in text
    assert "· The match begins; Ana deals." in text
    # No other seat's card: only the own hand and the table appear.
    assert shown_cards(text) <= set(hand) | table_cards(game)
    others = {c for i, h in enumerate(room.match.position.hands) if i != me for c in h}
    assert not shown_cards(text) & others


def test_away_player_is_told_how_to_take_the_seat_back() -> None:
    room = started(make_room())
    assert room.match is not None
    while room.match.position.turn != 2:
        room.apply({"e": "act", "seat": room.match.position.turn, "a": "end"})
    text = render(room.doc(2), 2)
    assert "Ben#Q2ZT (you, dealer)" in text  # a plate names the person with the tag
    assert "Your turn. A bot is playing your seat: type 'back' to take it back." in text
    assert "▶ 3. Ben" in text


def test_waiting_player_sees_whose_turn_and_no_actions() -> None:
    room = started(make_room())
    assert room.match is not None
    turn = room.match.position.turn
    other = (turn + 1) % 3
    doc = room.doc(other)
    text = render(doc, other)
    name = ["Ana", "Bot 2", "Ben"][turn]
    assert f"{name}'s turn." in text
    assert "Actions (" not in text
    assert "Your turn" not in text


def test_spectator_sees_no_hand_at_all() -> None:
    room = started(make_room())
    assert room.match is not None
    doc = room.doc(None)
    text = render(doc, None)
    assert "Your hand" not in text
    assert shown_cards(text) <= table_cards(doc["game"])
    assert "Actions (" not in text


def test_hand_over_shows_penalties_left_hands_and_scores() -> None:
    room = started(make_room(seats=2, target=500))
    lines = play_to_hand_over(room)
    assert room.match is not None and room.match.phase == "hand_over"
    doc = room.doc(0)
    game = doc["game"]
    result = game["result"]
    text = render(doc, 0, log=lines)
    assert "Hand 1 over: " in text
    for i, name in enumerate(["Ana", "Bot 2"]):
        left = result["left"][i]
        shown = " ".join(card(c) for c in left) if left else "no cards"
        assert f"{name}: {result['penalties'][i]} penalty ({shown})" in text
    assert "type 'next' to deal it now" in text
    scores = render_scores(doc)
    assert scores.splitlines()[0] == "Scores (target 500):"
    hand_row = scores.splitlines()[2].split()
    assert hand_row[:2] == ["hand", "1"] and hand_row[2:] == [str(p) for p in result["penalties"]]
    total_row = scores.splitlines()[3].split()
    assert total_row == ["total", *(str(t) for t in game["totals"])]
    assert describe(lines[-1], doc) in text  # the hand_over event, worded


def test_finished_match_names_the_winners() -> None:
    room = started(make_room(seats=2, target=1))
    seed = 0
    assert room.match is not None
    while room.match.phase != "finished":
        if room.match.phase == "hand_over":
            room.apply({"e": "next"})
        play_to_hand_over(room, seed)
        seed += 1
    doc = room.doc(1)
    winners = " and ".join(["Ana", "Bot 2"][i] for i in doc["game"]["winners"])
    text = render(doc, 1)
    assert f"Match over: {winners} won." in text
    assert "finished" in text.splitlines()[0]


def test_the_whole_board_again_only_at_a_turn_a_hand_or_a_phase() -> None:
    room = started(make_room(seats=2))
    assert room.match is not None
    me = room.match.position.turn
    before_mine = screen_key(room.doc(me), me, turn=0)
    before_other = screen_key(room.doc(1 - me), 1 - me)
    watching = screen_key(room.doc(None), None)
    moves = moves_key(room.doc(me), me)
    assert moves is not None and moves_key(room.doc(1 - me), 1 - me) is None
    action = next(a for a in legal_actions(room.match.position) if a.text() != "end")
    room.apply({"e": "act", "seat": me, "a": action.text()})
    # A move in one's own turn: the same board, new moves.
    assert screen_key(room.doc(me), me, turn=0) == before_mine
    assert moves_key(room.doc(me), me) not in (None, moves)
    assert screen_key(room.doc(1 - me), 1 - me) == before_other
    [ended] = room.apply({"e": "act", "seat": me, "a": "end"})
    assert ended["ev"] in TURN_ENDS
    # The end of one's turn is no new board; the next turn of one's own is.
    assert screen_key(room.doc(me), me, turn=0) == before_mine
    assert screen_key(room.doc(1 - me), 1 - me, turn=1) != before_other
    # A spectator's board stays until the hand ends.
    assert screen_key(room.doc(None), None) == watching
    play_to_hand_over(room)
    assert screen_key(room.doc(None), None) != watching
    assert screen_key(room.doc(me), me, turn=0) != before_mine
