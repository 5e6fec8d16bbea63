"""The levels by name, and the factory the server uses."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from protocol.engine import Action
from protocol.errors import BadOptions

from .base import Bot
from .human import SloppyBot
from .search import SearchBot, SearchConfig
from .simple import HeuristicBot, RandomBot

#: The strength settings of the search levels.
CONFIGS: dict[str, SearchConfig] = {
    "medium": SearchConfig(overlook_moves=0.35, noise=0.7),
    "hard": SearchConfig(),
    "expert": SearchConfig(worlds=48, candidates=8, budget_ms=80.0),
}

_FACTORIES: dict[str, Callable[[int | str | None], Bot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "easy": SloppyBot,
    "medium": lambda seed: SearchBot("medium", CONFIGS["medium"], seed),
    "hard": lambda seed: SearchBot("hard", CONFIGS["hard"], seed),
    "expert": lambda seed: SearchBot("expert", CONFIGS["expert"], seed),
}

#: Every level, weakest first.
LEVELS: tuple[str, ...] = ("random", "heuristic", "easy", "medium", "hard", "expert")


def make_bot(level: str, seed: int | str | None = None) -> Bot:
    """A new bot of ``level``; the same seed gives the same decisions (when the search budget
    does not cut in). Raises :class:`~protocol.errors.BadOptions` for an unknown level."""
    factory = _FACTORIES.get(level)
    if factory is None:
        raise BadOptions(f"Unknown bot level {level!r}; levels are {', '.join(LEVELS)}.")
    return factory(seed)


def hint(view: Mapping[str, Any]) -> Action:
    """The expert's suggested next action for the seat whose view this is, on its turn."""
    return SearchBot("expert", CONFIGS["expert"], "hint").choose(view)


__all__ = ["CONFIGS", "LEVELS", "hint", "make_bot"]
