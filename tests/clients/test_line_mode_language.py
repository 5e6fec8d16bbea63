"""The terminal's line mode speaks the player's language: every text it prints is a
catalogue's (``term.line.<key>``, or a key it shares with the web client or the full screen),
so ``--lang es`` shows no English left-over. The words typed stay English in every language
(``help``, ``start``, ``7H>N``): the texts name them as they are typed.

A real session against a real server, in Spanish: a room against a bot, lines that are no
command, a whole match of one hand (target 1) played by numbers, the boards, and quitting;
then what it printed is searched for the English texts."""

from __future__ import annotations

import asyncio
import re
import string
from collections.abc import Callable
from pathlib import Path

import pytest

from clients.i18n import CATALOGUES, LANGUAGES, texts
from clients.terminal.app import amain
from tests.clients.test_terminal import Screen as TerminalScreen

ROOT = Path(__file__).resolve().parents[2]
#: The line mode's modules: the client (app) and what it prints with.
SOURCES = [
    ROOT / "clients" / "terminal" / name
    for name in ("app.py", "render.py", "lists.py", "commands.py")
]
PREFIX = "term.line."
LINE_KEYS = sorted(key for key in CATALOGUES["en"] if key.startswith(PREFIX))

#: Keys of the web client or the full screen the line mode prints as they are (English's
#: words for them must not be printed either). Not the single words (a column's head,
#: ``host``): some are typed words too (``matches``), which stay English.
SHARED = (
    "tui.joined_note",
    "tui.your_hand",
    "tui.turn_of",
    "tui.hand_no",
    "tui.match_over",
    "tui.result_out",
    "tui.result_blocked",
    "tui.no_cards",
    "tui.votes",
    "tui.left_room",
    "tui.matches_none",
    "tui.board_alltime",
    "tui.daily_ranked",
    "tui.daily_practice",
    "tui.kicked",
    "tui.cannot_connect",
    "note.watching",
    "note.rewound",
    "matches.room",
    "stock.label",
    "wait.seats",
    "wait.waiting_for",
    "wait.not_ready",
    "boards.empty_daily",
    "result.and",
    "lobby.seat_n",
)

#: The ``term.line.`` texts this session surely prints.
PRINTED = (
    "you",
    "type_help",
    "phase.lobby",
    "host_wait_other",
    "help",
    "unknown",
    "which_seat",
    "bad_level",
    "which_board",
    "chat_empty",
    "no_choice",
    "coach_later",
    "table",
    "scores",
    "actions",
    "choose_range",
    "result_row",
    "rematch",
    "log",
    "bye",
)


#: The texts some language writes as English does: "bot {level}" (the level is worded),
#: "total {n}" in Spanish.
SAME_WORDS = ("term.line.seat_bot", "term.line.seat_total")


def placeholders(text: str) -> set[str]:
    """The ``{name}`` values a text fills in."""
    return {field for _, field, _, _ in string.Formatter().parse(text) if field is not None}


def pieces(text: str) -> list[str]:
    """The words of a text between its values, those long enough to tell a language by."""
    parts = [literal for literal, _, _, _ in string.Formatter().parse(text)]
    return [p.strip() for p in parts if len(p.strip()) >= 4 and re.search(r"[^\W\d_]", p)]


# --- the catalogues -------------------------------------------------------------------


@pytest.mark.parametrize("key", LINE_KEYS)
def test_every_line_text_is_in_every_language_with_the_same_values(key: str) -> None:
    english = CATALOGUES["en"][key]
    assert set(LANGUAGES) >= {"en", "es", "cs"}
    for lang in LANGUAGES:
        words = texts(lang)
        assert key in words, (lang, key)
        assert words[key].strip(), (lang, key)
        assert placeholders(words[key]) == placeholders(english), (lang, key, words[key])
        if lang != "en" and key not in SAME_WORDS:
            assert words[key] != english, (lang, key)


def test_the_line_mode_names_only_keys_that_exist_and_every_key_is_used() -> None:
    source = "\n".join(path.read_text(encoding="utf-8") for path in SOURCES)
    named = set(re.findall(r"""["'](term\.line\.[\w.]+)["']""", source))
    # Keys chosen at run time: f"term.line.cards_{form}", f"term.line.phase.{phase}"...
    families = re.findall(r"""f["'](term\.line\.[\w.]*)\{""", source)
    assert families, "the plural forms and the phases are looked up by name"
    assert sorted(named - set(LINE_KEYS)) == []
    unused = [k for k in LINE_KEYS if k not in named and not k.startswith(tuple(families))]
    assert unused == []


# --- a session in Spanish -------------------------------------------------------------


class Screen(TerminalScreen):
    """The terminal tests' screen, waiting for a text or for a check of the whole text."""

    async def until(self, check: str | Callable[[str], bool], timeout: float = 15.0) -> None:
        """Until ``check`` (a text, or a function of the text) holds."""
        holds = check if callable(check) else (lambda text: check in text)
        async with asyncio.timeout(timeout):
            while not holds(self.text):
                self._grew.clear()
                await self._grew.wait()


def es(key: str, **params: object) -> str:
    return texts("es")[key].format_map(params)


# The bot's moves come from threads of the server (no worker processes to start).
@pytest.mark.settings(bot_workers=0)
async def test_a_spanish_session_prints_no_english(url: str, tmp_path: Path) -> None:
    screen = Screen()
    lines: asyncio.Queue[str | None] = asyncio.Queue()
    argv = ["--url", url, "--name", "Ana", "--token-file", str(tmp_path / "tokens.json")]
    argv += ["--lang", "es", "--create", "--seats", "2", "--bots", "random", "--target", "1"]
    run = asyncio.create_task(amain(argv, read_line=lines.get, write=screen.write, tty=False))

    # In the waiting room: the board, and lines that are no command.
    await screen.until(es("term.line.type_help"))
    await screen.until(es("term.line.host_wait_other", n=0))  # the bot sits: no seat free
    for typed, answer in [
        ("help", "Comandos:"),
        ("qué tal", es("term.line.unknown", text="qué tal")),
        ("sit x", es("term.line.which_seat")),
        ("start experto", "Nivel de bot desconocido: 'experto'"),
        ("lb semanal", es("term.line.which_board")),
        ("chat", es("term.line.chat_empty")),
        ("5", es("term.line.no_choice")),
        ("coach", es("term.line.coach_later")),
        ("chat hola", "[Ana] hola"),
    ]:
        await lines.put(typed)
        await screen.until(answer)

    # The match: one hand up to a target of 1, played by numbers (the first action each
    # time: a turn always ends, a hand too); a hint and a number out of range first.
    await lines.put("start")
    actions = "Acciones ("
    answered = 0
    over = "Fin de la partida"  # the result, and the log's last line

    def mine_or_over(seen: int) -> Callable[[str], bool]:
        """A new list of actions (the player's turn goes on), or the match over."""
        return lambda text: text.count(actions) > seen or over in text

    async with asyncio.timeout(120):
        while over not in screen.text:
            await screen.until(mine_or_over(answered))
            if over in screen.text:
                break
            if answered == 0:
                await lines.put("hint")
                await screen.until("Pista: ")
                await lines.put("99")
                await screen.until("Elige una acción del 1 al ")
            answered = screen.text.count(actions)
            await lines.put("1")
    await screen.until(es("term.line.rematch"))

    # After the match: the board with its log, the matches, a board, and quitting.
    await lines.put("look")
    await screen.until(es("term.line.log"))
    await lines.put("matches")
    await screen.until(lambda text: "Para ver la repetición" in text or "Aún no tienes" in text)
    await lines.put("leaderboard alltime")
    await screen.until(es("tui.board_alltime"))
    await lines.put("quit")
    assert await asyncio.wait_for(run, 10) == 0
    said = screen.text

    # Spanish throughout: the texts the session surely printed are there...
    for key in PRINTED:
        for piece in pieces(texts("es")[PREFIX + key]):
            assert piece in said, (key, piece)
    assert "Tu turno." in said or "Turno de " in said
    # ... and not one English text of the line mode, nor of the keys it shares (the help
    # aside: it lists the words typed, English in every language, "leaderboard [daily|…]").
    said = said.replace(texts("es")[PREFIX + "help"], "")
    for key in [*LINE_KEYS, *SHARED]:
        spanish = texts("es")[key]
        for piece in pieces(CATALOGUES["en"][key]):
            if piece not in spanish:
                assert piece not in said, (key, piece)
    # Nor the everyday English words (the codes and tags of rooms and people aside).
    plain = re.sub(r"#[A-Z0-9]{4}\b|\b[A-Z0-9]{6}\b", "", said)
    english = re.findall(r"\b(the|your|you|with|waiting|type|turn|seat|hand|cards?)\b", plain, re.I)
    assert english == [], english
