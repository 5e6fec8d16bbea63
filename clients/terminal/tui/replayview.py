"""The replay viewer: a finished match step by step, on the same table as a live one, every
hand open. The match is rebuilt by :func:`clients.terminal.replay.build`.

The replay of one of the viewer's own matches shows the coach's costliest turns of their
seat beside the table (below it when the terminal is narrow), keys 1 2 3 jumping to each
turn's step, as the web client's replay does; the review is fetched in the background and
never holds the replay up. At a costly turn, ``l`` plays the coach's better line on the
table instead (→ ← a move of it at a time; ``l`` or Esc back to what was played)."""

from __future__ import annotations

import datetime
from dataclasses import dataclass
from typing import ClassVar

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding, BindingType
from textual.containers import Container, Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Static

from protocol.engine import PILES, public_view

from ..coach import (
    FetchReview,
    Table,
    TurnLines,
    await_review,
    coach_title,
    costliest,
    fetch_review,
    line_tables,
    seat_review,
)
from ..render import Style
from ..replay import Replay, caption, move_caption
from .board import TableView
from .game import Coach
from .help import HelpScreen
from .look import Look, plain_borders, sorted_hand
from .panels import replay_coach_text, result_text
from .text import t

#: From this width the coach's turns stand beside the table, whole; below it they are listed
#: under the table, a line each (the table and the hands keep their widths).
WIDE = 118
#: The coach's column beside the table, at least.
COACH_WIDTH = 38
#: The rows the table keeps when the coach's turns are listed under it (a row of piles a
#: card high); the turns scroll (↑ ↓) when they need more.
TABLE_ROWS = 9
#: The key that plays the coach's better line at a costly turn, and back.
BETTER_KEY = "l"


@dataclass(slots=True)
class BetterLine:
    """The coach's better line of ``turn``, played on the replay's table: ``tables[at]``
    is shown (0: the turn as it began)."""

    turn: TurnLines
    tables: list[Table]
    at: int = 0


class ReplayScreen(Screen[None]):
    """Step through ``replay``: arrows step, PgUp/PgDn jump a hand, Home/End, 1 2 3 the
    coach's turns (``l`` its better line there, ↑ ↓ scroll them), ``?`` the keys, Esc
    back."""

    AUTO_FOCUS = ""

    CSS = """
    ReplayScreen { layout: vertical; }
    #rtop { height: 1; background: $primary-background; padding: 0 1; }
    #caption { height: 2; padding: 0 1; }
    #rmain { height: 1fr; layout: vertical; }
    #rbody { height: 1fr; }
    #rcoach { border: round $secondary; padding: 0 1; height: auto; display: none;
              scrollbar-size: 1 1; }
    #rcoachtext { height: auto; }
    #rtable { grid-size: 3 3; grid-gutter: 0 1; width: 1fr; min-width: 46; }
    #rresult { width: 1fr; min-width: 46; border: round $secondary; padding: 0 1; }
    .pile { border: round $secondary; height: 1fr; content-align: center middle; }
    .stock { content-align: center middle; height: 1fr; color: $text-muted; }
    #rside { width: 34; }
    #hands { height: 1fr; border: round $secondary; padding: 0 1; }
    #rkeys { height: 1; background: $primary-background; color: $text-muted; padding: 0 1; }
    """
    BINDINGS: ClassVar[list[BindingType]] = [
        Binding("right,n,space", "step(1)", show=False),
        Binding("left,b", "step(-1)", show=False),
        Binding("pagedown", "hand(1)", show=False),
        Binding("pageup", "hand(-1)", show=False),
        Binding("home,s", "go(0)", show=False),
        Binding("end,e", "go(-1)", show=False),
        Binding("escape,q", "back", show=False),
        Binding("1", "turn(1)", show=False),
        Binding("2", "turn(2)", show=False),
        Binding("3", "turn(3)", show=False),
        Binding(BETTER_KEY, "better", show=False),
        Binding("up", "scroll_coach(-1)", show=False),
        Binding("down", "scroll_coach(1)", show=False),
        Binding("question_mark", "help", show=False),
    ]

    def __init__(
        self,
        replay: Replay,
        look: Look,
        start: int = 0,
        *,
        seat: int | None = None,
        url: str | None = None,
        fetch: FetchReview = fetch_review,
    ) -> None:
        """``seat``: the viewer's own seat in the match (None: not theirs, nothing of the
        coach is shown); its review is asked of the server at ``url`` with ``fetch``."""
        super().__init__()
        self.replay = replay
        self.look = look
        self.index = start
        self.seat = seat
        self.url = url
        self.fetch = fetch
        #: The coach's review of the viewer's seat; None when there is none to show.
        self.coach: Coach | None = Coach() if self._reviewable() else None
        #: The coach's turn last jumped to (1-based), if any.
        self.chosen: int | None = None
        #: The coach's better line being played on the table instead of the replay's.
        self.better: BetterLine | None = None

    def _reviewable(self) -> bool:
        record = self.replay.record
        if self.seat is None or self.url is None or not record.get("id"):
            return False
        # Today's daily deal is reviewed (and replayed) only once the day is over.
        daily = record.get("daily")
        today = datetime.datetime.now(datetime.UTC).date().isoformat()
        return not (isinstance(daily, dict) and str(daily.get("day", "")) >= today)

    def compose(self) -> ComposeResult:
        yield Static(id="rtop")
        yield Static(id="caption")
        with Container(id="rmain"):
            with Horizontal(id="rbody"):
                yield TableView(id="rtable")
                yield Static(id="rresult")
                with Vertical(id="rside"):
                    yield Static(id="hands")
            with VerticalScroll(id="rcoach", can_focus=False):
                yield Static(id="rcoachtext")
        yield Static(id="rkeys")

    def on_mount(self) -> None:
        plain_borders(self, self.look)
        self.query_one("#hands").border_title = t(self.look.lang, "replay_all_open")
        coach = self.query_one("#rcoach", VerticalScroll)
        coach.display = self.coach is not None
        if self.coach is not None:
            self.run_worker(self._fetch_review(), exclusive=True, group="coach")
        self.show()

    def on_resize(self) -> None:
        self.show()

    async def _fetch_review(self) -> None:
        coach, url = self.coach, self.url
        if coach is None or url is None:
            return
        try:
            review = await await_review(url, str(self.replay.record["id"]), fetch=self.fetch)
        except Exception:  # whatever went wrong, one short line says it; the replay goes on
            coach.state = "failed"
        else:
            entry = seat_review(review, self.seat)
            coach.turns = costliest(entry, self.look.lang, self.look.card)
            coach.state = "ready"
        if self.is_mounted:
            self.show()

    def _wide(self) -> bool:
        return self.coach is not None and self.size.width >= WIDE

    def _coach_width(self) -> int:
        """The coach's column beside the table (when :meth:`_wide`)."""
        return max(COACH_WIDTH, self.size.width // 3)

    def _lay_out(self) -> None:
        """The coach's turns beside the table when the terminal is wide, else below it; the
        hands' column as wide as the space left allows."""
        width = self.size.width
        main = self.query_one("#rmain")
        coach = self.query_one("#rcoach", VerticalScroll)
        wide = self._wide()
        main.styles.layout = "horizontal" if wide else "vertical"
        body = width
        if wide:
            coach.styles.width = self._coach_width()
            coach.styles.height = "1fr"
            coach.styles.max_height = None
            body = width - self._coach_width()
        else:
            coach.styles.width = "1fr"
            coach.styles.height = "auto"
            # Under the table: the rest of the screen but the table's rows (the top line,
            # the caption and the keys line take four).
            coach.styles.max_height = max(5, self.size.height - 4 - TABLE_ROWS)
        self.query_one("#rside").styles.width = 34 if body < 100 else body * 36 // 100

    def _coach_text(self) -> Text:
        coach = self.coach
        assert coach is not None
        wide = self._wide()
        # Its border and padding, and a column kept for the scroll bar.
        inner = (self._coach_width() if wide else self.size.width) - 5
        turns = coach.turns or []
        here = self.turn_here()
        lang = self.look.lang
        hint = ""
        if self.better is not None:
            hint = f"{BETTER_KEY} Esc: {t(lang, 'coach.show_played')}"
        elif here is not None and here.line:
            hint = f"{BETTER_KEY}: {t(lang, 'coach.show_better')}"
        return replay_coach_text(coach.state, turns, self.look, inner, self.index, not wide, hint)

    def _keys_text(self) -> str:
        lang = self.look.lang
        if self.better is not None:
            step = t(lang, "replay_keys").split(" · ")[0]  # "←→ step"
            return f"{step} · {BETTER_KEY} Esc: {t(lang, 'coach.show_played')}"
        turns = self.coach.turns if self.coach is not None else None
        if not turns:
            return t(lang, "replay_keys")
        keys = "1" if len(turns) == 1 else f"1\u2013{len(turns)}"
        return t(lang, "replay_keys_coach", keys=keys)

    def turn_here(self) -> TurnLines | None:
        """The coach's costly turn the replay is at (the one last jumped to first)."""
        coach = self.coach
        turns = (coach.turns or []) if coach is not None and coach.state == "ready" else []
        chosen = self.chosen
        if (
            chosen is not None
            and 1 <= chosen <= len(turns)
            and turns[chosen - 1].step == self.index
        ):
            return turns[chosen - 1]
        return next((turn for turn in turns if turn.step == self.index), None)

    def _show_coach(self) -> None:
        coach = self.coach
        assert coach is not None
        panel = self.query_one("#rcoach", VerticalScroll)
        turns = coach.turns or []
        panel.border_title = coach_title(len(turns), self.look.lang)
        text = self._coach_text()
        self.query_one("#rcoachtext", Static).update(text)
        # The turn the replay is at in sight: its first line at the top when it scrolls.
        mark = "▶" if self.look.symbols else ">"
        lines = text.plain.split("\n")
        top = next((i for i, line in enumerate(lines) if line.startswith(mark)), 0)
        self.call_after_refresh(panel.scroll_to, y=top, animate=False)

    def show(self) -> None:
        replay, look, lang = self.replay, self.look, self.look.lang
        self._lay_out()
        if self.coach is not None:
            self._show_coach()
        keys = Text(look.text(self._keys_text()), overflow="ellipsis", no_wrap=True)
        self.query_one("#rkeys", Static).update(keys)
        step = replay.steps[self.index]
        match = step.match
        record = replay.record
        title = t(
            lang,
            "replay_title",
            id=record.get("id") or "?",
            i=self.index,
            n=replay.last,
            h=step.hand,
            hands=len(replay.hand_starts),
        )
        self.query_one("#rtop", Static).update(Text(title, overflow="ellipsis"))
        style = Style(color=False, symbols=look.symbols, lang=lang)
        said = caption(replay, self.index, style)
        game = public_view(match)
        names = replay.names()
        pos = match.position
        open_hands = [list(hand) for hand in pos.hands]
        targets: set[str] = set()
        better = self.better
        shown: Text | str = said
        if better is not None:
            line = better.tables[better.at]
            open_hands = [list(hand) for hand in line.hands]
            game["piles"] = {name: list(pile) for name, pile in line.piles.items()}
            game["counts"] = [len(hand) for hand in line.hands]
            if line.pile is not None:
                targets = {line.pile}
            total = len(better.tables) - 1
            if better.at:
                status = t(lang, "coach.better_step", n=better.at, total=total)
                assert line.move is not None
                said = move_caption(replay, better.turn.seat, line.move, style)
            else:
                status = t(lang, "coach.better_start")
            shown = Text()
            shown.append(look.text(status), "bold reverse")
            shown.append("\n" + said)
        self.query_one("#caption", Static).update(shown)
        hands = Text()
        # With the coach's turns under the table the hands get fewer rows: no gaps then.
        dense = self.coach is not None and not self._wide()
        for i, hand in enumerate(open_hands):
            if i and not dense:
                hands.append("\n")
            turn = pos.result is None and pos.turn == i
            hands.append(("▶ " if look.symbols else "> ") if turn else "  ", "bold")
            hands.append(f"{names[i][:12]:<12} {match.totals[i]:>3}\n", "bold")
            hands.append("  ")
            if hand:
                hands.append_text(look.cards(sorted_hand(hand)))
            else:  # the better line can empty a hand
                hands.append(t(lang, "no_cards"), "dim")
            hands.append("\n")
        self.query_one("#hands", Static).update(hands)
        # At the end of a hand its result takes the table's place, as in a live match.
        doc = {"room": {"seats": [{"name": n} for n in names], "options": {}}, "game": game}
        table = self.query_one("#rtable", TableView)
        result = self.query_one("#rresult", Static)
        table.display = pos.result is None
        result.display = pos.result is not None
        if pos.result is None:
            table.show(game, look, targets, None)
        else:
            result.update(result_text(doc, None, look))

    def action_step(self, delta: int) -> None:
        better = self.better
        if better is not None:
            better.at = max(0, min(len(better.tables) - 1, better.at + delta))
        else:
            self.index = max(0, min(self.replay.last, self.index + delta))
        self.show()

    def action_hand(self, delta: int) -> None:
        self.better = None
        starts = self.replay.hand_starts
        current = max(i for i, s in enumerate(starts) if s <= self.index)
        target = max(0, min(len(starts) - 1, current + delta))
        self.index = starts[target]
        self.show()

    def action_go(self, index: int) -> None:
        self.better = None
        self.index = self.replay.last if index < 0 else index
        self.show()

    def action_turn(self, number: int) -> None:
        """Jump to the step of the coach's costly turn ``number`` (1-based), if there is one."""
        turns = self.coach.turns if self.coach is not None else None
        if turns and 1 <= number <= len(turns):
            self.chosen = number
            self.action_go(max(0, min(self.replay.last, turns[number - 1].step)))

    def action_better(self) -> None:
        """At a costly turn: play the coach's better line on the table (from the turn as it
        began, → ← a move of it at a time); again: back to what was played."""
        if self.better is not None:
            self.better = None
            self.show()
            return
        turn = self.turn_here()
        if turn is None or not turn.line:
            return
        pos = self.replay.steps[self.index].match.position
        piles = dict(zip(PILES, pos.piles, strict=True))
        tables = line_tables(pos.hands, piles, turn.seat, turn.line)
        if len(tables) > 1:  # else the line does not fit this table (a review gone stale)
            self.better = BetterLine(turn, tables)
            self.show()

    def action_scroll_coach(self, delta: int) -> None:
        if self.coach is not None:
            self.query_one("#rcoach", VerticalScroll).scroll_relative(y=delta, animate=False)

    def action_help(self) -> None:
        self.app.push_screen(HelpScreen(self.look, "replay_help"))

    def action_back(self) -> None:
        if self.better is not None:  # the better line first, then the replay
            self.better = None
            self.show()
            return
        self.dismiss()


__all__ = ["BETTER_KEY", "COACH_WIDTH", "TABLE_ROWS", "WIDE", "BetterLine", "ReplayScreen"]
