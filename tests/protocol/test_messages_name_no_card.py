"""No English ``message`` of an error names a card: card codes travel only in ``params``
(a client or a leak scanner that reads frames must find cards only where the docs put them).

Every error class's default message is checked; every refusal the rules engine words, for
every action in a spread of positions; and every message written where an error is raised in
the server and the protocol, by its source.
"""

from __future__ import annotations

import ast
import random
import re
from pathlib import Path

from protocol.engine import DECK, PILES, Options, legal_actions, new_match
from protocol.engine.actions import EndTurn, Move, Play
from protocol.engine.rules import explain
from protocol.schema import error_classes

ROOT = Path(__file__).resolve().parents[2]
#: A card code as docs/protocol.md defines it, standing alone in a sentence.
CARD = re.compile(r"(?<![A-Za-z0-9])(?:A|[2-9]|10|J|Q|K)[CDHS](?![A-Za-z0-9])")


def test_the_pattern_finds_card_codes_in_sentences() -> None:
    assert CARD.search("6S does not fit on 8C.")
    assert CARD.search("'7H' is not a card code such as 7H, 10D or KS.")
    assert not CARD.search("Piles are N, E, S, W, NE, SE, SW and NW.")
    assert not CARD.search("a rank (A, 2 to 10, J, Q or K), then a suit (C, D, H or S).")


def test_no_default_message_names_a_card() -> None:
    for cls in error_classes():
        assert not CARD.search(cls.default_message), (cls.code, cls.default_message)


def _positions() -> list[tuple[Options, object]]:
    """Positions of every kind: fresh deals, kings-first deals, games well under way, and
    a hand that is over."""
    rng = random.Random(31)
    found: list[tuple[Options, object]] = []
    for i in range(12):
        options = Options(seats=2 + i % 3, kings_first=i % 2 == 1)
        match = new_match(options, seed=f"cards-{i}")
        found.append((options, match.position))
        for _ in range(rng.randrange(5, 80)):
            legal = legal_actions(match.position)
            if not legal or match.phase != "playing":
                break
            match = match.apply(rng.choice(legal))
            found.append((options, match.position))
    return found


def test_no_refusal_of_the_rules_names_a_card() -> None:
    cards = [*DECK, "ZZ", "1H", "7h", "10", "KS ", ""]
    piles = [*PILES, "KS", "7H", "X", ""]
    seen: set[str] = set()
    for _, position in _positions():
        actions: list[object] = [EndTurn(), None, "7H>N", {"type": "play", "card": "7H"}]
        actions += [Play(card, pile) for card in cards for pile in piles]
        actions += [Move(a, b) for a in piles for b in piles]
        legal = set(legal_actions(position))  # type: ignore[arg-type]
        for action in actions:
            if isinstance(action, Play | Move | EndTurn) and action in legal:
                continue
            error = explain(position, action)  # type: ignore[arg-type]
            seen.add(error.code)
            assert not CARD.search(error.message), (error.code, error.message)
    # The spread reaches every refusal the rules word.
    assert seen >= {
        "bad_action",
        "no_such_pile",
        "not_in_hand",
        "does_not_fit",
        "corner_needs_king",
        "cannot_move_pile",
        "must_play_king",
        "hand_over",
    }, seen


def _raised_messages(path: Path) -> list[tuple[int, ast.expr]]:
    """The message argument of every call of an error class in ``path``."""
    names = {cls.__name__ for cls in error_classes()}
    found = []
    for node in ast.walk(ast.parse(path.read_text())):
        call = isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
        if call and node.func.id in names and node.args:  # type: ignore[attr-defined]
            found.append((node.lineno, node.args[0]))  # type: ignore[attr-defined]
    return found


def test_no_message_written_at_a_raise_names_a_card() -> None:
    files = sorted((ROOT / "server").rglob("*.py")) + sorted((ROOT / "protocol").rglob("*.py"))
    checked = 0
    for path in files:
        for line, message in _raised_messages(path):
            where = f"{path.relative_to(ROOT)}:{line}"
            checked += 1
            if isinstance(message, ast.Constant) and isinstance(message.value, str):
                assert not CARD.search(message.value), where
            elif isinstance(message, ast.JoinedStr):
                for part in message.values:
                    if isinstance(part, ast.Constant):
                        assert not CARD.search(str(part.value)), where
                    else:
                        # What is put into the sentence must not be a card of the game.
                        text = ast.unparse(part)
                        assert not re.search(r"card|onto|base|top|hand|text|piles\[", text), (
                            where,
                            text,
                        )
    assert checked > 30  # the scan found the raise sites
