"""Bots for every level, deciding only from a seat's view.

Typical use::

    from protocol.bots import make_bot, hint

    bot = make_bot("hard", seed=7)
    action = bot.choose(seat_view(match, seat))   # one of view["legal"]
    suggestion = hint(seat_view(match, seat))

Levels, weakest first: ``random``, ``heuristic``, ``easy``, ``medium``, ``hard``, ``expert``.
See docs/bots.md for how they play and how strong they are.
"""

from .base import Bot, Memory, RememberingBot, follow_plan
from .explain import explain
from .levels import LEVELS, decide, hint, make_bot

__all__ = [
    "LEVELS",
    "Bot",
    "Memory",
    "RememberingBot",
    "decide",
    "explain",
    "follow_plan",
    "hint",
    "make_bot",
]
