"""The full-screen client plays a whole hand by key presses (and clicks) against a real
server: choose a card by its code, by the cursor or by a click, then a pile by its key;
move a pile; ask for a hint; read the result."""

from __future__ import annotations

import re
from pathlib import Path

from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.board import HandView
from clients.terminal.tui.look import Look
from clients.words import REASONS
from server.app import GameServer
from tests.clients.tui_driver import (
    HEAVY,
    RUN,
    one_turn_deck,
    save,
    server,
    shows,
    until,
)

__all__ = ["server"]  # the fixture, imported to override the shared one


def hand_of(app: KingsCornerApp) -> list[str]:
    game = app.client.game
    return list(game["hand"]) if game is not None else []


async def test_a_whole_hand_played_by_keys_clicks_and_a_pile_move(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    entry = Entry(mode="create", seats=2, bots=("random",), decks=(one_turn_deck(),), dealer=1)
    client = GameClient(url, "Ana", reconnect=True)
    tokens = TokenFile(tmp_path / "tokens.json")
    app = KingsCornerApp(client, Look(), entry=entry, tokens=tokens)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shows(pilot, "Waiting room · room code")
        code = client.room
        assert code is not None and f"--join {code}" in screen
        saved = tokens.get(url, code)
        assert saved is not None and saved.seat == 0
        await pilot.press("s")  # the host starts
        screen = await shows(pilot, "Your hand (7)")
        assert "Your turn" in screen
        # The hand is sorted by suit, highest first: ♠ then ♥.
        hand_line = next(line for line in screen.splitlines() if "6♠" in line)
        order = ["6♠", "4♠", "2♠", "7♥", "5♥", "3♥", "A♥"]
        assert [hand_line.index(card) for card in order] == sorted(
            hand_line.index(card) for card in order
        )

        # 7♥ by its code: 7 then h. The server's legal targets are marked ▸, N among them.
        await pilot.press("7", "h")
        screen = await shows(pilot, "7♥ chosen")
        assert "▸8 N" in screen
        assert "▸6 E" not in screen  # 7♥ does not fit on 9♦
        await pilot.press("8")
        await until(pilot, lambda: "7H" not in hand_of(app), what="7♥ played")
        assert client.game is not None and client.game["piles"]["N"] == ["8C", "7H"]
        await shows(pilot, "Ana played 7♥ on N.")

        # The cursor: it starts on the first card (6♠); Enter chooses it.
        await pilot.press("enter")
        await shows(pilot, "6♠ chosen")
        await pilot.press("8")
        await until(pilot, lambda: "6S" not in hand_of(app), what="6♠ played")

        # A click on 5♥ in the hand, then a click on the pile N.
        hand = app.screen.query_one("#hand", HandView)
        offset = hand.offset_of("5H")
        assert offset is not None
        await pilot.click("#hand", offset=(offset[0] + 1 + 1, offset[1] + 1))
        await shows(pilot, "5♥ chosen")
        await pilot.click("#pile-N")
        await until(pilot, lambda: "5H" not in hand_of(app), what="5♥ played by clicks")

        # A pile moves whole: m, then S (the K♠ pile), then the empty corner NE.
        await pilot.press("m", "2")
        screen = await shows(pilot, "Pile S chosen")
        assert "▸9 NE" in screen and "▸7 NW" in screen
        await pilot.press("9")
        await until(
            pilot,
            lambda: client.game is not None and client.game["piles"]["NE"] == ["KS"],
            what="the K♠ pile moved to NE",
        )
        await shows(pilot, "Ana moved pile S onto NE.")

        # A hint from the server, shown in words (it highlights, it does not choose).
        await pilot.press("h")
        await shows(pilot, "Hint: ")
        # ... and why, in the tip's own words (the reason's cards and piles filled in).
        note = str(getattr(app.screen, "note", ""))
        patterns = [
            re.sub(r"\\\{\w+\\\}", ".+", re.escape(text)) for text in REASONS["en"].values()
        ]
        assert any(re.search(p, note) for p in patterns), note

        # A card that is not in the hand is refused here, before anything is sent.
        await pilot.press("escape", "q", "s")
        await shows(pilot, "Q♠ is not in your hand.")

        # The rest by their codes; the last one empties the hand and ends the match.
        for keys in (("4", "s"), ("3", "h"), ("2", "s"), ("a", "h")):
            before = len(hand_of(app))
            await pilot.press("escape", *keys, "8")

            def played(b: int = before) -> bool:
                return len(hand_of(app)) == b - 1

            await until(pilot, played, what=f"{keys}")
        screen = await shows(pilot, "Match over: Ana won.")
        assert "Hand 1 over: Ana went out." in screen
        assert "Bot 2: 34 penalty" in screen
        for card in ("K♥", "K♣", "Q♦"):  # the bot's hand is public now
            assert card in screen
        assert client.game is not None and client.game["totals"] == [0, 34]
        save(app, "result-80x24")

        # r votes for a rematch; the only person voted, so it starts at once.
        await pilot.press("r")

        def rematch_started() -> bool:
            events = (e for f in client.frames if f["type"] == "patch" for e in f.get("log", []))
            return any(e.get("ev") == "started" and e.get("rematch") for e in events)

        await until(pilot, rematch_started, what="the rematch")
        game = client.game
        assert game is not None and game["hand_no"] == 1
        # The same stacked deck is dealt again, Ana's hand untouched until she plays. The bot
        # may hold the run and go out in its first turn, before a busy machine looks here.
        assert set(hand_of(app)) in (set(RUN), set(HEAVY))
        if game["phase"] == "playing":
            await shows(pilot, "Your hand (7)")
            assert game["totals"] == [0, 0]
        else:
            assert game["phase"] == "finished" and game["totals"] == [34, 0], game
        await pilot.press("ctrl+q")
    await client.close()
