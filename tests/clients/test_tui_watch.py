"""A spectator's full screen: the table redrawn in place as the players move, no hand,
the table log in the viewer's language (Czech here), and the chat."""

from __future__ import annotations

from pathlib import Path

from clients.net import GameClient
from clients.terminal.app import Entry
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.look import Look
from tests.clients.tui_driver import one_turn_deck, save, screen_text, server, shows, until

__all__ = ["server"]  # the fixture, imported to override the shared one


async def test_a_spectator_follows_the_table_in_czech_and_chats(url: str, tmp_path: Path) -> None:
    host = GameClient(url, "Ana")
    await host.connect()
    code = await host.create(
        seats=2, bots=[None, "random"], decks=[list(one_turn_deck())], dealer=1
    )
    client = GameClient(url, "Eva", reconnect=True)
    app = KingsCornerApp(
        client,
        Look(lang="cs"),
        entry=Entry(mode="watch", room=code),
        tokens=TokenFile(tmp_path / "t.json"),
    )
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await shows(pilot, "Čeká se, až hostitel zahájí zápas.")
        assert client.seat is None and client.role == "spectator"
        await host.start()
        screen = await shows(pilot, "Balíček 34")
        assert "Sledujete tento stůl." in screen
        assert "Vaše ruka" not in screen and "7♥" not in screen  # no hand is shown
        assert "Zápas začíná; rozdává Bot 2." in screen

        await host.act("7H>N")
        screen = await shows(pilot, "Ana zahrál(a) 7♥ na N.")
        assert "8♣ 7♥" in screen  # N redrawn in place, base first
        await host.act("S>NE")
        await shows(pilot, "Ana přesunul(a) hromádku S na")

        # The keys of play mean nothing to a spectator: nothing is sent.
        sent_before = len(host.frames)
        await pilot.press("6", "s", "8", "e")
        await pilot.pause(0.2)
        assert host.game is not None and host.game["piles"]["N"] == ["8C", "7H"]
        assert len(host.frames) == sent_before

        await pilot.press("c")
        await pilot.press(*"ahoj", "enter")
        await host.until(lambda c: bool(c.chat))
        assert [(f["name"], f["text"]) for f in host.chat] == [("Eva", "ahoj")]
        await shows(pilot, "Eva: ahoj")
        await host.send({"type": "chat", "text": "vítej"})
        await shows(pilot, "Ana: vítej")
        save(app, "spectator-cs-80x24")
        # The typed chat did not move anything either.
        await until(pilot, lambda: "ahoj" not in screen_text(app).split("Chat")[0])
        await pilot.press("ctrl+q")
    await client.close()
    await host.close()
