"""The waiting room's keys, split from the room screen (:mod:`.game`): a seat's ``ready``,
and the host's start, bots, kicks, lock and options. The options keys (``d`` the next draw
rule, ``f`` kings first, ``+``/``-`` the target, ``p`` public, ``o`` the form with every
declared option) change what they name and keep the rest as the room has it: ``configure``
replaces all the options (docs/protocol.md), so every declared option is sent
(:func:`clients.terminal.options.configure_options`)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, cast

from textual.screen import Screen

from clients.net import Frame, GameClient
from clients.terminal.options import DEFAULT_LEVEL, configure_options
from protocol.options_table import Value, option

from .look import Look
from .optionform import ConfigureScreen


def next_choice(name: str, current: object) -> str:
    """The choice of option ``name`` after ``current`` (the first after the last)."""
    choices = option(name).choices
    index = choices.index(current) if current in choices else -1
    return choices[(index + 1) % len(choices)]


def stepped(name: str, current: object, step: int) -> int:
    """Count option ``name`` moved by ``step``, kept within its bounds."""
    spec = option(name)
    value = int(current) if isinstance(current, int | float) else int(spec.default)
    return min(spec.high or value + step, max(spec.low or 0, value + step))


def key_changes(ch: str, room: Mapping[str, Any]) -> dict[str, Value] | None:
    """What a host's options key changes (None: not an options key)."""
    options = room["options"]
    if ch == "d":
        return {"draw": next_choice("draw", options.get("draw"))}
    if ch == "f":
        return {"kings_first": not options.get("kings_first")}
    if ch in ("+", "-"):
        return {"target": stepped("target", options.get("target"), 5 if ch == "+" else -5)}
    if ch == "p":
        return {"public": not room.get("public")}
    return None


class WaitingKeys:
    """The waiting room's keys, for the room screen (which provides what is declared)."""

    client: GameClient
    look: Look
    #: A seat key pending its seat number (``a`` adds/removes a bot, ``k`` kicks).
    seat_op: str | None

    async def send(self, message: Frame) -> None: ...  # the screen's

    def refresh_view(self) -> None: ...  # the screen's

    async def waiting_key(self, ch: str, doc: Mapping[str, Any]) -> bool:
        """One key in the waiting room; True when it meant something here."""
        room = doc["room"]
        me = self.client.seat
        if self.seat_op is not None and ch.isdigit():
            op, self.seat_op = self.seat_op, None
            seat = int(ch) - 1
            seats = room["seats"]
            if not 0 <= seat < len(seats):
                return True
            entry = seats[seat]
            if op == "k":
                await self.send({"type": "kick", "seat": seat})
            elif entry is None:
                await self.send({"type": "add_bot", "seat": seat, "level": DEFAULT_LEVEL})
            elif entry["kind"] == "bot":
                await self.send({"type": "remove_bot", "seat": seat})
            return True
        self.seat_op = None
        if ch == "r":
            mine = room["seats"][me] if me is not None else None
            await self.send({"type": "ready", "ready": not (mine and mine.get("ready"))})
            return True
        if room.get("host") != me:
            return False
        changes = key_changes(ch, room)
        if changes is not None:
            await self.configure(changes)
        elif ch == "s":
            await self.send({"type": "start", "fill": DEFAULT_LEVEL})
        elif ch in ("a", "k"):
            self.seat_op = ch
        elif ch == "x":
            await self.send({"type": "lock", "locked": not room.get("locked")})
        elif ch == "o":
            screen = cast("Screen[None]", self)
            screen.app.push_screen(ConfigureScreen(self.look, room), self._configured)
        else:
            return False
        return True

    async def _configured(self, changes: dict[str, Value] | None) -> None:
        if changes:
            await self.configure(changes)
            self.refresh_view()

    async def configure(self, changes: Mapping[str, Value]) -> None:
        """Change the options ``changes`` names, the others kept as the room has them."""
        doc = self.client.doc
        assert doc is not None
        options = configure_options(doc["room"], changes)
        await self.send({"type": "configure", "options": options})


__all__ = ["WaitingKeys", "key_changes", "next_choice", "stepped"]
