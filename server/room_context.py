"""What a loaded room needs of its process (:class:`RoomContext`), and how a change to a
room is asked for (:data:`Decide`)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from .bots import BotRunner
from .config import Settings
from .records import Person
from .room import Room
from .store.base import Event, Store
from .tasks import Tasks

#: Decides a change on the room's current state: the events to store (none: no change),
#: or a :class:`~protocol.errors.ClientError` refusing it.
Decide = Callable[[Room], list[Event]]


@dataclass(frozen=True)
class RoomContext:
    """What a loaded room needs of its process, and nothing more."""

    settings: Settings
    store: Store
    bots: BotRunner
    tasks: Tasks
    #: Keep a finished match (history, ratings, leaderboards): ``(record, people, daily)``;
    #: returns each seat's rating change, or None for an unrated match.
    record: Callable[[dict[str, Any], list[Person], dict[str, Any] | None], Awaitable[Any]]
    #: Forget a room this process no longer serves (the lobby's registry).
    forget: Callable[[str], Awaitable[None]]
    #: A hand of a match with people ended (the match goes on): the record so far, for the
    #: coach to review that hand while the next is played.
    hand_ended: Callable[[dict[str, Any]], None] = lambda _record: None
