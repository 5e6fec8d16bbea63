"""``kings-corner play``: play Kings in the Corner from a terminal.

The client connects as an ordinary player (or spectator), prints the board whenever it
matters (the start of your turn, a new hand, the lobby changing; after each of your moves
only your hand and the moves left: see :func:`screen_key`), streams the table log and chat
as they arrive, and reads one command per line: a number from the list of legal actions, an
action's text (``7H>N``, ``N>E``, ``end``), or a word such as ``hint`` or ``chat hi``
(``help`` lists them). Reading lines is a seam (:data:`ReadLine`): the command line reads
standard input, tests feed lines from a queue.

The seat token is kept in a token file so ``--join CODE`` comes back to the same seat after
a restart, and so is the player token from ``welcome``: it is sent in every ``hello``, so the
same person is the same player (leaderboards, match history) on every visit.

``--daily`` plays today's daily deal against three bots (ranked the first time each day);
``leaderboard [daily|alltime|rating]`` and ``matches`` show the boards and your finished matches,
``me`` your rating (printed on arrival too), and ``--leaderboard`` just prints a board and
exits. A rated match's end says what it did to each person's rating (see
:func:`~clients.terminal.render.rating_lines`).

Longer than 600 lines on purpose: :class:`TerminalClient` is one object following one room,
and its parts (entering, printing, the coach, the commands) share its state; the command line
(:mod:`.entry`), the words (:mod:`.render`) and the options (:mod:`.options`) live apart.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import datetime
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from clients.i18n import texts
from clients.net import GameClient, ServerError
from clients.words import describe_error, describe_profile, describe_reason, who

from . import commands
from .coach import LoadReview, TurnLines, coach_lines, load_review, seat_review
from .entry import (
    DEFAULT_FILL,
    DEFAULT_URL,
    Entry,
    Mode,
    ReadLine,
    entry_from,
    full_screen,
    parser,
    prompt_writer,
    stdin_reader,
)
from .lists import render_leaderboard, render_matches
from .render import (
    PLAIN,
    Style,
    action_label,
    card,
    chat_line,
    daily_label,
    error_line,
    help_text,
    log_line,
    rating_lines,
    render,
    render_moves,
    tr,
)
from .replay import http_base
from .tokens import Saved, TokenFile, default_path

Write = Callable[[str], None]

#: How long a single wait on the connection lasts before it is simply started again.
_WAIT = 30.0


@dataclass
class _Seen:
    frames: int = 0
    log: int = 0
    chat: int = 0
    errors: int = 0
    screen: Any = None
    moves: Any = None
    #: Turns ended so far (log lines in :data:`TURN_ENDS`), and how many had ended when
    #: the viewer's latest turn began.
    turns: int = 0
    my_turn: int = -1
    saved: tuple[str, str] | None = None
    player: tuple[str, str | None] | None = None
    notes: list[str] = field(default_factory=list)
    #: The rating lines last shown (printed again only when they change: once rated).
    rating: tuple[str, ...] = ()


#: Log lines that end a turn.
TURN_ENDS = frozenset({"drew", "ended"})


def screen_key(doc: dict[str, Any] | None, me: int | None, turn: int = -1) -> Any:
    """What must change for the whole board to be printed again.

    In the lobby: any change of the room. In a match: the phase and the hand, and for a
    player the start of each of their turns (``turn`` names their latest one: how many
    turns had ended when it began, so two turns of theirs with nothing printed between are
    two boards) and a bot taking their seat over or giving it back. Not the end of their
    turn, nor the moves of others: the log lines say those. A spectator gets the board
    once a hand and at its end. ``look`` prints the board whenever asked.
    """
    if doc is None:
        return None
    game = doc.get("game")
    room = doc["room"]
    if game is None:
        return ("lobby", repr(room["seats"]), room.get("host"))
    base = (game["phase"], game["hand_no"])
    if me is None:
        return base
    seats = room["seats"]
    mine = seats[me] if 0 <= me < len(seats) else None
    return (*base, turn, bool(mine and mine.get("away")))


def moves_key(doc: dict[str, Any] | None, me: int | None) -> Any:
    """During the viewer's own turn, their hand and legal actions: a move that changes them
    prints them again (:func:`~clients.terminal.render.render_moves`), not the board."""
    game = doc.get("game") if doc is not None else None
    if me is None or game is None or not game.get("legal"):
        return None
    return (repr(game.get("hand")), repr(game["legal"]))


def why(exc: BaseException, lang: str = "en") -> str:
    """What went wrong, for people: a refusal worded from its code (the server's own words
    are English), no answer in time, else what the connection says (an OS error's words)."""
    if isinstance(exc, ServerError):
        return describe_error(exc.frame, lang)
    if isinstance(exc, TimeoutError):
        return tr(lang, "term.line.timeout")
    return str(exc) or type(exc).__name__


def _more_than(frames: int) -> Callable[[GameClient], bool]:
    return lambda c: len(c.frames) > frames


class TerminalClient:
    """The terminal front end over one :class:`GameClient`."""

    def __init__(
        self,
        client: GameClient,
        *,
        write: Write,
        style: Style = PLAIN,
        tokens: TokenFile | None = None,
        fill: str = DEFAULT_FILL,
        review: LoadReview = load_review,
    ) -> None:
        self.client = client
        self.write = write
        self.style = style
        self.tokens = tokens
        self.fill = fill
        #: Fetches the coach's review of a finished match (a seam for the tests).
        self.review = review
        self._seen = _Seen()
        #: The coach's review of the match just finished: being fetched, and its lines.
        self._coach_task: asyncio.Task[None] | None = None
        self._coach_lines: list[str] | None = None

    def say(self, key: str, **params: Any) -> None:
        """Write the catalogues' text ``key`` in the player's language."""
        self.write(tr(self.style.lang, key, **params))

    # --- getting into a room ------------------------------------------------------------

    async def enter(self, entry: Entry) -> None:
        """Create, join, watch or quick-play as ``entry`` says; raises :class:`ServerError`."""
        client = self.client
        if entry.mode == "create":
            bots: list[str | None] = [None, *entry.bots][: entry.seats]
            while bots and bots[-1] is None:
                bots.pop()
            stacked: dict[str, Any] = {}
            if entry.decks:
                stacked["decks"] = [list(deck) for deck in entry.decks]
            if entry.dealer is not None:
                stacked["dealer"] = entry.dealer
            await client.create(seats=entry.seats, **entry.options, bots=bots, **stacked)
        elif entry.mode == "join":
            assert entry.room is not None
            await self._join(entry.room.upper(), entry.seat)
        elif entry.mode == "watch":
            assert entry.room is not None
            await client.join(entry.room.upper(), spectate=True)
        elif entry.mode == "daily":
            await client.request({"type": "daily"}, "joined")
        else:
            await client.request({"type": "quick_play", "seats": entry.seats}, "queued")
            self.say("term.line.waiting_quick", n=entry.seats)
            await self._until(lambda c: c.doc is not None)
        await self._until(lambda c: c.room is not None and c.doc is not None)
        self._save_token()
        if client.seat is None:
            self.say("note.watching", code=client.room)
        else:
            self.say("tui.joined_note", n=client.seat + 1, code=client.room)
        doc = client.doc
        if doc is not None and (label := daily_label(doc, self.style.lang)) is not None:
            day = doc["room"]["daily"].get("day")
            self.say("term.line.daily_intro", label=label, day=day)

    async def _join(self, room: str, seat: int | None) -> None:
        saved = self.tokens.get(self.client.url, room) if self.tokens is not None else None
        if saved is not None:
            try:
                await self.client.join(room, token=saved.token)
                return
            except ServerError as exc:
                if exc.code != "bad_token":
                    raise
                assert self.tokens is not None
                self.tokens.forget(self.client.url, room)
                self.say("term.line.stale_token")
        await self.client.join(room, seat)

    def save_player(self) -> None:
        """Keep the player token the server confirmed in ``welcome`` in the token file."""
        client = self.client
        if self.tokens is None or client.player is None:
            return
        key = (client.player, client.player_id)
        if self._seen.player == key:
            return
        self._seen.player = key
        self.tokens.put_player(client.url, client.player, client.player_id)

    def save_tokens(self) -> None:
        """Keep the player token and the current seat's token in the token file."""
        self._save_token()

    @property
    def saved_room(self) -> str | None:
        """The room whose seat token was saved last (None before any)."""
        return self._seen.saved[0] if self._seen.saved else None

    def _save_token(self) -> None:
        client = self.client
        self.save_player()
        if self.tokens is None or client.room is None or client.token is None:
            return
        key = (client.room, client.token)
        if self._seen.saved == key:
            return
        self._seen.saved = key
        saved = Saved(token=client.token, seat=client.seat, name=client.name)
        self.tokens.put(client.url, client.room, saved)

    async def _until(self, check: Callable[[GameClient], bool]) -> None:
        while True:
            try:
                await self.client.until(check, timeout=_WAIT)
                return
            except TimeoutError:
                continue

    # --- showing ------------------------------------------------------------------------

    def screen(self, with_log: bool = True) -> str:
        """The board as the viewer sees it now."""
        doc = self.client.doc
        if doc is None:
            return tr(self.style.lang, "term.line.not_in_room")
        log = self.client.log if with_log else ()
        return render(doc, self.client.seat, log=log, style=self.style)

    def show_updates(self) -> None:
        """Print what arrived since last time: log lines, chat, errors, and the board when
        it matters (see :func:`screen_key`); during the viewer's own turn only the hand and
        the moves after each of theirs (:func:`moves_key`)."""
        client, seen = self.client, self._seen
        seen.frames = len(client.frames)
        for line in client.log[seen.log :]:
            self.write(log_line(line, client.doc, self.style))
            seen.turns += line.get("ev") in TURN_ENDS
        seen.log = len(client.log)
        for frame in client.chat[seen.chat :]:
            self.write(chat_line(frame))
        seen.chat = len(client.chat)
        for frame in client.errors[seen.errors :]:
            self.write(error_line(frame, client.doc, self.style))
        seen.errors = len(client.errors)
        self._save_token()
        moves = moves_key(client.doc, client.seat)
        if moves is not None:
            seen.my_turn = seen.turns
        key = screen_key(client.doc, client.seat, seen.my_turn)
        rating = self._rating_lines()
        if key is not None and key != seen.screen:
            seen.screen, seen.moves = key, moves
            seen.rating = rating  # the board shows them
            self.write(self.screen(with_log=False))
        elif moves is not None and moves != seen.moves and client.doc is not None:
            seen.moves = moves
            self.write(render_moves(client.doc, self.style))
        elif rating != seen.rating:
            # The server rates a match a moment after its end: its lines come on their own.
            seen.rating = rating
            if rating:
                self.write("\n".join(rating))
        self._coach_check()

    # --- the coach ----------------------------------------------------------------------

    def _coach_check(self) -> None:
        """Once a match is over, a seated player gets the coach's review of their turns
        (fetched in the background, printed when it comes, after the result and the
        ratings: ``coach`` says it is coming meanwhile); a new match forgets it. Not
        for today's daily deal: it is reviewed (as replayed) once the day is over."""
        client = self.client
        doc = client.doc
        game = doc.get("game") if doc is not None else None
        if doc is None or game is None or game["phase"] != "finished":
            if self._coach_task is not None:
                self._coach_task.cancel()
            self._coach_task, self._coach_lines = None, None
            return
        if (
            self._coach_task is not None
            or client.seat is None
            or game.get("winners") is None
            or doc["room"].get("daily")
        ):
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # shown without a running loop (tests of the words): no fetching
        self._coach_task = loop.create_task(self._coach(doc))

    async def _coach(self, doc: dict[str, Any]) -> None:
        words = texts(self.style.lang)
        try:
            match_id, review = await self.review(self.client, doc)
        except Exception:  # whatever went wrong, the coach says it could not
            self._coach_lines = [words["coach.failed"]]
        else:
            self._coach_lines = self.coach_text(match_id, review)
        self.write("\n".join(self._coach_lines))

    def coach_text(self, match_id: str, review: dict[str, Any]) -> list[str]:
        """The coach's lines for this seat, each costly turn with how to replay it."""
        style = self.style
        words = texts(style.lang)
        url = http_base(self.client.url)

        def replay(turn: TurnLines) -> str:
            command = f"kings-corner replay {match_id} --step {turn.step} --url {url}"
            return f"{words['coach.replay']}: {command}"

        entry = seat_review(review, self.client.seat)
        return coach_lines(entry, style.lang, lambda code: card(code, style), replay)

    def coach(self) -> str:
        """The ``coach`` command: the review of the match just finished, again."""
        if self._coach_lines is not None:
            return "\n".join(self._coach_lines)
        if self._coach_task is not None:
            return texts(self.style.lang)["coach.pending"]
        return tr(self.style.lang, "term.line.coach_later")

    def _rating_lines(self) -> tuple[str, ...]:
        doc = self.client.doc
        if doc is None:
            return ()
        return tuple(rating_lines(doc, self.client.seat, self.style.lang))

    async def follow(self) -> int:
        """Print updates as frames arrive until the connection is gone (1) or the host
        removes this player from the room (0)."""
        try:
            return await self._follow()
        finally:
            if self._coach_task is not None:
                self._coach_task.cancel()

    async def _follow(self) -> int:
        client = self.client
        while True:
            self.show_updates()
            try:
                await client.until(_more_than(self._seen.frames), timeout=_WAIT)
            except TimeoutError:
                continue
            except ConnectionError:
                self.show_updates()
                self.say("term.line.closed")
                return 1
            kinds = {f["type"] for f in client.frames[self._seen.frames :]}
            if "closing" in kinds:
                self.say("term.line.restarting")
            if "rewound" in kinds:
                self.say("note.rewound")
            if "kicked" in kinds:
                self.show_updates()
                self.say("tui.kicked")
                room = self._seen.saved[0] if self._seen.saved else client.room
                if self.tokens is not None and room is not None:
                    self.tokens.forget(client.url, room)
                return 0

    # --- commands -----------------------------------------------------------------------

    async def handle(self, line: str) -> bool:
        """Carry out one typed line; False when the client should stop."""
        client = self.client
        game = client.game
        legal: list[str] = list(game.get("legal") or []) if game is not None else []
        command = commands.parse(line, legal, self.style.lang)
        match command:
            case commands.Invalid(message):
                self.write(message)
            case commands.Act(action):
                await client.act(action)
                self.show_updates()
            case commands.Say(text):
                await client.send({"type": "chat", "text": text[:500]})
            case commands.Start(level):
                await client.send({"type": "start", "fill": level or self.fill})
            case commands.Sit(seat):
                await client.send({"type": "sit", "seat": seat})
            case commands.Ready(ready):
                await client.send({"type": "ready", "ready": ready})
            case commands.Rematch(force):
                await client.send({"type": "rematch", "force": force})
            case commands.Simple("back"):
                await client.send({"type": "back"})
            case commands.Simple("hint"):
                await self._hint(legal)
            case commands.Simple("next"):
                await client.send({"type": "next_hand"})
            case commands.Simple("look"):
                self.write(self.screen())
            case commands.Board(board):
                self.write(await self.leaderboard(board))
            case commands.Simple("matches"):
                self.write(await self.matches())
            case commands.Simple("me"):
                self.write(await self.profile())
            case commands.Simple("coach"):
                self.write(self.coach())
            case commands.Simple("help"):
                self.write(help_text(self.style.lang))
            case commands.Simple("leave"):
                if client.room is not None:
                    room = client.room
                    with contextlib.suppress(ServerError, TimeoutError):
                        await client.request({"type": "leave"}, "left")
                    if self.tokens is not None:
                        self.tokens.forget(client.url, room)
                    self.say("tui.left_room", code=room)
                return False
            case commands.Simple("quit"):
                doc = client.doc
                daily_over = (
                    doc is not None
                    and daily_label(doc) is not None
                    and game is not None
                    and game["phase"] == "finished"
                )
                if client.room is not None and client.seat is not None and not daily_over:
                    self.say("term.line.bye", code=client.room)
                return False
        return True

    async def leaderboard(self, board: commands.BoardName = "daily") -> str:
        """Today's daily-deal board (or the all-time one), your row marked; raises
        :class:`ServerError` when the server refuses."""
        reply = await self.client.request({"type": "leaderboard", "board": board}, "leaderboard")
        return render_leaderboard(reply, self.client.player_id, self.style.lang)

    async def matches(self) -> str:
        """Your finished matches with their ids, what each did to your rating, and how to
        replay one."""
        reply = await self.client.request({"type": "my_matches"}, "matches")
        today = datetime.datetime.now(datetime.UTC).date().isoformat()
        url = http_base(self.client.url)
        return render_matches(reply["matches"], url, today, self.style.lang)

    async def profile(self) -> str:
        """You as the server knows you: ``You: Ana#4F7K · rating 1,034? · provisional — …``."""
        reply = await self.client.request({"type": "profile"}, "profile")
        lang = self.style.lang
        return tr(lang, "term.line.you", profile=describe_profile(reply, lang))

    async def _hint(self, legal: list[str]) -> None:
        try:
            reply = await self.client.request({"type": "hint"}, "hint")
        except ServerError:
            return  # the error frame is printed with the other updates
        text = str(reply["text"])
        style = self.style
        why = describe_reason(reply.get("reason"), style.lang, lambda code: card(code, style))
        label = action_label(text, style) if text else text
        if text in legal:
            hint = tr(style.lang, "term.line.hint_numbered", action=label, n=legal.index(text) + 1)
        else:
            hint = tr(style.lang, "term.line.hint", action=label)
        self.write(hint + (f" {why}" if why else ""))

    async def run(self, read_line: ReadLine) -> int:
        """Follow the room and carry out typed lines until ``quit``, ``leave``, the end of
        input, or the end of the connection; returns the exit status."""
        follower = asyncio.create_task(self.follow())
        reader: asyncio.Task[str | None] | None = None
        status = 0
        try:
            while True:
                reader = asyncio.ensure_future(read_line())
                await asyncio.wait({reader, follower}, return_when=asyncio.FIRST_COMPLETED)
                if not reader.done():
                    status = follower.result()
                    break
                line = reader.result()
                if line is None:
                    break
                try:
                    if not await self.handle(line):
                        break
                except ServerError as exc:
                    self.write(error_line(exc.frame, self.client.doc, self.style))
                except TimeoutError as exc:
                    reason = why(exc, self.style.lang)
                    self.write(f"! {reason[:1].upper()}{reason[1:]}")
                except ConnectionError:
                    self.say("term.line.closed")
                    status = 1
                    break
        finally:
            for task in (reader, follower):
                if task is not None and not task.done():
                    task.cancel()
                    with contextlib.suppress(asyncio.CancelledError):
                        await task
            await self.client.close()
        return status


async def identity(app: TerminalClient, args: argparse.Namespace, out: Write) -> int:
    """``--recover CODE`` or ``--recovery-code``: take an identity here, or show how to take
    this one elsewhere; then stop."""
    client = app.client
    lang = app.style.lang
    try:
        if args.recover:
            welcome = await client.recover(args.recover)
            app.save_player()
            you = who(welcome["name"], welcome.get("tag"))
            out(tr(lang, "term.line.recovered", who=you))
        else:
            code = await client.recovery_code()
            app.save_player()  # the new token: the one it had is revoked with the old code
            out(tr(lang, "term.line.recovery_code", code=code))
            out(tr(lang, "term.line.recovery_once"))
    except (ServerError, TimeoutError, ConnectionError) as exc:
        out(tr(lang, "term.line.failed", error=why(exc, lang)))
        return 1
    finally:
        await client.close()
    return 0


def _terminal_writer(args: argparse.Namespace) -> Write:
    """Standard output: above the prompt when both ends are a terminal and commands are
    read (:func:`~.entry.prompt_writer`), else a line at a time."""
    once = args.leaderboard is not None or args.recover or args.recovery_code
    if once or not (sys.stdin.isatty() and sys.stdout.isatty()):
        return lambda text: print(text, flush=True)
    typed: Callable[[], str] = lambda: ""  # noqa: E731
    with contextlib.suppress(ImportError):
        import readline

        typed = readline.get_line_buffer
    return prompt_writer(sys.stdout, typed)


async def amain(
    argv: Sequence[str],
    *,
    read_line: ReadLine | None = None,
    write: Write | None = None,
    tty: bool | None = None,
) -> int:
    """Parse ``argv``, connect, enter the room and play; the seams default to the terminal."""
    args = parser().parse_args(list(argv))
    out: Write = write if write is not None else _terminal_writer(args)
    colour = sys.stdout.isatty() if tty is None else tty
    style = Style(color=colour and not args.no_color, symbols=not args.ascii, lang=args.lang)
    tokens = TokenFile(args.token_file or default_path())
    client = GameClient(args.url, args.name, reconnect=True, move_to_room=True)
    client.player = tokens.player(args.url)
    app = TerminalClient(client, write=out, style=style, tokens=tokens, fill=args.fill)
    entry = entry_from(args)
    try:
        try:
            await asyncio.wait_for(client.connect(room=entry.known_room), timeout=15)
        except ServerError as exc:
            if exc.code != "identity_revoked":
                raise
            # A newer recovery code signed this device out: the token is of no use now.
            await client.close()
            tokens.forget_player(args.url)
            if not args.recover:
                out(tr(args.lang, "term.line.signed_out"))
                return 1
            # --recover CODE: as nobody first, then as the player the code belongs to.
            client = GameClient(args.url, args.name, reconnect=True, move_to_room=True)
            app.client = client
            await asyncio.wait_for(client.connect(room=entry.known_room), timeout=15)
    except (OSError, TimeoutError, ServerError) as exc:
        out(tr(args.lang, "tui.cannot_connect", url=args.url, error=why(exc, args.lang)))
        return 1
    app.save_player()
    if args.recover or args.recovery_code:
        return await identity(app, args, out)
    if args.leaderboard is not None:
        try:
            out(await app.leaderboard(args.leaderboard))
        except (ServerError, TimeoutError, ConnectionError) as exc:
            out(tr(args.lang, "term.line.no_leaderboard", error=why(exc, args.lang)))
            return 1
        finally:
            await client.close()
        return 0
    with contextlib.suppress(ServerError, TimeoutError, ConnectionError):
        out(await app.profile())
    try:
        await app.enter(entry)
    except (ServerError, TimeoutError, ConnectionError) as exc:
        out(tr(args.lang, "term.line.no_entry", error=why(exc, args.lang)))
        await client.close()
        return 1
    out(tr(args.lang, "term.line.type_help"))
    return await app.run(read_line if read_line is not None else stdin_reader())


__all__ = [
    "DEFAULT_URL",
    "TURN_ENDS",
    "Entry",
    "Mode",
    "ReadLine",
    "TerminalClient",
    "amain",
    "entry_from",
    "full_screen",
    "moves_key",
    "parser",
    "screen_key",
]
