"""Every room option a person chooses, declared once.

The engine's ``Options`` (the rules of a match), the wire model ``RoomOptions`` and so the
schema, the room document, the web client's two forms and its one-line summary, the terminal
client's summary and docs/engine.md's table of rules are all read from ``OPTIONS``. The words
stay in each language's catalogue, under keys named from the declaration (``WORD_KEYS``): a
new rule variant is its rule code, one entry here, its words in each catalogue, and its tests.

Options a person never picks in a form (``bots``, which has its own seat pickers, and the
``seed``, ``decks`` and ``dealer`` of reproducible deals) stay on ``RoomOptions`` alone.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, get_args

Kind = Literal["count", "number", "choice", "flag"]
Value = int | float | str | bool | None

#: The draw rule's values (RULES.md, "Variants"): the engine and the wire model type it.
DrawRule = Literal["end", "start", "until_playable"]
#: How a match is scored (RULES.md, "Variants"): penalties over hands, or corners collected
#: in one hand.
Scoring = Literal["penalty", "corners"]
#: How fast bots play (a room setting, not a rule).
Pace = Literal["normal", "fast"]


@dataclass(frozen=True, slots=True)
class OptionSpec:
    """One option: its name on the wire, what kind of value it takes and within which
    bounds, its default, and whether it is a rule of the match (``rule``: kept in the
    engine's ``Options`` and in the match record) or a setting of the room."""

    name: str
    kind: Kind
    default: Any
    rule: bool
    #: What the option changes, in the docs' words (docs/engine.md's table for a rule).
    changes: str
    #: Bounds of a count or number (inclusive; ``above`` is an exclusive lower bound).
    low: int | None = None
    high: int | None = None
    above: int | None = None
    choices: tuple[str, ...] = ()
    #: A number option that may be null (off).
    nullable: bool = False
    #: The values a form offers for a number option, besides off.
    presets: tuple[int, ...] = ()
    #: Whether the room document lists it under ``room.options`` (``public`` sits at the
    #: room's top level instead).
    in_room_options: bool = True
    #: The values the one-line summary names it at (``"*"``: any value but null).
    summary_when: tuple[Value, ...] = ()
    #: Where another option makes this one mean nothing (option name, value): the summary
    #: leaves it out there (``target`` under ``scoring: corners``, a one-hand match).
    unused_when: tuple[tuple[str, Value], ...] = ()
    #: A rule added after matches were first recorded: a match record (and so a replay's
    #: input) leaves it out at its default, so a record of a match that does not use it is
    #: the same as before the rule existed, and releases before it still read that record.
    omit_default: bool = False

    def accepts(self, value: object) -> bool:
        """Whether ``value`` is one this option takes (a bool is never a count)."""
        if value is None:
            return self.nullable
        if self.kind == "flag":
            return isinstance(value, bool)
        if self.kind == "choice":
            return isinstance(value, str) and value in self.choices
        if isinstance(value, bool) or not isinstance(value, int | float):
            return False
        if self.kind == "count" and type(value) is not int:
            return False
        if self.low is not None and value < self.low:
            return False
        if self.above is not None and value <= self.above:
            return False
        return self.high is None or value <= self.high

    def explain(self) -> str:
        """The sentence a refusal of this option's value carries."""
        if self.kind == "flag":
            return f"{self.name} must be true or false."
        if self.kind == "choice":
            return f"{self.name} must be {_either(self.choices)}."
        if self.kind == "count":
            return f"{self.name} must be an integer from {self.low} to {self.high}."
        return f"{self.name} must be a number above {self.above} and at most {self.high}."

    def public(self) -> dict[str, Any]:
        """The declaration as the web client reads it (``/room-options.js``)."""
        out: dict[str, Any] = {"name": self.name, "kind": self.kind, "default": self.default}
        out["rule"] = self.rule
        for key in ("low", "high", "above"):
            if getattr(self, key) is not None:
                out[key] = getattr(self, key)
        if self.choices:
            out["choices"] = list(self.choices)
        if self.nullable:
            out["nullable"] = True
        if self.presets:
            out["presets"] = list(self.presets)
        out["summary_when"] = list(self.summary_when)
        out["unused_when"] = [list(pair) for pair in self.unused_when]
        return out


def _either(choices: tuple[str, ...]) -> str:
    quoted = [f"'{c}'" for c in choices]
    return " or ".join([", ".join(quoted[:-1]), quoted[-1]]) if len(quoted) > 1 else quoted[0]


OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "seats",
        "count",
        4,
        rule=True,
        low=2,
        high=4,
        changes="number of players",
    ),
    OptionSpec(
        "target",
        "count",
        25,
        rule=True,
        low=1,
        high=500,
        changes="the match ends after a hand in which a total reaches it",
        summary_when=("*",),
        unused_when=(("scoring", "corners"),),
    ),
    OptionSpec(
        "draw",
        "choice",
        "end",
        rule=True,
        choices=get_args(DrawRule),
        changes=(
            "`end`: ending a turn draws one card. `start`: the seat to move draws one card as"
            " its turn begins (the first mover as the hand is dealt); ending a turn draws"
            " nothing. The drawn card may be played that same turn. `until_playable`: no draw"
            " ends a turn, which may end only once the seat has played a card from its hand"
            " (or the stock is empty); while no card of the hand can be played, the seat may"
            " draw one card at a time; a last card played while a side space is empty and"
            " the stock is not draws three more and the turn goes on."
        ),
        summary_when=get_args(DrawRule),
    ),
    OptionSpec(
        "kings_first",
        "flag",
        False,
        rule=True,
        changes="a turn cannot end while the seat holds a king and a corner is empty",
        summary_when=(True,),
    ),
    OptionSpec(
        "opening_refill",
        "flag",
        False,
        rule=True,
        changes=(
            "in the first turn of each hand, until the mover plays a card from its hand, a"
            " pile move that empties a side space refills it at once with the top card of"
            " the stock (nothing when the stock is empty); a draw does not close the window"
        ),
        summary_when=(True,),
        omit_default=True,
    ),
    OptionSpec(
        "scoring",
        "choice",
        "penalty",
        rule=True,
        choices=get_args(Scoring),
        changes=(
            "`penalty`: penalties add up over hands until a total reaches the target."
            " `corners`: a corner completed from king to ace is collected by the seat that"
            " completed it (its 13 cards leave the table, the corner is empty again); the"
            " match is one hand, placed by corners collected, then by the lower penalty"
        ),
        summary_when=("corners",),
        omit_default=True,
    ),
    OptionSpec(
        "turn_timer",
        "number",
        None,
        rule=False,
        above=0,
        high=3600,
        nullable=True,
        presets=(30, 60, 120),
        changes="seconds a seat has for its turn before a bot plays it; null: no timer",
        summary_when=("*",),
    ),
    OptionSpec(
        "casual",
        "flag",
        False,
        rule=False,
        changes="a practice room: its matches change nobody's rating",
        summary_when=(True,),
    ),
    OptionSpec(
        "pace",
        "choice",
        "normal",
        rule=False,
        choices=get_args(Pace),
        changes="how fast the bots play: `fast` waits a quarter of the usual delays",
        summary_when=("fast",),
    ),
    OptionSpec(
        "public",
        "flag",
        False,
        rule=False,
        in_room_options=False,
        changes="listed for everyone to join or watch",
        summary_when=(True, False),
    ),
)

BY_NAME: Mapping[str, OptionSpec] = {spec.name: spec for spec in OPTIONS}
#: The rules of a match, in the engine's order.
RULES: tuple[OptionSpec, ...] = tuple(spec for spec in OPTIONS if spec.rule)


def option(name: str) -> OptionSpec:
    """The declaration of option ``name``."""
    return BY_NAME[name]


def rule_values(settings: object) -> dict[str, Any]:
    """The rule options of ``settings`` (anything with them as attributes), by name."""
    return {spec.name: getattr(settings, spec.name) for spec in RULES}


def room_values(settings: object) -> dict[str, Any]:
    """What the room document lists under ``room.options``, in the declaration's order."""
    return {spec.name: getattr(settings, spec.name) for spec in OPTIONS if spec.in_room_options}


def word_keys(spec: OptionSpec) -> list[str]:
    """The catalogue keys of ``spec``'s words: its form label (``option.<name>``), each
    choice (``option.<name>.<choice>``), and its summary words (``summary.<name>``, or
    ``summary.<name>.<value>`` for a choice)."""
    keys = [f"option.{spec.name}"]
    keys += [f"option.{spec.name}.{choice}" for choice in spec.choices]
    if spec.kind == "number" and spec.nullable:
        keys.append(f"option.{spec.name}.off")
    if spec.kind == "choice":
        keys += [f"summary.{spec.name}.{value}" for value in spec.summary_when]
    elif spec.kind == "flag":
        keys += [f"summary.{spec.name}"] if True in spec.summary_when else []
        keys += [f"summary.{spec.name}.off"] if False in spec.summary_when else []
    elif spec.summary_when:
        keys.append(f"summary.{spec.name}")
    return keys


def summary_words(values: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """A room's options in one line, as catalogue keys with their parameters, in the
    declaration's order: only the options ``values`` holds, at the values the declaration
    names (a number as ``value``, written without a needless ``.0``)."""
    words: list[tuple[str, dict[str, Any]]] = []
    for spec in OPTIONS:
        if spec.name not in values:
            continue
        value = values[spec.name]
        if not (value in spec.summary_when or ("*" in spec.summary_when and value)):
            continue
        if any(values.get(name) == other for name, other in spec.unused_when):
            continue
        if spec.kind == "choice":
            words.append((f"summary.{spec.name}.{value}", {}))
        elif spec.kind == "flag":
            words.append((f"summary.{spec.name}" + ("" if value else ".off"), {}))
        else:
            words.append((f"summary.{spec.name}", {"value": f"{value:g}"}))
    return words


#: Every key the options' words need, in every language's catalogue.
WORD_KEYS: tuple[str, ...] = tuple(key for spec in OPTIONS for key in word_keys(spec))
