"""The room screen: the table, the hand, the seats, the log and the chat, redrawn in place
whenever the document changes, and every key a player, host or spectator may press.

The screen reads the :class:`~clients.net.GameClient` the app keeps in step and sends
requests through it; the server judges every action (refusals come back worded in the
log and the status line).

Longer than our ~600-line guide on purpose: :class:`GameScreen` is one Textual screen whose
key bindings, redraw and answers to the server all work on the widgets it composes and the
one selection a player builds (card, then pile); the pieces that stand alone are already
apart (the waiting room's keys in ``waiting.py``, the panels, the board, the coach's view).
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.events import Key
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Input, RichLog, Static
from websockets.exceptions import ConnectionClosed

from clients.net import Frame, GameClient
from clients.terminal.coach import LoadReview, TurnLines, costliest, load_review, seat_review
from clients.terminal.variants import refill_note
from clients.words import describe_error, describe_reason
from protocol.engine import action_from_text
from protocol.errors import BadAction

from . import keys
from .board import HandView, PileView, SeatsView, TableView
from .look import Look, plain_borders, sorted_hand
from .panels import coach_text, describe, options_line, result_text, seat_name, waiting_text
from .text import t
from .waiting import WaitingKeys


class Opener(Protocol):
    """What the room screen needs of the app to open a replay (at a step)."""

    def open_replay(self, match_id: str, step: int | None = None) -> None: ...


@dataclass
class Coach:
    """The coach's review of the match that just ended, for the viewer's seat: ``state``
    is ``pending`` (being fetched), ``failed`` or ``ready`` (``turns`` worded)."""

    state: str = "pending"
    match_id: str | None = None
    turns: list[TurnLines] | None = None


@dataclass
class LogLine:
    """A line of the log pane; ``drawn``: the cards seat ``seat`` drew in it (a draw)."""

    text: Text
    seat: int | None = None
    drawn: int = 0


class GameScreen(WaitingKeys, Screen[None]):
    """One room, as its viewer (a seat or a spectator) sees it."""

    #: Nothing has the focus at first: every key is the table's (c focuses the chat).
    AUTO_FOCUS = ""

    CSS = """
    GameScreen { layout: vertical; }
    #top { height: 1; background: $primary-background; color: $text; padding: 0 1; }
    #small { dock: top; height: auto; background: $error; color: $text; padding: 0 1;
             display: none; }
    #body { height: 1fr; }
    #left { width: 1fr; min-width: 46; }
    #right { width: 34; }
    TableView { grid-size: 3 3; grid-gutter: 0 1; height: 1fr; min-height: 12; }
    .pile { border: round $secondary; height: 1fr; content-align: center middle; }
    .pile.target { border: heavy $success; color: $text; }
    .pile.chosen { border: double $warning; }
    .stock { content-align: center middle; height: 1fr; color: $text-muted; }
    #middle { height: 1fr; min-height: 12; padding: 0 1; border: round $secondary;
              scrollbar-size: 1 1; }
    #middletext { height: auto; }
    #hand { height: 4; border: round $accent; padding: 0 1; }
    #status { height: 2; padding: 0 1; }
    #seats { height: auto; max-height: 10; border: round $secondary; padding: 0 0; }
    #log, #chat { border: round $secondary; scrollbar-size: 1 1;
                  overflow-x: hidden; overflow-y: auto; }
    #log { height: 1fr; }
    #chat { height: 5; }
    #say { height: 1; border: none; padding: 0 1; background: $boost; }
    #keys { height: 1; background: $primary-background; color: $text-muted; padding: 0 1; }
    """

    @dataclass
    class Leave(Message):
        """The viewer left the room (``left``) or was removed (``kicked``)."""

        note: str

    def __init__(
        self,
        client: GameClient,
        look: Look,
        *,
        log_from: int = 0,
        chat_from: int = 0,
        review: LoadReview = load_review,
    ) -> None:
        """``log_from`` and ``chat_from``: where this room's lines start in the client's
        log and chat (what came before belongs to the rooms left earlier); ``review``
        fetches the coach's review of a finished match (a seam for the tests)."""
        super().__init__()
        self.client = client
        self.look = look
        self.review = review
        #: The coach's review of the match just finished (None while no match is over).
        self.coach: Coach | None = None
        self.picker = keys.NOTHING
        self.cursor: str | None = None
        #: The status line's note and the moment of the match it was said at (see
        #: :meth:`_moment`): a new turn, hand or phase clears it, and so does the next key.
        self._note = ""
        self._note_moment: object = None
        self._note_serial = 0
        self.seat_op = None
        self.leaving = False
        self._seq = itertools.count(1_000_000)
        self._log_seen = log_from
        self._chat_seen = chat_from
        #: The piles a hint's move goes to, marked until the next key (a hint never chooses).
        self.hint_targets: set[str] = set()
        self._told: list[str] = []
        #: The log pane's lines and chat pane's lines (written again after a resize), and
        #: how many log lines the pane has.
        self._log_lines: list[LogLine] = []
        self._chat_lines: list[Text] = []
        self._log_written = 0

    #: How long a note of the app's (joined, connected again, …) stays in the status line.
    NOTE_SECONDS = 6.0

    @property
    def note(self) -> str:
        """What the status line says above whose turn it is (a refusal, a hint, a note)."""
        return self._note

    @note.setter
    def note(self, text: str) -> None:
        self._note = text
        self._note_moment = self._moment()
        self._note_serial += 1

    def _moment(self) -> object:
        """Where the match is: its phase, hand and turn (None outside a match)."""
        game = self.client.game
        if game is None:
            return None
        return (game["phase"], game["hand_no"], game.get("turn"))

    def _expire_note(self, serial: int) -> None:
        if serial == self._note_serial and self._note:
            self._note = ""
            self.refresh_view()

    # --- layout ---------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield Static(id="small")
        yield Static(id="top")
        with Horizontal(id="body"):
            with Vertical(id="left"):
                yield TableView(id="table")
                with VerticalScroll(id="middle"):
                    yield Static(id="middletext")
                yield HandView(id="hand")
                yield Static(id="status")
            with Vertical(id="right"):
                yield SeatsView(id="seats")
                yield RichLog(id="log", wrap=True, markup=False, min_width=10)
                yield RichLog(id="chat", wrap=True, markup=False, min_width=10)
                yield Input(id="say", placeholder=t(self.look.lang, "chat_hint"))
        yield Static(id="keys")

    def on_mount(self) -> None:
        plain_borders(self, self.look)
        self.query_one("#log", RichLog).border_title = t(self.look.lang, "panel.log")
        self.query_one("#chat", RichLog).border_title = t(self.look.lang, "panel.chat")
        self.query_one("#seats", SeatsView).border_title = t(self.look.lang, "wait.seats")
        for pane in self.query(RichLog):
            pane.can_focus = False  # keys are the table's; the mouse wheel still scrolls
        self.set_focus(None)
        self.refresh_view()

    #: The smallest terminal the table is laid out for.
    LEAST = (80, 24)

    def on_resize(self) -> None:
        width = self.size.width
        small = self.query_one("#small", Static)
        small.display = width < self.LEAST[0] or self.size.height < self.LEAST[1]
        if small.display:
            said = t(self.look.lang, "too_small", w=width, h=self.size.height)
            small.update(Text(self.look.text(said)))
        right = self.query_one("#right", Vertical)
        right.styles.width = 34 if width < 100 else max(34, width * 36 // 100)
        self.query_one("#chat", RichLog).styles.height = 5 if self.size.height < 30 else 9
        self.refresh_view()
        self.call_after_refresh(self.rewrap)

    # --- showing --------------------------------------------------------------------------

    @property
    def online(self) -> bool:
        return self.client.close_code is None

    def hand(self) -> list[str]:
        game = self.client.game
        return sorted_hand(game.get("hand") or []) if game is not None else []

    def legal(self) -> list[str]:
        game = self.client.game
        return list(game.get("legal") or []) if game is not None else []

    def refresh_view(self) -> None:
        """Redraw everything from the client's document (called on every change)."""
        doc = self.client.doc
        if doc is None or not self.is_mounted:
            return
        look, lang, me = self.look, self.look.lang, self.client.seat
        room, game = doc["room"], doc.get("game")
        self._feed_logs(doc)
        if self._note and self._moment() != self._note_moment:
            self._note = ""  # said of a turn that is over: it would hide whose turn it is
        # The chosen card may have been played, the chosen pile moved: forget them then.
        hand = self.hand()
        if self.picker.card is not None and self.picker.card not in hand:
            self.picker = keys.NOTHING
        if (
            self.picker.pile is not None
            and game is not None
            and not game["piles"][self.picker.pile]
        ):
            self.picker = keys.NOTHING
        if self.cursor not in hand:
            self.cursor = hand[0] if hand else None

        head = [t(lang, "matches.room", code=room["code"])]
        daily = room.get("daily")
        if daily:
            head.insert(0, t(lang, "daily_ranked" if daily.get("ranked") else "daily_practice"))
        if game is not None:
            head.append(t(lang, "hand_no", n=game["hand_no"]))
        head.append(options_line(doc, lang))
        if not self.online:
            head.append(t(lang, "lost"))
        top = look.text(" · ".join(head))
        self.query_one("#top", Static).update(Text(top, overflow="ellipsis"))

        table = self.query_one("#table", TableView)
        middle = self.query_one("#middletext", Static)
        playing = game is not None and game["phase"] == "playing"
        table.display = playing
        self.query_one("#middle", VerticalScroll).display = not playing
        legal = self.legal()
        if game is None:
            middle.update(waiting_text(doc, me, look, self.online))
        elif playing:
            targets = keys.targets(self.picker, legal)
            if self.picker == keys.NOTHING:
                targets = targets | self.hint_targets
            table.show(game, look, targets, self.picker.pile)
        else:
            middle.update(result_text(doc, me, look, self._coach_section(doc)))

        hand_view = self.query_one("#hand", HandView)
        # Once the match is over, what was left in the hand is in the result (with the
        # ratings): the room goes to the result.
        hand_view.display = game is not None and game["phase"] != "finished"
        if game is not None and "hand" in game:
            hand_view.border_title = t(lang, "your_hand", n=len(hand))
        else:
            hand_view.border_title = ""
        hand_view.show(
            hand,
            look,
            cursor=self.cursor if legal else None,
            chosen=self.picker.card,
            playable=keys.playable(legal),
            note=t(lang, "watching") if me is None else "",
        )
        self.query_one("#seats", SeatsView).show(doc, me, look, self.online)
        status = self.status_text()
        refill = refill_note(game, lang) if game is not None and not self.note else None
        if refill is not None:  # opening_refill: while a pile move refills its space
            status.append("\n" + refill, "italic")
        status.plain = look.text(status.plain)
        self.query_one("#status", Static).update(status)
        keys_line = look.text(self.keys_text())
        self.query_one("#keys", Static).update(Text(keys_line, overflow="ellipsis"))

    def _coach_section(self, doc: Mapping[str, Any]) -> Text | None:
        """The coach's section of a finished match for a seated viewer (its review fetched
        in the background the first time), else None (a daily deal: not before the day is
        over); forgotten when a rematch starts."""
        game = doc.get("game")
        finished = game is not None and game["phase"] == "finished"
        if not finished or self.client.seat is None or game is None:
            if self.coach is not None:
                self.workers.cancel_group(self, "coach")
            self.coach = None
            return None
        if game.get("winners") is None or doc["room"].get("daily"):
            # Today's daily deal is reviewed (as replayed) only once the day is over.
            return None
        if self.coach is None:
            self.coach = Coach()
            self.run_worker(self._fetch_review(doc), exclusive=True, group="coach")
        coach = self.coach
        # Wrapped here, so that a wrapped line keeps its indent (a column kept off the scroll bar).
        width = self.query_one("#middle", VerticalScroll).content_size.width - 2
        return coach_text(coach.state, coach.turns or [], self.look, max(width, 20))

    async def _fetch_review(self, doc: Mapping[str, Any]) -> None:
        coach = self.coach
        if coach is None:
            return
        try:
            match_id, review = await self.review(self.client, doc)
        except Exception:  # whatever went wrong, the section says it failed
            coach.state = "failed"
        else:
            entry = seat_review(review, self.client.seat)
            coach.match_id = match_id
            coach.turns = costliest(entry, self.look.lang, self.look.card)
            coach.state = "ready"
        if self.coach is coach:
            self.refresh_view()

    def open_costly_turn(self, number: int) -> bool:
        """Open the replay at the coach's costly turn ``number`` (1-based), if there is one."""
        coach = self.coach
        if coach is None or coach.match_id is None or not coach.turns:
            return False
        if not 1 <= number <= len(coach.turns):
            return False
        cast(Opener, self.app).open_replay(coach.match_id, coach.turns[number - 1].step)
        return True

    def status_text(self) -> Text:
        """The line under the hand: a note, the choice being made, or whose turn it is."""
        turn = self._turn_text()
        if not self.note:
            return turn
        out = Text(self.note, style="bold")
        if turn.plain:  # whose turn it is stays in sight under the note
            out.append("\n")
            out.append_text(turn)
        return out

    def _turn_text(self) -> Text:
        lang = self.look.lang
        doc = self.client.doc
        assert doc is not None
        game = doc.get("game")
        picker = self.picker
        if picker.typed:
            return Text(t(lang, "typing", typed=picker.typed))
        if picker.moving:
            return Text(t(lang, "moving"))
        if picker.card is not None:
            card = self.look.card(picker.card)
            if keys.targets(picker, self.legal()):
                return Text(t(lang, "chosen_card", card=card))
            return Text(t(lang, "chosen_nowhere", card=card))
        if picker.pile is not None:
            return Text(t(lang, "chosen_pile", pile=picker.pile))
        if game is None or game["phase"] != "playing":
            return Text("")
        me = self.client.seat
        seats = doc["room"]["seats"]
        if me is not None and seats[me] is not None and seats[me].get("away"):
            return Text(t(lang, "away_note"), style="bold")
        if game["turn"] == me and self.legal():
            key = "your_turn_moved" if game.get("moved") else "your_turn"
            if "draw" in self.legal():
                # Nothing fits: d draws; once a card was played, e ends the turn as well.
                key = "your_turn_draw_end" if "end" in self.legal() else "your_turn_draw"
            elif "end" not in self.legal() and self._draws_until_playable():
                key = "your_turn_play"
            return Text(t(lang, key), style="bold")
        return Text(t(lang, "turn_of", name=seat_name(doc, game["turn"], lang)))

    def keys_text(self) -> str:
        lang = self.look.lang
        game = self.client.game
        if self.client.seat is None:
            return t(lang, "keys_watch")
        if game is None:
            doc = self.client.doc
            host = doc is not None and doc["room"].get("host") == self.client.seat
            return t(lang, "keys_host" if host else "keys_wait")
        if game["phase"] == "playing":
            return t(lang, "keys_play_draw" if self._draws_until_playable() else "keys_play")
        if game["phase"] == "hand_over":
            return t(lang, "keys_hand_over")
        doc = self.client.doc
        if doc is not None and doc["room"].get("daily"):
            return t(lang, "keys_daily_done")  # the daily deal is played once: no rematch
        return t(lang, "keys_finished")

    def tell(self, text: str) -> None:
        """Say ``text`` in the status line (for :attr:`NOTE_SECONDS`, until the next key or
        the next turn, whichever comes first) and in the log."""
        self.note = text
        serial = self._note_serial
        self.set_timer(self.NOTE_SECONDS, lambda: self._expire_note(serial))
        self._told.append(text)
        self.refresh_view()

    def _feed_logs(self, doc: Mapping[str, Any]) -> None:
        """Add what was said and what happened to the log pane, and the chat to its pane.
        Draws one after another of one seat are one line (``Ana drew 3 cards.``)."""
        lines, shown = self._log_lines, len(self._log_lines)
        for text in self._told:
            lines.append(LogLine(Text(text, style="italic")))
        self._told.clear()
        lang = self.look.lang
        for event in self.client.log[self._log_seen :]:
            last = lines[-1] if lines else None
            seat, count = event.get("seat"), int(event.get("count") or 1)
            if event.get("ev") == "took" and last is not None and last.drawn and last.seat == seat:
                last.drawn += count
                name = seat_name(doc, seat, lang)
                last.text = Text(
                    self.look.text("· " + t(lang, "drew_cards", name=name, n=last.drawn))
                )
                shown = min(shown, len(lines) - 1)
                continue
            line = LogLine(Text(self.look.text("· " + describe(event, doc, self.look))))
            if event.get("ev") == "took":
                line.seat, line.drawn = seat, count
            lines.append(line)
        self._log_seen = len(self.client.log)
        self._show_log(shown)
        for frame in self.client.chat[self._chat_seen :]:
            line_text = Text()
            line_text.append(f"{frame['name']}: ", "bold")
            line_text.append(str(frame["text"]))
            self._chat_lines.append(line_text)
            self.query_one("#chat", RichLog).write(line_text)
        self._chat_seen = len(self.client.chat)

    def _show_log(self, shown: int) -> None:
        """Write the log lines from ``shown`` on; all of them again when one already
        written changed (a draw merged into it)."""
        log = self.query_one("#log", RichLog)
        if shown < self._log_written:
            log.clear()
            shown = 0
        for line in self._log_lines[shown:]:
            log.write(line.text)
        self._log_written = len(self._log_lines)

    def rewrap(self) -> None:
        """Write both panes again at their width now (a resize): a pane wraps its lines
        when they are written."""
        self._log_written = len(self._log_lines) + 1
        self._show_log(0)
        chat = self.query_one("#chat", RichLog)
        chat.clear()
        for text in self._chat_lines:
            chat.write(text)

    # --- frames from the app ----------------------------------------------------------------

    def take(self, frames: Sequence[Frame]) -> None:
        """React to frames that say something beyond the document: refusals, hints."""
        for frame in frames:
            kind = frame["type"]
            if kind == "error":
                self.say_error(frame)
            elif kind == "hint":
                self.show_hint(frame)
            elif kind in ("left", "kicked") and frame.get("room") is not None:
                key = "kicked" if kind == "kicked" else "left_room"
                self.post_message(self.Leave(t(self.look.lang, key, code=frame["room"])))
        self.refresh_view()

    def say_error(self, frame: Mapping[str, Any]) -> None:
        doc = self.client.doc
        look = self.look

        def names(seat: int | None) -> str:
            return seat_name(doc, seat, look.lang) if doc is not None else "?"

        words = describe_error(frame, look.lang, names, look.card)
        self.note = words
        self._log_lines.append(LogLine(Text(f"! {words}", style="bold red")))
        self._show_log(len(self._log_lines) - 1)

    def show_hint(self, frame: Mapping[str, Any]) -> None:
        lang = self.look.lang
        text = str(frame.get("text") or "")
        try:
            action = action_from_text(text)
        except BadAction:
            self.note = text
            return
        wire = action.wire()
        # A hint highlights (the cursor on its card, its target pile marked); it never
        # chooses: the next keys mean what they always mean.
        self.picker = keys.NOTHING
        if wire["type"] == "play":
            if wire["card"] in self.hand():
                self.cursor = wire["card"]
            self.hint_targets = {wire["pile"]}
            self.note = t(lang, "hint_play", card=self.look.card(wire["card"]), pile=wire["pile"])
        elif wire["type"] == "move":
            self.hint_targets = {wire["to"]}
            self.note = t(lang, "hint_move", **{"from": wire["from"], "to": wire["to"]})
        else:
            self.hint_targets = set()
            self.note = t(lang, "hint_draw" if wire["type"] == "draw" else "status.hint_end")
        why = describe_reason(frame.get("reason"), lang, self.look.card)
        if why:
            self.note = f"{self.note} {why}"

    # --- input ------------------------------------------------------------------------------

    async def send(self, message: Frame) -> None:
        try:
            await self.client.send(message)
        except (ConnectionClosed, OSError, AssertionError):
            # The connection is down (or not yet up again): the app shows it and reconnects.
            self.note = t(self.look.lang, "lost")
            self.refresh_view()

    async def act(self, action: str) -> None:
        self.picker = keys.NOTHING
        wire = action_from_text(action).wire()
        await self.send({"type": "act", "seq": next(self._seq), "action": wire})

    async def on_pile_view_clicked(self, message: PileView.Clicked) -> None:
        game = self.client.game
        if game is None or self.client.seat is None:
            return
        self.note = ""
        outcome = keys.choose_pile(self.picker, message.pile, game["piles"])
        if outcome is None and not self.picker.chosen and game["piles"][message.pile]:
            self.picker = keys.Picker(pile=message.pile)
        elif outcome is None:
            self.picker = keys.NOTHING
        await self._outcome(outcome)
        self.refresh_view()

    async def on_hand_view_clicked(self, message: HandView.Clicked) -> None:
        self.note = ""
        self.cursor = message.card
        self.picker = keys.choose_card(self.picker, message.card)
        self.refresh_view()

    async def _outcome(self, outcome: keys.Outcome) -> None:
        if isinstance(outcome, keys.Act):
            await self.act(outcome.action)
        elif isinstance(outcome, keys.Note):
            card = self.look.card(outcome.card) if outcome.card else ""
            self.note = t(self.look.lang, outcome.key, card=card, pile=outcome.pile)

    async def on_input_submitted(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if text:
            await self.send({"type": "chat", "text": text[:500]})
        self.set_focus(None)

    async def on_key(self, event: Key) -> None:
        focused = self.focused
        if isinstance(focused, Input):
            if event.key == "escape":
                self.set_focus(None)
                event.stop()
            return
        handled = await self.press(event.key, event.character)
        if handled:
            event.stop()
            event.prevent_default()

    async def press(self, key: str, char: str | None) -> bool:
        """One key pressed on the table; True when it meant something here."""
        self.note = ""
        self.hint_targets = set()
        done = await self._press(key, char)
        self.refresh_view()
        return done

    async def _press(self, key: str, char: str | None) -> bool:
        client = self.client
        game = client.game
        doc = client.doc
        if doc is None:
            return False
        seated = client.seat is not None
        ch = char or ""
        if ch == "?" or key == "question_mark":
            from .help import HelpScreen

            self.app.push_screen(HelpScreen(self.look))
            return True
        if ch in ("c", "/") and not self.picker.typed:
            self.set_focus(self.query_one("#say", Input))
            return True
        if ch == "l" and not self.picker.typed:
            # Leaving gives the seat up for good: the key is pressed twice.
            if self.leaving and client.room is not None:
                await self.send({"type": "leave"})
            self.leaving = not self.leaving
            self.note = t(self.look.lang, "leave_again") if self.leaving else ""
            return True
        self.leaving = False
        if not seated:
            return False
        if game is None:
            return await self.waiting_key(ch, doc)
        if game["phase"] != "playing":
            if game["phase"] == "finished" and ch in ("1", "2", "3"):
                return self.open_costly_turn(int(ch))
            if game["phase"] == "finished" and key in ("up", "down", "pageup", "pagedown"):
                middle = self.query_one("#middle", VerticalScroll)
                step = {"up": -1, "down": 1, "pageup": -5, "pagedown": 5}[key]
                middle.scroll_relative(y=step, animate=False)
                return True
            if ch == "n":
                await self.send({"type": "next_hand"})
            elif ch in ("r", "R"):
                await self.send({"type": "rematch", "force": ch == "R"})
            else:
                return False
            return True
        return await self._table_key(key, ch, game)

    async def _table_key(self, key: str, ch: str, game: Mapping[str, Any]) -> bool:
        hand = self.hand()
        if key in ("left", "right") and hand:
            step = -1 if key == "left" else 1
            index = hand.index(self.cursor) if self.cursor in hand else 0
            self.cursor = hand[(index + step) % len(hand)]
            return True
        if key in ("enter", "space") and self.cursor is not None:
            self.picker = keys.choose_card(self.picker, self.cursor)
            return True
        name = "escape" if key == "escape" else ch
        picker, outcome = keys.press(self.picker, name, hand, game["piles"])
        if outcome is not None or picker != self.picker:
            self.picker = picker
            await self._outcome(outcome)
            return True
        if ch == "e":
            await self.act("end")
        elif ch == "d" and self._draws_until_playable():
            await self.act("draw")
        elif ch == "h":
            await self.send({"type": "hint"})
        elif ch == "b":
            await self.send({"type": "back"})
        else:
            return False
        return True

    def _draws_until_playable(self) -> bool:
        doc = self.client.doc
        return doc is not None and doc["room"]["options"].get("draw") == "until_playable"


__all__ = ["GameScreen"]
