"""The coach in the full-screen replay viewer, against a real server: the replay of one of
your matches lists your seat's costliest turns beside the table (below it on a narrow
terminal, wrapped, never cut), keys 1 2 3 jump to each turn's step, where ``l`` plays the
coach's better line on the table a move at a time (``l`` or Esc back to what was played);
someone else's match, a pending or failed review and today's daily deal never hold the
replay up."""

from __future__ import annotations

import asyncio
import datetime
from pathlib import Path
from typing import Any

import pytest
from textual.app import App
from textual.widget import Widget

from clients.i18n import texts
from clients.net import GameClient
from clients.terminal.coach import (
    await_review,
    coach_title,
    costliest,
    fetch_review,
    find_match,
    own_seat,
    seat_review,
)
from clients.terminal.replay import Replay, build, fetch_record, http_base
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.board import PileView
from clients.terminal.tui.look import Look
from clients.terminal.tui.replayview import ReplayScreen
from protocol.engine import PILES, Move, Play, legal_actions
from server.app import GameServer
from tests.clients.test_coach_terminal import REVIEW, seat_of
from tests.clients.test_replay import played_match, record_of
from tests.clients.test_tui_ratings import text_of, wait_for
from tests.clients.tui_driver import ARTIFACTS, save, screen_text, server, shows, until

__all__ = ["server"]  # the fixture: the real server, its bots thinking in threads

# Ana (seat 0) deals, so the bot moves first: nothing of its fits, it draws 2C and ends.
# Ana's hand is one run onto N's 9C; she plays six of it and ends one card short (the
# blunder the coach names), drawing AC; the bot draws 6H; Ana plays 2D and AC and goes out,
# the bot's nine cards ending the match at the target of 9. (As the web client's coach test.)
RUN = ["8H", "7S", "6D", "5C", "4H", "3S", "2D"]
BOT = ["QD", "QC", "5H", "5S", "3C", "3D", "AH"]
TABLE = ["9C", "9D", "JH", "JS"]
STOCK = ["2C", "AC", "6H"]
ANA = [f"{c}>N" for c in RUN[:6]] + ["end", "2D>N", "AC>N"]


def blunder_deck() -> list[str]:
    """The deck dealing :data:`BOT` to seat 1 (left of the dealer, first) and :data:`RUN`
    to seat 0, then the table and the stock."""
    top = [hand[i] for i in range(7) for hand in (BOT, RUN)] + TABLE + STOCK
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    rest = [f"{r}{s}" for s in "CDHS" for r in ranks if f"{r}{s}" not in top]
    deck = top + rest
    assert len(set(deck)) == 52
    return deck


async def finished_match(url: str, tokens: TokenFile) -> tuple[str, dict[str, Any]]:
    """Ana's match with the blunder, played to its end on the real server under the
    identity the token file then keeps; its id and its review (waited for)."""
    ana = GameClient(url, "Ana")
    await ana.connect()
    try:
        await ana.create(seats=2, bots=[None, "random"], decks=[blunder_deck()], dealer=0, target=9)
        await ana.start()
        for action in ANA:

            def mine(c: GameClient, action: str = action) -> bool:
                game = c.game
                return game is not None and action in (game.get("legal") or [])

            await ana.until(mine, timeout=20)
            answer = await ana.act(action)
            assert answer["type"] == "patch", answer
        assert ana.game is not None and ana.game["phase"] == "finished"
        match_id = await find_match(ana, ana.doc or {})
        tokens.put_player(url, ana.player or "", ana.player_id)
    finally:
        await ana.close()
    review = await await_review(url, match_id, tries=600, wait=0.1)
    return match_id, review


def region_text(app: App[Any], widget: Widget) -> list[str]:
    """The screen's lines inside ``widget``'s region."""
    region = widget.region
    lines = text_of(app).splitlines()[region.y : region.bottom]
    return [line[region.x : region.right] for line in lines]


def flat(app: App[Any], widget: Widget) -> str:
    """What ``widget`` (a bordered box) says, its wrapped lines joined again."""
    inside = [line.strip().strip("│").strip() for line in region_text(app, widget)[1:-1]]
    return " ".join(" ".join(inside).split())


def wrapped_not_cut(app: App[Any], widget: Widget) -> list[str]:
    """The lines inside bordered ``widget``, each whole between its borders: nothing cut
    with an ellipsis, nothing past the right border."""
    lines = region_text(app, widget)
    assert all(line.startswith("│") and line.endswith("│") for line in lines[1:-1]), lines
    assert not any("…" in line or "..." in line for line in lines), lines
    return lines


def pile(screen: ReplayScreen, name: str) -> list[str]:
    return screen.query_one(f"#pile-{name}", PileView).cards


def no_overlap(app: App[Any], screen: ReplayScreen) -> None:
    """Every part of the replay inside the screen, and none over another."""
    width, height = app.size
    parts = [screen.query_one(f"#{name}") for name in ("rtop", "caption", "rkeys", "rcoach")]
    parts += [screen.query_one("#rtable" if screen.query_one("#rtable").display else "#rresult")]
    parts += [screen.query_one("#hands")]
    for part in parts:
        region = part.region
        assert region.width > 0 and region.height > 0, part
        assert region.right <= width and region.bottom <= height, (part, region)
    for i, one in enumerate(parts):
        for other in parts[i + 1 :]:
            assert not one.region.overlaps(other.region), (one, other)


async def test_your_costliest_turns_beside_the_replay_and_1_to_3_jump_to_them(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    tokens = TokenFile(tmp_path / "tokens.json")
    match_id, review = await finished_match(url, tokens)
    turns = costliest(seat_review(review, 0), "en", Look().card)
    assert turns and turns[0].step == 1  # the turn ended one card short
    n = len(turns)
    # The coach knows she could have gone out: her six plays the start both lines share.
    costly = review["seats"][0]["costliest"][0]
    assert costly["could_go_out"] and costly["fork"] == 6
    assert costly["better"] == [f"{c}>N" for c in RUN]

    client = GameClient(url, "Ana", reconnect=True)
    client.player = tokens.player(url)
    app = KingsCornerApp(client, Look(), tokens=tokens)
    async with app.run_test(size=(120, 40)) as pilot:
        await shows(pilot, "m  your matches")
        await pilot.press("m")
        await shows(pilot, f"{match_id}")
        await pilot.press("enter")
        await until(pilot, lambda: isinstance(app.screen, ReplayScreen), what="the replay")
        screen = app.screen
        assert isinstance(screen, ReplayScreen) and screen.seat == 0
        await until(
            pilot,
            lambda: screen.coach is not None and screen.coach.state == "ready",
            timeout=30,
            what="the review",
        )
        span = f"1\u2013{n}" if n > 1 else "1"
        text = await shows(pilot, f"{'Keys' if n > 1 else 'Key'} {span}: go to that turn")
        assert f"─ {coach_title(n)} ─" in text  # the heading counts the turns
        assert f"{span} your turns · ? help · Esc back" in text
        # Wide: the turns stand beside the table, whole, wrapped.
        coach, body = screen.query_one("#rcoach"), screen.query_one("#rbody")
        assert coach.region.x >= body.region.right and coach.region.height > 20
        wrapped_not_cut(app, coach)
        panel = flat(app, coach)
        # Its first line: she could have gone out; the lines' shared start said once.
        assert "1 You could have gone out this turn. Hand 1, your hand: " in panel, panel
        assert (
            "As you played: 8♥→N, 7♠→N, 6♦→N, 5♣→N, 4♥→N, 3♠→N "
            "Then you ended your turn. Better from there: 2♦→N "
        ) in panel, panel
        assert "You could have gone out: 2♦ on North was your last card" in panel, panel
        assert "You played:" not in panel and "Better:" not in panel
        assert "l: Play the better line" not in panel  # not at the turn yet
        no_overlap(app, screen)

        assert screen.index == 0
        await pilot.press("1")
        assert screen.index == turns[0].step
        await shows(pilot, "▶1 You could have gone out")  # the turn the replay is at is marked
        assert f"step {turns[0].step}/" in screen_text(app)
        assert "l: Play the better line" in flat(app, coach)
        save(app, "replay-coach-120x40")
        (ARTIFACTS / "replay-coach-120x40.txt").write_text(screen_text(app))
        await pilot.press("end")
        await wait_for(pilot, lambda: "▶" not in "".join(region_text(app, coach)), "no mark")
        await pilot.press(str(n + 1) if n < 3 else "home")  # a key with no turn: nothing
        assert screen.index == (screen.replay.last if n < 3 else 0)

        # Narrow: the turns listed under the table, in short, nothing cut off the screen.
        await pilot.resize_terminal(80, 24)
        await until(pilot, lambda: coach.region.y >= body.region.bottom, what="the coach below")
        assert coach.region.height == n + 2 and coach.region.width == 80, screen_text(app)
        lines = wrapped_not_cut(app, coach)
        assert lines[1].startswith("│  1 You could have gone out this turn. · Better from there: ")
        await pilot.press(str(n))
        assert screen.index == turns[n - 1].step
        # The turn the replay is at, whole, wrapped to the screen's width.
        await shows(pilot, f"│ ▶{n} You could have gone out this turn.")
        lines = wrapped_not_cut(app, coach)
        assert coach.region.height > n + 2
        assert "│    Then you ended your turn." in "\n".join(lines)
        assert "l: Play the better line" in flat(app, coach)
        no_overlap(app, screen)
        save(app, "replay-coach-80x24")
        (ARTIFACTS / "replay-coach-80x24.txt").write_text(screen_text(app))

        # l: the better line on the table, from the turn as it began, a move at a time.
        hands = screen.query_one("#hands")
        ana = " ".join(Look().card(c) for c in RUN)
        assert pile(screen, "N") == ["9C"]
        await pilot.press("l")
        text = await shows(pilot, "Better line: the turn as it began")
        assert "←→ step · l Esc: Back to what you played" in text
        assert pile(screen, "N") == ["9C"] and screen.index == 1
        await pilot.press("right")
        text = await shows(pilot, "Better line: move 1 of 7")
        assert "seat 1 (Ana) played 8♥ on N." in text
        assert pile(screen, "N") == ["9C", "8H"]  # 8♥ lands on N
        assert "8♥" not in flat(app, hands) and "7♠" in flat(app, hands)  # and leaves her hand
        assert screen.index == 1  # the replay stays where it was
        await pilot.press(*["right"] * 7)  # past the end: the last move stays
        await shows(pilot, "Better line: move 7 of 7")
        assert pile(screen, "N") == ["9C", *RUN]
        assert "Ana 0 no cards Bot 2" in flat(app, hands)  # she went out
        save(app, "replay-better-line-80x24")
        (ARTIFACTS / "replay-better-line-80x24.txt").write_text(screen_text(app))
        await pilot.press("left")
        await shows(pilot, "Better line: move 6 of 7")
        assert pile(screen, "N") == ["9C", *RUN[:6]] and "2♦" in flat(app, hands)
        # Esc: back to what she played, at the same step; the replay is still open.
        await pilot.press("escape")
        await until(pilot, lambda: screen.better is None, what="the replay again")
        assert app.screen is screen and screen.index == 1 and pile(screen, "N") == ["9C"]
        text = screen_text(app)
        assert "Better line" not in text and "Bot 2) ended the turn" in text
        assert f"{span} your turns · ? help · Esc back" in text
        assert all(Look().card(c) in flat(app, hands) for c in RUN), ana
        # l again, then l once more: the same way back.
        await pilot.press("l", "right", "right")
        await shows(pilot, "Better line: move 2 of 7")
        await pilot.press("l")
        await until(pilot, lambda: screen.better is None, what="the replay again")
        assert pile(screen, "N") == ["9C"] and screen.index == 1

        # ? lists the keys, 1 2 3 among them.
        await pilot.press("question_mark")
        text = await shows(pilot, "1 2 3       the coach's costly turns of your seat")
        save(app, "replay-help-80x24")
        await pilot.press("escape")
        await until(pilot, lambda: app.screen is screen, what="the replay again")
        await pilot.press("ctrl+q")
    await client.close()


async def test_the_replay_alone_knows_you_by_the_token_file_and_not_someone_else(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    tokens = TokenFile(tmp_path / "tokens.json")
    match_id, _ = await finished_match(url, tokens)
    http = http_base(url)
    # The token file keys the identity by the WebSocket address; the replay names the
    # server by its HTTP one: the same server.
    assert tokens.player_id(http) == tokens.player_id(url) is not None
    record = await asyncio.to_thread(fetch_record, http, match_id)
    assert own_seat(record, tokens.player_id(url)) == 0
    assert own_seat(record, "someone-else") is None and own_seat(record, None) is None
    assert record["players"][1] is None  # the bot's seat is nobody's

    mine = KingsCornerApp(
        GameClient(http), Look(), tokens=tokens, replay_id=match_id, replay_only=True
    )
    async with mine.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(mine.screen, ReplayScreen), what="the replay")
        screen = mine.screen
        assert isinstance(screen, ReplayScreen) and screen.seat == 0
        await shows(pilot, "│  1 You could have gone out this turn. · Better", timeout=30)
        await pilot.press("1")
        assert screen.index == 1
        await pilot.press("q")
    assert mine.return_code in (None, 0)

    # Another identity (none kept): the same replay, nothing of the coach.
    other = KingsCornerApp(
        GameClient(http),
        Look(),
        tokens=TokenFile(tmp_path / "other.json"),
        replay_id=match_id,
        replay_only=True,
    )
    async with other.run_test(size=(80, 24)) as pilot:
        await until(pilot, lambda: isinstance(other.screen, ReplayScreen), what="the replay")
        screen = other.screen
        assert isinstance(screen, ReplayScreen)
        assert screen.seat is None and screen.coach is None
        text = await shows(pilot, "←→ step · PgUp PgDn hand · Home End · ? help · Esc back")
        assert not screen.query_one("#rcoach").display
        assert "costliest" not in text and "your turns" not in text
        await pilot.press("1")
        assert screen.index == 0  # 1 is no turn of anyone's here
        await pilot.press("right")
        assert screen.index == 1
        await pilot.press("q")


class Viewer(App[None]):
    """The replay viewer alone over ``screen``."""

    def __init__(self, screen: ReplayScreen) -> None:
        super().__init__()
        self.replay_screen = screen

    async def on_mount(self) -> None:
        await self.push_screen(self.replay_screen)


async def test_a_pending_a_failed_and_a_withheld_review_never_hold_the_replay_up(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    match_id, _ = await finished_match(url, TokenFile(tmp_path / "tokens.json"))
    http = http_base(url)
    replay = build(await asyncio.to_thread(fetch_record, http, match_id))
    gate = asyncio.Event()
    asked: list[str] = []

    def pending_until_the_gate(address: str, match: str) -> dict[str, Any] | None:
        asked.append(match)
        return fetch_review(address, match) if gate.is_set() else None  # as a 202 would

    screen = ReplayScreen(replay, Look(), seat=0, url=http, fetch=pending_until_the_gate)
    app = Viewer(screen)
    async with app.run_test(size=(80, 24)) as pilot:
        coach = screen.query_one("#rcoach")
        pending = "│ The coach is looking at your turns…"
        await wait_for(pilot, lambda: pending in "".join(region_text(app, coach)), "pending")
        assert asked and region_text(app, coach)[1].startswith(pending)
        assert coach.region.height == 3  # one short line
        await pilot.press("right", "right")
        assert screen.index == 2  # the replay goes on meanwhile
        await pilot.press("1")
        assert screen.index == 2  # no turn yet
        gate.set()
        await wait_for(pilot, lambda: "│  1 You could have" in text_of(app), "the turns")
        assert asked == [match_id] * len(asked) and len(asked) >= 2

    # A review that cannot be had (no such match on the server: a 404): one short line.
    record = record_of(played_match())
    record["id"] = "NOSUCH-1"
    failed = ReplayScreen(build(record), Look(), seat=0, url=http)
    app = Viewer(failed)
    async with app.run_test(size=(80, 24)) as pilot:
        failure = "│ The coach's review could not be loaded."
        await wait_for(pilot, lambda: failure in text_of(app), "the failure")
        assert failed.query_one("#rcoach").region.height == 3
        await pilot.press("end", "1")
        assert failed.index == failed.replay.last  # 1 is nothing; the keys still step

    # Today's daily deal: not asked for at all (the server would refuse it), nothing shown.
    record = record_of(played_match())
    record["daily"] = {"day": datetime.datetime.now(datetime.UTC).date().isoformat()}
    calls: list[str] = []

    def never(address: str, match: str) -> dict[str, Any] | None:
        calls.append(match)
        return None

    daily = ReplayScreen(build(record), Look(), seat=0, url=http, fetch=never)
    app = Viewer(daily)
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.1)
        assert daily.coach is None and not daily.query_one("#rcoach").display
        assert calls == [] and "costliest" not in text_of(app)
        await pilot.press("right")
        assert daily.index == 1


@pytest.mark.parametrize("lang", ["en", "es", "cs"])
async def test_three_turns_and_four_seats_fit_80_by_24_and_120_by_40(lang: str) -> None:
    """Three costly turns (the review's shape, as the coach's other tests know it) beside a
    four-seat replay: every line inside the screen, nothing over anything, in each language."""
    record = record_of(played_match(seats=4))
    screen = ReplayScreen(
        build(record), Look(lang=lang), seat=0, url="http://127.0.0.1:9", fetch=lambda u, m: REVIEW
    )
    app = Viewer(screen)
    steps = [turn["step"] for turn in REVIEW["seats"][0]["costliest"]]
    async with app.run_test(size=(120, 40)) as pilot:
        await wait_for(
            pilot, lambda: screen.coach is not None and screen.coach.state == "ready", "the review"
        )
        for number, step in enumerate(steps, start=1):
            await pilot.press(str(number))
            assert screen.index == step
        await pilot.pause(0.05)
        no_overlap(app, screen)
        coach = screen.query_one("#rcoach")
        assert all(line.endswith("│") for line in region_text(app, coach)[1:-1])
        assert "▶3" in text_of(app)
        save(app, f"replay-coach-3-{lang}-120x40")
        await pilot.resize_terminal(80, 24)
        body = screen.query_one("#rbody")
        await wait_for(pilot, lambda: coach.region.y >= body.region.bottom, "the coach below")
        no_overlap(app, screen)
        # Two turns in short, the third (the replay is at it) whole: wrapped, never cut,
        # and the table keeps its rows.
        lines = wrapped_not_cut(app, coach)
        keys = [line[2:4] for line in lines[1:-1] if line[3:4].strip()]
        assert keys == [" 1", " 2", "▶3"], lines
        assert body.region.height >= 9
        words, panel = texts(lang), flat(app, coach)
        ended = words["coach.played"].format(moves="Q♣→S")
        keeps = words["gain.keeps_follow"].format(card="Q♣", target="J♥", pile=words["pile.S"])
        assert ended in panel and " ".join(keeps.split()) in panel, panel
        save(app, f"replay-coach-3-{lang}-80x24")


def move_then_play(replay: Replay) -> tuple[int, list[str]]:
    """A step of ``replay`` where seat 0 is to move and can lay one pile on another and
    then play a card: the step and those two actions (a better line the coach could give)."""
    for step in replay.steps:
        pos = step.match.position
        if step.match.phase != "playing" or pos.turn != 0 or pos.result is not None:
            continue
        for move in legal_actions(pos):
            if not isinstance(move, Move):
                continue
            after = step.match.apply(move).position
            play = next((a for a in legal_actions(after) if isinstance(a, Play)), None)
            if play is not None:
                return step.index, [move.text(), play.text()]
    raise AssertionError("no step with a pile's move and a play after it")


@pytest.mark.parametrize("size", [(80, 24), (140, 40)])
async def test_the_better_line_moves_a_pile_and_plays_a_card_and_esc_comes_back(
    size: tuple[int, int],
) -> None:
    """A crafted review (the screen's fetch seam) on a replay: its better line lays a pile
    on another, then plays a card from the hand; → ← step it, the replay's own keys leave
    it, Esc returns to what was played."""
    replay = build(record_of(played_match(seats=4)))
    step, line = move_then_play(replay)
    (src, dst), (card, onto) = line[0].split(">"), line[1].split(">")
    turn = {
        **REVIEW["seats"][0]["costliest"][0],
        "step": step,
        "hand": replay.steps[step].hand - 1,
        "position": {"hand": list(replay.steps[step].match.position.hands[0])},
        "better": line,
    }
    review = {**REVIEW, "seats": [seat_of(turn), None, None, None]}
    screen = ReplayScreen(
        replay, Look(), seat=0, url="http://127.0.0.1:9", fetch=lambda u, m: review
    )
    app = Viewer(screen)
    before = replay.steps[step].match.position
    piles = dict(zip(PILES, before.piles, strict=True))
    async with app.run_test(size=size) as pilot:
        await wait_for(
            pilot, lambda: screen.coach is not None and screen.coach.state == "ready", "the review"
        )
        await pilot.press("l")  # not at the turn: nothing
        assert screen.better is None
        await pilot.press("1")
        assert screen.index == step
        await wait_for(pilot, lambda: "l: Play the better line" in text_of(app), "the key")
        wrapped_not_cut(app, screen.query_one("#rcoach"))
        await pilot.press("l", "right")
        await wait_for(pilot, lambda: "Better line: move 1 of 2" in text_of(app), "move 1")
        assert f"seat 1 (Ana) moved pile {src} onto {dst}." in text_of(app)
        assert pile(screen, src) == [] and pile(screen, dst) == [*piles[dst], *piles[src]]
        assert screen.query_one(f"#pile-{dst}", PileView).target  # where it landed, marked
        await pilot.press("right")
        await wait_for(pilot, lambda: "Better line: move 2 of 2" in text_of(app), "move 2")
        assert pile(screen, onto)[-1] == card
        hands = screen.query_one("#hands")
        shown = flat(app, hands).split(" Bot 2 ")[0]  # Ana's hand
        assert Look().card(card) not in shown.split(), shown
        if size == (140, 40):
            save(app, "replay-better-line-140x40")
        await pilot.press("left", "left")
        await wait_for(pilot, lambda: "the turn as it began" in text_of(app), "the start")
        assert pile(screen, src) == list(piles[src]) and screen.index == step
        # The replay's own keys leave the better line (and do what they do).
        await pilot.press("right", "end")
        assert screen.better is None and screen.index == replay.last
        await pilot.press("1", "l", "right", "escape")
        assert screen.better is None and app.screen is screen and screen.index == step
        assert pile(screen, src) == list(piles[src]) and pile(screen, dst) == list(piles[dst])
        assert "Better line" not in text_of(app)
