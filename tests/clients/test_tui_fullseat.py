"""The full-screen client as a full seat: every room starts with an empty log and chat, a
hint highlights without choosing, and typed card codes read the same after it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from textual.widgets import RichLog

from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.tokens import TokenFile
from clients.terminal.tui import keys
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.game import GameScreen
from clients.terminal.tui.look import Look
from server.app import GameServer
from tests.clients.tui_driver import RUN, one_turn_deck, save, server, shows, until

__all__ = ["server"]  # the fixture, imported to override the shared one

PILES = {"N": ["8C"], "E": ["9D"], "S": ["KS"], "W": ["2D"]} | {
    p: [] for p in ("NE", "SE", "SW", "NW")
}


def typed(picker: keys.Picker, presses: str, hand: list[str]) -> tuple[keys.Picker, list[Any]]:
    outcomes = []
    for key in presses:
        picker, outcome = keys.press(picker, key, hand, PILES)
        outcomes.append(outcome)
    return picker, outcomes


def test_a_typed_code_reads_the_same_from_nothing_chosen() -> None:
    hand = list(RUN)
    # Nothing chosen: a digit starts a card code, its suit completes it, the next digit is
    # the pile. 2♠ then 4 is 2♠ onto W, whatever was typed and forgotten before.
    for before in ("", "q", "7", "m", "1"):
        picker, _ = typed(keys.NOTHING, before, hand)
        picker, _ = keys.press(picker, "escape", hand, PILES)
        picker, outcomes = typed(picker, "2s4", hand)
        assert outcomes[-1] == keys.Act("2S>W"), before
        assert picker == keys.NOTHING
    # A ten by 1 then 0, or by t.
    picker, _ = typed(keys.NOTHING, "10", hand)
    assert picker.typed == "10"
    picker, _ = typed(keys.NOTHING, "t", hand)
    assert picker.typed == "10"
    # With a card chosen a digit is a pile key (the status line says so).
    picker, outcomes = typed(keys.Picker(card="7H"), "8", hand)
    assert outcomes == [keys.Act("7H>N")]


def log_lines(app: KingsCornerApp, pane: str) -> str:
    widget = app.screen.query_one(pane, RichLog)
    return "\n".join(strip.text for strip in widget.lines)


async def test_a_new_room_starts_clean_and_a_hint_only_highlights(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    entry = Entry(mode="create", seats=2, bots=("random",), decks=(one_turn_deck(),), dealer=1)
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    sent: list[dict[str, Any]] = []
    real_send = client.send

    async def recording(message: dict[str, Any]) -> None:
        sent.append(message)
        await real_send(message)

    client.send = recording  # type: ignore[method-assign]
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room · room code")
        await pilot.press("c", *"old words", "enter")
        await until(pilot, lambda: "old words" in log_lines(app, "#chat"), what="the chat")
        await pilot.press("s")
        await shows(pilot, "Your hand (7)")

        # The hint: words, the cursor on its card, its pile marked; nothing chosen.
        await pilot.press("h")
        await shows(pilot, "Hint: play")
        screen = app.screen
        assert isinstance(screen, GameScreen)
        assert screen.picker == keys.NOTHING
        hinted = next(m for m in reversed(client.frames) if m["type"] == "hint")
        card = str(hinted["text"]).partition(">")[0]
        assert screen.cursor == card
        save(app, "hint-80x24")
        # ... so 2 s 4 is 2♠ onto W, as typed (the server refuses it: 2 on 2♦).
        await pilot.press("2", "s")
        await shows(pilot, "2♠ chosen")
        await pilot.press("4")
        await until(pilot, lambda: any(m["type"] == "act" for m in sent), what="the act")
        acts = [m["action"] for m in sent if m["type"] == "act"]
        assert acts == [{"type": "play", "card": "2S", "pile": "W"}]
        await pilot.press("escape", "7", "h", "8")
        await shows(pilot, "Ana played 7♥ on N.")

        # Leave for good, then a new room from the form: no old log line, no old chat.
        await pilot.press("l", "l")
        await shows(pilot, "You left room")
        await pilot.press("n")
        await shows(pilot, "New room")
        await pilot.click("#create")
        await shows(pilot, "Waiting room · room code")
        await until(pilot, lambda: isinstance(app.screen, GameScreen), what="the room")
        assert "played" not in log_lines(app, "#log")
        assert "old words" not in log_lines(app, "#chat")
        screen_now = app.screen
        assert isinstance(screen_now, GameScreen)
        await pilot.press("ctrl+q")
    await client.close()
