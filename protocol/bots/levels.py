"""The levels by name, and the factory the server uses."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from typing import Any

from protocol.engine import Action
from protocol.errors import BadOptions

from .base import Memory, RememberingBot
from .evaluate import Weights
from .human import SloppyBot
from .search import SearchBot, SearchConfig
from .simple import HeuristicBot, RandomBot
from .tips import TipsBot

#: The time a search level may spend on one turn unless told otherwise.
DEFAULT_BUDGET_MS = 75.0

#: The static evaluation of ``medium`` and ``hard``: a card is kept back when the hand builds
#: on it or it fits a top later (arena-tuned against the heuristic).
KEEPING_WEIGHTS = Weights(my_fit=0.5, chain=0.3)

#: The strength settings of the search levels.
CONFIGS: dict[str, SearchConfig] = {
    "medium": SearchConfig(noise=0.2, weights=KEEPING_WEIGHTS),
    "hard": SearchConfig(worlds=48, candidates=6, first_stage=8, weights=KEEPING_WEIGHTS),
    "expert": SearchConfig(worlds=480, candidates=16, first_stage=32),
}

_SIMPLE: dict[str, Callable[[int | str | None], RememberingBot]] = {
    "random": RandomBot,
    "heuristic": HeuristicBot,
    "easy": SloppyBot,
}

#: Every level, weakest first.
LEVELS: tuple[str, ...] = ("random", "heuristic", "easy", "medium", "hard", "expert")

#: Opponents the arena also accepts but rooms do not offer: ``tips`` follows the seed's tips
#: in a plain order of its own, so a search level meets opponents it does not model exactly.
ARENA_LEVELS: tuple[str, ...] = (*LEVELS, "tips")

_ARENA_ONLY: dict[str, Callable[[int | str | None], RememberingBot]] = {"tips": TipsBot}


def make_bot(
    level: str,
    seed: int | str | None = None,
    *,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    arena: bool = False,
) -> RememberingBot:
    """A new bot of ``level``.

    The same seed gives the same decisions as long as the time budget does not cut a search
    short; ``budget_ms=None`` removes the clock (fully reproducible, same strength on any
    machine). ``arena=True`` also accepts the arena-only levels (:data:`ARENA_LEVELS`).
    Raises :class:`~protocol.errors.BadOptions` for an unknown level.
    """
    simple = _SIMPLE.get(level) or (_ARENA_ONLY.get(level) if arena else None)
    if simple is not None:
        return simple(seed)
    config = CONFIGS.get(level)
    if config is None:
        raise BadOptions(
            f"Unknown bot level {level!r}; levels are {', '.join(LEVELS)}.",
            reason="level",
            level=level,
        )
    return SearchBot(level, replace(config, budget_ms=budget_ms), seed)


def decide(
    level: str,
    seed: int | str | None,
    memory: Memory | None,
    view: Mapping[str, Any],
    *,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
) -> tuple[Action, Memory]:
    """One decision of the ``level`` bot seeded ``seed``, given what it carries from its
    previous decisions (``memory``, None for its first); returns the action and the memory
    to pass next time.

    The bot is rebuilt for every call, so any worker process can serve any decision, and a
    sequence of calls answers exactly as one bot object asked in the same order would: the
    same moves get the same answers (the daily deal relies on it).
    """
    bot = make_bot(level, seed, budget_ms=budget_ms)
    if memory is not None:
        bot.recall(memory)
    action = bot.choose(view)
    return action, bot.memory()


def hint(view: Mapping[str, Any]) -> Action:
    """The expert's suggested next action for the seat whose view this is, on its turn."""
    return make_bot("expert", "hint").choose(view)


__all__ = ["ARENA_LEVELS", "CONFIGS", "DEFAULT_BUDGET_MS", "LEVELS", "decide", "hint", "make_bot"]
