"""The rules: one legal-action generator, and ``apply`` which trusts nothing else.

:func:`legal_actions` is the single source of truth. :func:`apply` accepts an action only
if it is in that list; :func:`explain` is consulted only to word a refusal and never
decides legality.
"""

from __future__ import annotations

from protocol.errors import (
    BadAction,
    CannotDraw,
    CannotMovePile,
    CornerNeedsKing,
    DoesNotFit,
    HandOver,
    IllegalAction,
    MustPlayCard,
    MustPlayKing,
    NoSuchPile,
    NotInHand,
    NotYourTurn,
    Param,
)

from .actions import DRAW, END_TURN, MOVES, PLAYS, Action, Draw, EndTurn, Move, Play
from .cards import CARDS, FITS_ON, FITS_UNDER, IS_KING
from .position import HandResult, Position
from .table import PILE_INDEX, PILES, SIDE_INDICES, is_corner

#: In ``draw: until_playable``, the cards a seat draws when its last card leaves a side
#: space empty (RULES.md, clause (c)).
REFILL = 3
#: A complete corner runs from its king down to an ace (``scoring: corners``).
CORNER_COMPLETE = 13


def legal_actions(position: Position) -> list[Action]:
    """Every action the seat to move may take now, in a stable, deterministic order.

    Plays first, pile by pile in ``PILES`` order; onto a non-empty pile the (at most two)
    fitting cards come in ``DECK`` order, onto an empty side pile the hand's cards and onto
    an empty corner its kings come in hand order. Then pile moves, source by source in
    ``PILES`` order: a king-based side pile to each empty corner in ``PILES`` order, any
    other pile onto the (at most two) piles whose top its base fits, in ``DECK`` order of
    that top card. Then, in ``draw: until_playable``, ``draw`` when no card of the hand can
    be played and the stock is not empty. Then ``end`` when ending the turn is allowed.
    Empty when the hand is over. The list is computed once per position and shared: callers
    must not modify it.
    """
    cached = position.legal_cache
    if cached is not None:
        return cached
    actions = _generate(position)
    object.__setattr__(position, "legal_cache", actions)
    return actions


#: Per pile, in index order: its name, whether it is a corner, every play onto it, every
#: move from it. Generating legal actions then only looks things up.
_PILE_INFO: tuple[tuple[str, bool, dict[str, Play], dict[str, Move]], ...] = tuple(
    (name, is_corner(i), {card: PLAYS[card][name] for card in PLAYS}, MOVES[name])
    for i, name in enumerate(PILES)
)


def _generate(position: Position) -> list[Action]:
    if position.result is not None:
        return []
    hand = position.hands[position.turn]
    held = set(hand)
    piles = position.piles
    actions: list[Action] = []
    add = actions.append
    kings = [c for c in hand if IS_KING[c]]
    empty_corners: list[str] = []
    tops: dict[str, str] = {}
    for (name, corner, plays, _), pile in zip(_PILE_INFO, piles, strict=True):
        if pile:
            top = pile[-1]
            tops[top] = name
            for card in FITS_ON[top]:
                if card in held:
                    add(plays[card])
        elif corner:
            empty_corners.append(name)
            for king in kings:
                add(plays[king])
        else:
            for card in hand:
                add(plays[card])
    for (name, corner, _, moves), src in zip(_PILE_INFO, piles, strict=True):
        if not src:
            continue
        base = src[0]
        if IS_KING[base]:
            # Nothing fits above a king; a side king pile may only go to an empty corner.
            if not corner:
                for target in empty_corners:
                    add(moves[target])
            continue
        for onto in FITS_UNDER[base]:
            dst = tops.get(onto)
            if dst is not None and dst != name:
                add(moves[dst])
    may_end = True
    if position.options.draw == "until_playable":
        if position.stock and not _has_play(actions):
            add(DRAW)
        may_end = position.played or not position.stock
    if may_end and not (position.options.kings_first and kings and empty_corners):
        add(END_TURN)
    return actions


def _has_play(actions: list[Action]) -> bool:
    """Whether the list (plays first, then moves) holds a play."""
    return bool(actions) and isinstance(actions[0], Play)


def is_legal(position: Position, action: Action) -> bool:
    """True when ``action`` is one of :func:`legal_actions`."""
    return action in legal_actions(position)


#: The classes of :data:`~protocol.engine.actions.Action`; anything else is refused.
_ACTION_TYPES = (Play, Move, EndTurn, Draw)


def apply(position: Position, action: Action, seat: int | None = None) -> Position:
    """Return the position after ``action`` by the seat to move.

    When ``seat`` is given it must be the seat to move. A refused action raises an
    :class:`~protocol.errors.IllegalAction` with a precise code and changes nothing;
    when several faults apply, the code is chosen as :func:`explain` documents (anything
    that is not a ``Play``, ``Move``, ``Draw`` or ``EndTurn`` raises :class:`BadAction`).
    """
    if position.result is not None or (seat is not None and seat != position.turn):
        raise _refusal(position, action, seat)
    legal = legal_actions(position)
    # Parsed and generated actions are the interned objects of PLAYS and MOVES, so an
    # identity scan finds them without calling __eq__; anything else falls back to equality
    # (for actions only: an object equal to everything must not pass for one).
    for candidate in legal:
        if candidate is action:
            return _perform(position, action)
    if not isinstance(action, _ACTION_TYPES) or action not in legal:
        raise _refusal(position, action, seat)
    return _perform(position, action)


def _refusal(position: Position, action: Action, seat: int | None) -> IllegalAction:
    """The error for a refused ``action``: :func:`explain`, with the seat check in its place."""
    if (
        isinstance(action, _ACTION_TYPES)
        and position.result is None
        and seat is not None
        and seat != position.turn
    ):
        return NotYourTurn()
    return explain(position, action)


def _perform(position: Position, action: Action) -> Position:
    """Carry out an action already known to be legal."""
    p = position
    if isinstance(action, Play):
        return _play(p, action)
    if isinstance(action, Move):
        return _move(p, PILE_INDEX[action.src], PILE_INDEX[action.dst])
    if isinstance(action, Draw):
        return _draw(p, 1)
    return _end_turn(p)


def _play(p: Position, action: Play) -> Position:
    """Play a card; an emptied hand goes out, or in ``draw: until_playable`` draws
    :data:`REFILL` cards when a side space is empty (after the card is placed) and the
    stock is not."""
    turn = p.turn
    hand = list(p.hands[turn])
    hand.remove(action.card)
    hands = _with(p.hands, turn, tuple(hand))
    i = PILE_INDEX[action.pile]
    piles = _with(p.piles, i, (*p.piles[i], action.card))
    piles, collected = _collect(p, piles, i)
    after = Position(
        p.options,
        hands,
        piles,
        p.stock,
        p.dealer,
        turn,
        True,
        0,
        played=True,
        opening=p.opening,
        collected=collected,
    )
    if hand:
        return after
    refills = (
        p.options.draw == "until_playable"
        and bool(p.stock)
        and any(not piles[k] for k in SIDE_INDICES)
    )
    if refills:
        return _draw(after, REFILL)
    result = HandResult.score("emptied", turn, hands)
    return Position(
        p.options,
        hands,
        piles,
        p.stock,
        p.dealer,
        turn,
        True,
        0,
        result,
        True,
        opening=p.opening,
        collected=collected,
    )


def _move(p: Position, src: int, dst: int) -> Position:
    """Move pile ``src`` whole onto ``dst``. Under ``opening_refill``, while the window is
    open (:attr:`Position.refill_open`), an emptied side space takes the stock's top card;
    under ``scoring: corners``, a corner the move completes is collected."""
    pile_list = list(p.piles)
    pile_list[dst] = pile_list[dst] + pile_list[src]
    pile_list[src] = ()
    stock = p.stock
    if stock and src in SIDE_INDICES and p.refill_open:
        pile_list[src] = (stock[0],)
        stock = stock[1:]
    piles, collected = _collect(p, tuple(pile_list), dst)
    return Position(
        p.options,
        p.hands,
        piles,
        stock,
        p.dealer,
        p.turn,
        True,
        0,
        played=p.played,
        opening=p.opening,
        collected=collected,
    )


def _collect(
    p: Position, piles: tuple[tuple[str, ...], ...], index: int
) -> tuple[tuple[tuple[str, ...], ...], tuple[int, ...]]:
    """Under ``scoring: corners``, take away corner ``index`` when it has just become
    complete (king to ace, :data:`CORNER_COMPLETE` cards), counting it for the seat to
    move: the piles and the seats' collected counts after."""
    collected = p.collected
    if p.options.scoring != "corners" or not is_corner(index):
        return piles, collected
    if len(piles[index]) != CORNER_COMPLETE:
        return piles, collected
    counts = list(collected or (0,) * p.seats)
    counts[p.turn] += 1
    return _with(piles, index, ()), tuple(counts)


def _draw(p: Position, count: int) -> Position:
    """The seat to move takes up to ``count`` cards from the top of the stock, top first;
    its turn goes on."""
    taken = p.stock[:count]
    hands = _with(p.hands, p.turn, (*p.hands[p.turn], *taken))
    stock = p.stock[len(taken) :]
    return Position(
        p.options,
        hands,
        p.piles,
        stock,
        p.dealer,
        p.turn,
        p.moved,
        p.passes,
        played=p.played,
        opening=p.opening,
        collected=p.collected,
    )


def _end_turn(p: Position) -> Position:
    hands, stock = p.hands, p.stock
    drew = False
    if p.options.draw == "end" and stock:
        hands = _with(hands, p.turn, (*hands[p.turn], stock[0]))
        stock = stock[1:]
        drew = True
    passes = p.passes + 1 if not (p.moved or drew or stock) else 0
    if passes >= p.seats:
        result = HandResult.score("blocked", None, hands)
        return Position(
            p.options,
            hands,
            p.piles,
            stock,
            p.dealer,
            p.turn,
            p.moved,
            passes,
            result,
            p.played,
            opening=p.opening,
            collected=p.collected,
        )
    turn = (p.turn + 1) % p.seats
    after = Position(
        p.options, hands, p.piles, stock, p.dealer, turn, False, passes, collected=p.collected
    )
    return draw_for_turn(after) if p.options.draw == "start" else after


def draw_for_turn(p: Position) -> Position:
    """In the ``draw: start`` variant, the seat to move draws as its turn begins."""
    if not p.stock:
        return p
    return _draw(p, 1)


def explain(position: Position, action: Action) -> IllegalAction:
    """The error that says why ``action`` is refused in ``position``.

    Used only to word a refusal: legality is decided by :func:`legal_actions` (for a legal
    action the answer means nothing). When several faults apply, the first of these wins:

    1. ``bad_action``: not a ``Play``, ``Move``, ``Draw`` or ``EndTurn`` at all;
    2. ``hand_over``: the hand has ended;
    3. ``not_your_turn`` (in :func:`apply` only, when its ``seat`` is not the seat to move);
    4. ``end``: ``must_play_king`` when the seat holds a king and a corner is empty under
       ``kings_first``, else ``must_play_card`` (``draw: until_playable``, nothing played
       yet and the stock not empty);
    5. ``draw``: ``cannot_draw``, its ``reason`` ``rule`` (another draw rule), then
       ``stock_empty``, then ``playable`` (with the first legal play's ``card`` and ``pile``);
    6. a play: ``bad_action`` (no card code), ``no_such_pile``, ``not_in_hand``, then
       ``corner_needs_king`` (an empty corner) or ``does_not_fit`` (a non-empty pile);
    7. a move: ``no_such_pile`` (source, then destination), ``cannot_move_pile`` (empty
       source), ``cannot_move_pile`` (onto itself), then by destination: an empty side,
       ``cannot_move_pile``; an empty corner, ``corner_needs_king`` when the base is no
       king, else ``cannot_move_pile``; a pile, ``does_not_fit``.
    """
    if not isinstance(action, _ACTION_TYPES):
        return BadAction(
            f"{type(action).__name__} is not an action: expected Play, Move, Draw or EndTurn.",
            reason="not_an_action",
        )
    if position.result is not None:
        return HandOver()
    hand = position.hands[position.turn]
    piles = position.piles
    if isinstance(action, EndTurn):
        return _refuse_end(position)
    if isinstance(action, Draw):
        return _refuse_draw(position)
    if isinstance(action, Play):
        if not isinstance(action.card, str) or action.card not in CARDS:
            card = action.card if isinstance(action.card, str) else None
            return BadAction(
                "That is not a card code: a rank (A, 2 to 10, J, Q or K), then a suit "
                "(C, D, H or S).",
                reason="not_a_card",
                card=card,
            )
        if not isinstance(action.pile, str) or action.pile not in PILE_INDEX:
            pile = action.pile if isinstance(action.pile, str) else None
            return NoSuchPile(f"That is not a pile; piles are {', '.join(PILES)}.", pile=pile)
        if action.card not in hand:
            return NotInHand("That card is not in your hand.", card=action.card)
        i = PILE_INDEX[action.pile]
        if not piles[i]:
            return CornerNeedsKing(
                f"Only a king may start the empty corner {action.pile}.",
                card=action.card,
                pile=action.pile,
            )
        return DoesNotFit(
            f"That card does not fit on the top of {action.pile}: it must be one rank lower "
            "and of the opposite colour.",
            card=action.card,
            pile=action.pile,
            onto=piles[i][-1],
        )
    for name in (action.src, action.dst):
        if not isinstance(name, str) or name not in PILE_INDEX:
            return NoSuchPile(
                f"That is not a pile; piles are {', '.join(PILES)}.",
                pile=name if isinstance(name, str) else None,
            )
    src, dst = PILE_INDEX[action.src], PILE_INDEX[action.dst]
    if not piles[src]:
        return CannotMovePile(
            f"{action.src} is empty: there is nothing to move.",
            reason="empty",
            **{"from": action.src, "to": action.dst},
        )
    ends: dict[str, Param] = {"from": action.src, "to": action.dst}
    if src == dst:
        return CannotMovePile("A pile cannot move onto itself.", reason="itself", **ends)
    base = piles[src][0]
    if not piles[dst]:
        if not is_corner(dst):
            return CannotMovePile(
                "A pile never moves onto an empty side space.", reason="empty_side", **ends
            )
        if not IS_KING[base]:
            return CornerNeedsKing(
                f"Only a king-based pile may move to the empty corner {action.dst}.",
                base=base,
                **ends,
            )
        return CannotMovePile(
            "A corner pile never moves onto another empty corner.",
            reason="corner_to_corner",
            **ends,
        )
    if IS_KING[base]:
        return DoesNotFit(
            "A king-based pile never moves onto another pile: nothing is above a king.",
            reason="king_pile",
            **ends,
        )
    return DoesNotFit(
        f"The base of {action.src} does not fit on the top of {action.dst}; "
        "a pile moves whole, by its base.",
        base=base,
        onto=piles[dst][-1],
        **ends,
    )


def _refuse_end(position: Position) -> IllegalAction:
    kings = any(IS_KING[c] for c in position.hands[position.turn])
    corner_free = any(not position.piles[i] for i in range(4, 8))
    if position.options.kings_first and kings and corner_free:
        return MustPlayKing()
    return MustPlayCard()


def _refuse_draw(position: Position) -> IllegalAction:
    if position.options.draw != "until_playable":
        return CannotDraw(
            "This room draws at the end or the start of a turn, never on request.",
            reason="rule",
        )
    if not position.stock:
        return CannotDraw("The stock is empty.", reason="stock_empty")
    play = next((a for a in legal_actions(position) if isinstance(a, Play)), None)
    if play is None:  # the draw is legal: the answer means nothing
        return CannotDraw()
    return CannotDraw(
        "A card of your hand can be played: you may draw only while none can.",
        reason="playable",
        card=play.card,
        pile=play.pile,
    )


def _with(
    items: tuple[tuple[str, ...], ...], index: int, value: tuple[str, ...]
) -> tuple[tuple[str, ...], ...]:
    return (*items[:index], value, *items[index + 1 :])


__all__ = [
    "CORNER_COMPLETE",
    "END_TURN",
    "REFILL",
    "apply",
    "draw_for_turn",
    "explain",
    "is_legal",
    "legal_actions",
]
