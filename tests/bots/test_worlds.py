"""Playouts score what the match scores: real penalties (kings 10) when a hand ends, and the
match itself when those penalties decide it."""

from __future__ import annotations

from dataclasses import replace

import pytest

from protocol.bots.base import Seen
from protocol.bots.model import mask_of, pile_code
from protocol.bots.worlds import RoundScoring, World, play_round
from protocol.engine import Options, new_match, parse_position, seat_view

# Seat 0 to move; seat 1 holds only 6D, which fits the 7C on N: it goes out next turn.
TEXT = "N=8D,7C E=9S S=QH W=3C NE=- SE=- SW=- NW=- ; hands KS,2H / 6D / 4C,4S ; stock * ; turn 0"


def _seen(totals: tuple[int, ...], target: int = 25) -> tuple[Seen, World]:
    pos = parse_position(TEXT)
    match = replace(new_match(Options(seats=3, target=target), seed="w"), position=pos)
    seen = replace(Seen.from_view(seat_view(match, 0)), totals=totals, target=target)
    stock = tuple(i for i in range(52) if seen.unseen >> i & 1 and i not in _cards("6D,4C,4S"))
    hands = (seen.hand, mask_of(["6D"]), mask_of(["4C", "4S"]))
    return seen, World(hands, stock)


def _cards(text: str) -> list[int]:
    mask = mask_of(text.split(","))
    return [i for i in range(52) if mask >> i & 1]


def test_an_opponent_going_out_costs_the_real_penalties() -> None:
    seen, world = _seen((0, 0, 0))
    scoring = RoundScoring(out=0.0, match=0.0)
    stock_top = world.stock[0]
    drawn_king = stock_top in _cards("KC,KD,KH")
    hand = seen.hand  # KS and 2H kept: the next seat goes out on the 7C
    value = play_round(seen, world, hand, seen.piles, scoring)
    mine = 10 + 1 + (10 if drawn_king else 1)
    # Seat 2 keeps 4C, 4S (2 points); seat 1 scores 0.
    assert value == (0 + 2) / 2 - mine
    # The hand was lost: the out term counts against it.
    lost = play_round(seen, world, hand, seen.piles, RoundScoring(out=7.0, match=0.0))
    assert lost == value - 7.0


def _king_placed(seen: Seen) -> tuple[int, tuple[int, ...]]:
    """Seat 0's hand and piles after putting KS in the first corner."""
    piles = list(seen.piles)
    piles[4] = pile_code(["KS"])
    return seen.hand & ~mask_of(["KS"]), tuple(piles)


def test_a_king_placed_before_the_hand_ends_saves_its_ten_points() -> None:
    seen, world = _seen((0, 0, 0))
    plain = RoundScoring(out=7.0, match=0.0)
    kept = play_round(seen, world, seen.hand, seen.piles, plain)
    hand, piles = _king_placed(seen)
    assert play_round(seen, world, hand, piles, plain) == kept + 10.0


def test_the_match_term_counts_only_when_the_hand_decides_the_match() -> None:
    scoring = RoundScoring(out=0.0, match=10.0)
    plain = RoundScoring(out=0.0, match=0.0)
    # Far from the target: no match term.
    seen, world = _seen((0, 0, 0))
    assert play_round(seen, world, seen.hand, seen.piles, scoring) == play_round(
        seen, world, seen.hand, seen.piles, plain
    )
    # Seat 2 reaches the target (23 + 2). Keeping the king, seat 0 ends on 12 (king, 2H and
    # the drawn AC) above seat 1's 10: a lost match. Placing it, seat 0 ends on 2: won.
    seen, world = _seen((0, 10, 23))
    assert world.stock[0] == mask_of(["AC"]).bit_length() - 1
    lost = play_round(seen, world, seen.hand, seen.piles, scoring)
    assert lost == pytest.approx(play_round(seen, world, seen.hand, seen.piles, plain) - 10 / 3)
    hand, piles = _king_placed(seen)
    won = play_round(seen, world, hand, piles, scoring)
    assert won == pytest.approx(play_round(seen, world, hand, piles, plain) + 20 / 3)
