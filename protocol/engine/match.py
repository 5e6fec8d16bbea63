"""A match: hands played one after another until a total reaches the target (under
``scoring: corners``, one hand).

A match is a value: its options, its seed (or stacked decks) and first dealer, and the
log of actions taken. Folding the log over the deal reproduces any match exactly
(:func:`replay`). ``next`` in the log marks the deal of the following hand.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, replace
from typing import Any, Literal

from protocol.errors import BadOptions, HandInProgress, MatchOver

from .actions import Action, action_from_text
from .deal import check_deck, deal, first_dealer, shuffled_deck
from .options import Options
from .position import HandResult, Position
from .rules import apply as apply_to_position

Phase = Literal["playing", "hand_over", "finished"]
NEXT_HAND = "next"


@dataclass(frozen=True, slots=True)
class Match:
    """The state of a whole match. Build one with :func:`new_match`."""

    options: Options
    seed: str
    decks: tuple[tuple[str, ...], ...]
    first_dealer: int
    position: Position
    hand_index: int = 0
    results: tuple[HandResult, ...] = ()
    totals: tuple[int, ...] = ()
    #: Actions of the current hand, in text form (kept per hand so appending stays cheap).
    hand_log: tuple[str, ...] = ()
    #: Action logs of the hands before this one.
    past_logs: tuple[tuple[str, ...], ...] = ()

    @property
    def log(self) -> tuple[str, ...]:
        """Every action of the match in order, with ``next`` where a new hand was dealt."""
        entries: list[str] = []
        for hand in self.past_logs:
            entries.extend(hand)
            entries.append(NEXT_HAND)
        entries.extend(self.hand_log)
        return tuple(entries)

    @property
    def phase(self) -> Phase:
        if self.position.result is None:
            return "playing"
        if self.options.scoring == "corners" or max(self.totals) >= self.options.target:
            return "finished"
        return "hand_over"

    @property
    def collected(self) -> tuple[int, ...]:
        """Corners each seat has collected (``scoring: corners``; empty otherwise). The match
        is one hand, so these are the hand's."""
        return self.position.collected

    @property
    def places(self) -> tuple[int, ...]:
        """Each seat's place once the match is finished (empty before): 1 is first. Under
        ``penalty`` the lower total places higher; under ``corners`` more corners collected,
        then the lower penalty. Seats still tied share the place and the next place is
        numbered after them (1, 2, 2, 4)."""
        if self.phase != "finished":
            return ()
        if self.options.scoring == "corners":
            keys = [(-c, t) for c, t in zip(self.collected, self.totals, strict=True)]
        else:
            keys = [(0, t) for t in self.totals]
        return tuple(1 + sum(other < key for other in keys) for key in keys)

    @property
    def winners(self) -> tuple[int, ...]:
        """Seats in first place once the match is finished (ties share the win): under
        ``penalty`` the lowest total, under ``corners`` :attr:`places`."""
        return tuple(i for i, place in enumerate(self.places) if place == 1)

    def apply(self, action: Action, seat: int | None = None) -> Match:
        """The match after ``action``, which it also logs (scoring the hand when it ends).

        Refusals are those of :func:`protocol.engine.rules.apply`, codes and precedence
        included (anything that is not an action raises ``BadAction``); nothing changes.
        """
        position = apply_to_position(self.position, action, seat)
        log = (*self.hand_log, action.text())
        results, totals = self.results, self.totals
        if position.result is not None:
            results = (*results, position.result)
            totals = tuple(t + p for t, p in zip(totals, position.result.penalties, strict=True))
        return Match(
            self.options,
            self.seed,
            self.decks,
            self.first_dealer,
            position,
            self.hand_index,
            results,
            totals,
            log,
            self.past_logs,
        )

    def next_hand(self) -> Match:
        """Deal the next hand, the dealer passing to the left."""
        phase = self.phase
        if phase == "playing":
            raise HandInProgress()
        if phase == "finished":
            raise MatchOver()
        index = self.hand_index + 1
        dealer = (self.position.dealer + 1) % self.options.seats
        position = deal(deck_for_hand(self.seed, self.decks, index), self.options, dealer)
        return replace(
            self,
            position=position,
            hand_index=index,
            hand_log=(),
            past_logs=(*self.past_logs, self.hand_log),
        )

    def record(self) -> dict[str, Any]:
        """JSON-ready record from which :func:`replay` rebuilds this match."""
        return {
            "options": self.options.to_dict(),
            "seed": self.seed,
            "decks": [list(d) for d in self.decks],
            "first_dealer": self.first_dealer,
            "log": list(self.log),
        }


def deck_for_hand(seed: str, decks: Sequence[tuple[str, ...]], index: int) -> tuple[str, ...]:
    """Stacked deck ``index`` when given, otherwise the seeded shuffle for that hand."""
    return decks[index] if index < len(decks) else shuffled_deck(seed, index)


def new_match(
    options: Options | None = None,
    *,
    seed: str | int | None = None,
    decks: Iterable[Sequence[str]] = (),
    dealer: int | None = None,
) -> Match:
    """Start a match and deal its first hand.

    ``seed`` drives the shuffles and the first dealer (a fresh random seed when omitted);
    ``decks`` stacks the first hands' decks (index 0 is the top); ``dealer`` fixes the
    first dealer.
    """
    options = options or Options()
    stacked = tuple(check_deck(d) for d in decks)
    if seed is None:
        seed = ",".join(stacked[0]) if stacked else secrets.token_hex(8)
    seed = str(seed)
    if dealer is None:
        dealer = first_dealer(seed, options.seats)
    elif isinstance(dealer, bool) or not isinstance(dealer, int) or not 0 <= dealer < options.seats:
        raise BadOptions(
            f"dealer must be a seat from 0 to {options.seats - 1}.",
            reason="dealer",
            seats=options.seats,
        )
    position = deal(deck_for_hand(seed, stacked, 0), options, dealer)
    return Match(
        options=options,
        seed=seed,
        decks=stacked,
        first_dealer=dealer,
        position=position,
        totals=(0,) * options.seats,
    )


def replay(record: dict[str, Any]) -> Match:
    """Rebuild a match from :meth:`Match.record`: same deal, same actions, same result."""
    match = new_match(
        Options.from_dict(record["options"]),
        seed=record["seed"],
        decks=record.get("decks", ()),
        dealer=record["first_dealer"],
    )
    for entry in record["log"]:
        match = match.next_hand() if entry == NEXT_HAND else match.apply(action_from_text(entry))
    return match
