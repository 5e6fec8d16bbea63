"""The compact search model agrees with the engine's single legal-action generator."""

from __future__ import annotations

import random

from protocol.bots.base import Seen
from protocol.bots.greedy import best_filler, chain_length, greedy_play, greedy_turn
from protocol.bots.model import (
    CARD_ID,
    EMPTY,
    cards_of,
    do_move,
    mask_of,
    pile_code,
    piles_from_view,
    to_action,
    turn_moves,
)
from protocol.bots.turnsearch import turn_ends
from protocol.bots.worlds import sample_world
from protocol.engine import (
    DECK,
    PILES,
    Match,
    Options,
    apply,
    legal_actions,
    new_match,
    parse_position,
    seat_view,
)


def random_positions(count: int) -> list[Match]:
    """Matches stopped at random points of random playouts."""
    rng = random.Random(5)
    out = []
    for k in range(count):
        match = new_match(Options(seats=2 + k % 3), seed=f"model:{k}")
        for _ in range(rng.randrange(0, 60)):
            if match.phase != "playing":
                break
            match = match.apply(rng.choice(legal_actions(match.position)))
        if match.phase == "playing":
            out.append(match)
    return out


def canonical(text: str, piles: dict[str, list[str]]) -> str:
    """An action text with the empty pile it targets replaced by its kind."""
    left, _, right = text.partition(">")
    if right in piles and not piles[right]:
        return f"{left}>{'corner' if len(right) == 2 else 'side'}"
    return text


def test_compact_moves_are_the_engine_moves_up_to_which_empty_space() -> None:
    for match in random_positions(60):
        pos = match.position
        view = seat_view(match, pos.turn)
        compact = {
            to_action(m).text() for m in turn_moves(mask_of(view["hand"]), piles_from_view(view))
        }
        engine = {a.text() for a in legal_actions(pos)} - {"end"}
        assert compact <= engine
        assert {canonical(t, view["piles"]) for t in compact} == {
            canonical(t, view["piles"]) for t in engine
        }


def test_do_move_tracks_base_and_top_like_the_engine() -> None:
    for match in random_positions(40):
        pos = match.position
        hand = mask_of(pos.hands[pos.turn])
        piles = tuple(pile_code(p) for p in pos.piles)
        for move in turn_moves(hand, piles):
            after = apply(pos, to_action(move))
            hand2, piles2 = do_move(hand, piles, move)
            assert hand2 == mask_of(after.hands[pos.turn])
            assert piles2 == tuple(pile_code(p) for p in after.piles)


def test_worked_example_turn_can_empty_the_hand() -> None:
    # RULES.md: move 8C-7H onto 9D, fill the space with 4S, then 3H on it.
    pos = parse_position("N=8C,7H E=9D S=2H W=5C NE=- SE=- SW=- NW=- ; hands 4S,3H / 2C ; stock *")
    ends, complete = turn_ends(mask_of(pos.hands[0]), tuple(pile_code(p) for p in pos.piles))
    assert complete
    empty = [e for e in ends if e.hand == 0]
    assert empty
    texts = [to_action(m).text() for m in empty[0].path]
    assert texts[0] == "N>E"
    assert len(texts) == 3


def test_turn_ends_include_standing_pat_and_are_distinct() -> None:
    pos = parse_position("N=8C E=9D S=- W=KS NE=- SE=- SW=- NW=- ; hands 7H,KD,4S / 2C ; stock *")
    hand = mask_of(pos.hands[0])
    piles = tuple(pile_code(p) for p in pos.piles)
    ends, complete = turn_ends(hand, piles)
    assert complete
    assert ends[0].hand == hand and ends[0].path == ()
    keys = {(e.hand, tuple(sorted(e.piles[:4])), tuple(sorted(e.piles[4:]))) for e in ends}
    assert len(keys) == len(ends)
    assert any(e.hand == 0 for e in ends)


def test_node_limit_bounds_the_search() -> None:
    pos = parse_position(
        "N=- E=- S=- W=- NE=- SE=- SW=- NW=- ; hands "
        + ",".join(["KS", "QH", "JC", "10D", "9S", "8H", "7C", "6D", "5S", "4H", "3C", "2D"])
        + " / 2C ; stock *"
    )
    ends, complete = turn_ends(mask_of(pos.hands[0]), (EMPTY,) * 8, limit=50)
    assert not complete
    assert len(ends) == 50


def test_greedy_places_kings_first_and_builds_on_its_filler() -> None:
    assert chain_length(CARD_ID["9S"], mask_of(["9S", "8H", "7C", "2D"])) == 2
    assert best_filler(mask_of(["9S", "8H", "7C", "2D"])) == CARD_ID["9S"]
    assert DECK[best_filler(mask_of(["KH", "9S", "8H"]))] == "KH"
    pos = parse_position("N=5C E=9D S=JC W=QD NE=- SE=- SW=- NW=- ; hands KH,4D,2C / 2S ; stock *")
    hand, _, path = greedy_turn(mask_of(pos.hands[0]), tuple(pile_code(p) for p in pos.piles))
    # King to the first corner, JC onto QD (a pile move before any play), 4D on 5C, and the
    # freed side space takes the last card.
    assert [to_action(m).text() for m in path] == [f"KH>{PILES[4]}", "S>W", "4D>N", "2C>S"]
    assert hand == 0


def test_sampled_worlds_match_the_public_counts_and_hide_nothing_seen() -> None:
    match = new_match(Options(seats=4), seed="worlds")
    view = seat_view(match, match.position.turn)
    seen = Seen.from_view(view)
    rng = random.Random(3)
    for _ in range(20):
        world = sample_world(seen, rng)
        assert [h.bit_count() for h in world.hands] == view["counts"]
        assert len(world.stock) == view["stock"]
        assert world.hands[seen.seat] == seen.hand
        union = 0
        for h in world.hands:
            assert union & h == 0
            union |= h
        for card in world.stock:
            assert seen.unseen >> card & 1
            assert not union >> card & 1
        assert (
            len(cards_of(union)) + len(world.stock) + sum(len(p) for p in view["piles"].values())
            == 52
        )


def test_in_place_greedy_makes_the_same_choices_as_the_recorded_one() -> None:
    for match in random_positions(60):
        pos = match.position
        hand = mask_of(pos.hands[pos.turn])
        piles = tuple(pile_code(p) for p in pos.piles)
        left, after, _ = greedy_turn(hand, piles)
        table = list(piles)
        assert greedy_play(hand, table) == left
        assert tuple(table) == after
