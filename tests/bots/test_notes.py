"""What an expert notes of the other hands is true of players who play whatever fits, is
used by its worlds, and comes from its views alone."""

from __future__ import annotations

import random

from protocol.bots import make_bot
from protocol.bots.base import PlanningBot, Seen
from protocol.bots.model import mask_of
from protocol.bots.worlds import sample_world
from protocol.engine import Options, new_match, seat_view


def _noted_hands(seats: int, seed: str, hands: int = 2) -> list[tuple[int, int, int, int]]:
    """Play ``seats`` seats (an expert in seat 0, heuristic bots elsewhere) and return, at
    each of the expert's turn starts, every note as (seat, mask, fresh, cards of the real
    hand inside the mask)."""
    match = new_match(Options(seats=seats), seed=seed)
    expert = make_bot("expert", seed=seed, budget_ms=None)
    assert isinstance(expert, PlanningBot)
    others = [make_bot("heuristic", seed=s) for s in range(seats)]
    out: list[tuple[int, int, int, int]] = []
    played = 0
    while match.phase != "finished" and played < hands:
        if match.phase == "hand_over":
            match = match.next_hand()
            played += 1
            continue
        seat = match.position.turn
        view = seat_view(match, seat)
        if seat == 0:
            action = expert.choose(view)
            notes = expert.memory()[3]
            if not view["moved"] and notes is not None:
                for s, avoid in enumerate(notes[1]):
                    real = mask_of(match.position.hands[s])
                    out.extend((s, mask, fresh, (real & mask).bit_count()) for mask, fresh in avoid)
        else:
            action = others[seat].choose(view)
        match = match.apply(action, seat)
    return out


def test_notes_hold_for_players_who_play_whatever_fits() -> None:
    notes = [n for seats in (2, 3, 4) for n in _noted_hands(seats, f"notes:{seats}")]
    assert len(notes) > 20
    for seat, mask, fresh, held in notes:
        assert seat != 0 and mask
        assert held <= fresh, (seat, mask, fresh, held)
    # The notes say something: many rule out cards the hand could have held.
    assert sum(1 for _, mask, fresh, _ in notes if mask.bit_count() > fresh) > 10


def test_sampled_worlds_keep_to_the_notes() -> None:
    match = new_match(Options(seats=4), seed="notes-worlds")
    seen = Seen.from_view(seat_view(match, match.position.turn))
    me = seen.seat
    other = (me + 1) % 4
    unseen = [i for i in range(52) if seen.unseen >> i & 1]
    mask = sum(1 << i for i in unseen[:20])
    avoid = tuple(((mask, 1),) if s == other else () for s in range(4))
    noted = Seen(**{**{f: getattr(seen, f) for f in seen.__slots__}, "avoid": avoid})
    rng = random.Random(3)
    for _ in range(200):
        world = sample_world(noted, rng)
        assert (world.hands[other] & mask).bit_count() <= 1
        assert world.hands[other].bit_count() == seen.counts[other]
        dealt = sum(h.bit_count() for h in world.hands) + len(world.stock)
        assert dealt == 52 - sum(len(p) for p in match.position.piles)
    # Without the note the same seat often holds two or more of those 20 cards.
    plain = [sample_world(seen, rng).hands[other] & mask for _ in range(200)]
    assert sum(1 for m in plain if m.bit_count() > 1) > 100
