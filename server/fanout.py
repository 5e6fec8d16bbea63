"""The patches of one change for all of a room's viewers, sharing the common part.

Every viewer's document is ``{"room": ..., "game": ...}``; a seat's ``game`` is the public
view plus its private keys (:data:`PRIVATE`). All documents a room holds describe the same
state, so the operations on the shared part are the same for every viewer.

Two ways to the new documents and their patches:

- :func:`after_move`, for the change nearly every message makes: one action within a hand.
  It builds the new documents from the old ones and the two positions, touching only what
  the action changed (a pile or two, a count, the turn, the mover's hand and legal list;
  under the variants the refill window and the corners collected), and writes the
  operations for exactly those keys. No view is rebuilt, nothing is diffed
  (the positions are immutable tuples: comparing them is cheap and exact).
- :func:`patches`, for every other change: the documents are built afresh and compared.

Both give the same documents (``tests/server/test_fanout.py``); the operations may differ in
form (a list can be patched several ways), never in effect.
Documents are never changed in place: a new one shares the old one's unchanged parts.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from protocol.diff import Op, diff
from protocol.engine import Match, legal_actions
from protocol.engine.table import PILES

Doc = dict[str, Any]
Viewer = int | None
#: The keys of a seat's ``game`` that the public view does not have.
PRIVATE = frozenset(("you", "hand", "legal"))
#: At most this many cards added to a list are sent one by one (more: the list whole).
_MAX_ADDS = 3
#: The piles' JSON Pointer paths, by pile index.
_PILE_PATHS = tuple(f"/game/piles/{name}" for name in PILES)


def _public(game: dict[str, Any]) -> dict[str, Any]:
    return {key: value for key, value in game.items() if key not in PRIVATE}


def patches(old: dict[Any, Doc], new: dict[Any, Doc]) -> dict[Any, list[Op] | None]:
    """Per viewer, the operations turning its ``old`` document into its ``new`` one.

    ``old`` and ``new`` each hold documents of one state of the room. A viewer with no
    old document gets None: it needs a snapshot.
    """
    shared: list[Op] | None = None
    out: dict[Any, list[Op] | None] = {}
    for viewer, new_doc in new.items():
        old_doc = old.get(viewer)
        if old_doc is None:
            out[viewer] = None
            continue
        old_game, new_game = old_doc["game"], new_doc["game"]
        if old_game is None or new_game is None:
            out[viewer] = diff(old_doc, new_doc)  # a match began or was cleared
            continue
        if shared is None:
            shared = diff(old_doc["room"], new_doc["room"], "/room")
            shared += diff(_public(old_game), _public(new_game), "/game")
        ops = list(shared)
        for key in PRIVATE.intersection(new_game):
            ops += diff(old_game.get(key), new_game[key], f"/game/{key}")
        out[viewer] = ops
    return out


def _cards_ops(was: tuple[str, ...], now: tuple[str, ...], path: str) -> list[Op]:
    """Operations for a list of cards one action changed: cards added at its end (a play,
    a pile moved onto it, a draw), one card taken out (a play from a hand), else the list
    whole (a pile moved away, a first card on an empty pile)."""
    n, m = len(was), len(now)
    if 0 < n < m <= n + _MAX_ADDS and now[:n] == was:
        return [{"op": "add", "path": f"{path}/{i}", "value": now[i]} for i in range(n, m)]
    if m == n - 1:
        i = next((k for k in range(m) if was[k] != now[k]), m)
        if was[i + 1 :] == now[i:]:
            return [{"op": "remove", "path": f"{path}/{i}"}]
    return [{"op": "replace", "path": path, "value": list(now)}]


def after_move(
    old: dict[Viewer, Doc], viewers: Iterable[Viewer], before: Match, after: Match
) -> tuple[dict[Viewer, Doc], dict[Viewer, list[Op]]] | None:
    """The new documents and each viewer's operations after one action within a hand.

    ``old`` holds every viewer's document of ``before``; ``after`` is ``before`` with one
    action applied and nothing else in the room changed. None when the action did more
    than move cards and the turn (it ended the hand), or a viewer has no old document:
    the caller builds the documents afresh and uses :func:`patches`.
    """
    p0, p1 = before.position, after.position
    if p1.result is not None or after.hand_index != before.hand_index:
        return None
    viewers = list(viewers)
    olds = [old.get(viewer) for viewer in viewers]
    if not olds or any(doc is None or doc["game"] is None for doc in olds):
        return None
    first = olds[0]
    assert first is not None
    public = dict(first["game"])
    for key in PRIVATE.intersection(public):
        del public[key]
    ops: list[Op] = []
    if p0.turn != p1.turn:
        public["turn"] = p1.turn
        ops.append({"op": "replace", "path": "/game/turn", "value": p1.turn})
    if p0.moved != p1.moved:
        public["moved"] = p1.moved
        ops.append({"op": "replace", "path": "/game/moved", "value": p1.moved})
    if p0.piles != p1.piles:
        piles = dict(public["piles"])
        for i, (was, now) in enumerate(zip(p0.piles, p1.piles, strict=True)):
            if was != now:
                piles[PILES[i]] = list(now)
                ops += _cards_ops(was, now, _PILE_PATHS[i])
        public["piles"] = piles
    if len(p0.stock) != len(p1.stock):
        public["stock"] = len(p1.stock)
        ops.append({"op": "replace", "path": "/game/stock", "value": len(p1.stock)})
    if p0.hands != p1.hands:
        counts = list(public["counts"])
        for seat, hand in enumerate(p1.hands):
            if counts[seat] != len(hand):
                counts[seat] = len(hand)
                ops.append({"op": "replace", "path": f"/game/counts/{seat}", "value": len(hand)})
        public["counts"] = counts
    if after.options.opening_refill and public["refill_open"] != p1.refill_open:
        public["refill_open"] = p1.refill_open
        ops.append({"op": "replace", "path": "/game/refill_open", "value": p1.refill_open})
    if p0.collected != p1.collected:
        collected = list(public["collected"])
        for seat, count in enumerate(p1.collected):
            if collected[seat] != count:
                collected[seat] = count
                ops.append({"op": "replace", "path": f"/game/collected/{seat}", "value": count})
        public["collected"] = collected
    room_doc = first["room"]
    legal: list[str] | None = None
    new: dict[Viewer, Doc] = {}
    out: dict[Viewer, list[Op]] = {}
    for viewer, old_doc in zip(viewers, olds, strict=True):
        assert old_doc is not None
        if viewer is None:
            new[viewer] = {"room": room_doc, "game": public}
            out[viewer] = ops
            continue
        old_game = old_doc["game"]
        game = dict(public)
        game["you"] = viewer
        mine = ops
        was, now = p0.hands[viewer], p1.hands[viewer]
        if was != now:
            game["hand"] = list(now)
            mine = mine + _cards_ops(was, now, "/game/hand")
        else:
            game["hand"] = old_game["hand"]
        if p1.turn == viewer:
            if legal is None:
                legal = [a.text() for a in legal_actions(p1)]
            game["legal"] = legal
        else:
            game["legal"] = []
        if game["legal"] != old_game["legal"]:
            mine = mine + diff(old_game["legal"], game["legal"], "/game/legal")
        new[viewer] = {"room": room_doc, "game": game}
        out[viewer] = mine
    return new, out
