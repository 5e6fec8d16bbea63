"""The full-screen client in a room that draws until a card can be played: the summary
names the rule, ``d`` draws while nothing fits, the turn ends with ``e`` once a card was
played."""

from __future__ import annotations

from pathlib import Path

from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.look import Look
from server.app import GameServer
from tests.clients.tui_driver import log_text, logged, save, server, shows, until
from tests.engine.support import stacked_deck

__all__ = ["server"]  # the fixture, imported to override the shared one

#: Seat 1 deals, so Ana (seat 0) moves first holding cards that fit nowhere, on a table
#: where no pile can move; the stock gives 10♠ (no use either), then 8♦ (onto 9♣).
DECK = stacked_deck(
    ["2C 2S 3C 3S AC AS 10C", "2D 2H 3H AD AH 4D 4H"],
    "9C 5D 7H QS",
    dealer=1,
    stock="10S 8D",
)


def hand_of(app: KingsCornerApp) -> list[str]:
    game = app.client.game
    return list(game["hand"]) if game is not None else []


async def test_d_draws_until_a_card_can_be_played_then_e_ends_the_turn(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    entry = Entry(
        mode="create",
        seats=2,
        bots=("random",),
        options={"draw": "until_playable"},
        decks=(tuple(DECK),),
        dealer=1,
    )
    client = GameClient(url, "Ana", reconnect=True)
    app = KingsCornerApp(client, Look(), entry=entry, tokens=TokenFile(tmp_path / "t.json"))
    async with app.run_test(size=(80, 24)) as pilot:
        await shows(pilot, "Waiting room · room code")
        await pilot.press("s")
        screen = await shows(pilot, "Your turn: nothing can be played, d draws.")
        assert "draw until playable" in screen
        assert "d draw" in screen  # the keys line
        save(app, "until-playable-80x24")
        assert client.game is not None and client.game["legal"] == ["draw"]
        await pilot.press("e")  # refused: nothing played yet
        await shows(pilot, "Play a card from your hand")
        await pilot.press("d")
        await until(pilot, lambda: "10S" in hand_of(app), what="10♠ drawn")
        await shows(pilot, "Ana drew a card.")
        assert client.game is not None and client.game["legal"] == ["draw"]
        await pilot.press("d")
        await until(pilot, lambda: "8D" in hand_of(app), what="8♦ drawn")
        await shows(pilot, "Your turn: play a card before ending it.")
        # Two draws in a row are one line of the log, not a line a card.
        await logged(pilot, "Ana drew 2 cards.")
        assert log_text(app).count("Ana drew") == 1
        await pilot.press("8", "d", "8")  # 8♦ onto N
        await until(pilot, lambda: "8D" not in hand_of(app), what="8♦ played")
        assert client.game is not None and "end" in client.game["legal"]
        # Nothing else fits: d draws again, and e ends the turn; the status says both.
        assert "draw" in client.game["legal"]
        await shows(pilot, "Nothing fits: d draws, e ends your turn.")
        save(app, "until-playable-draw-or-end-80x24")
        await pilot.press("e")
        await logged(pilot, "Ana ended the turn.")
        assert len(hand_of(app)) == 8  # 7 dealt, 2 drawn, 1 played: nothing drawn to end
