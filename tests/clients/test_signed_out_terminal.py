"""A terminal a newer recovery code signed out gets back in: the line mode stops with a
non-zero status and names both ways in (``--recover CODE``, or running again as a new
player), and ``--recover`` works from it; the full screen opens the lobby as a new player,
says so, and takes the code there (``i``, then ``u``)."""

from __future__ import annotations

from pathlib import Path

from clients.net import GameClient
from clients.terminal.app import amain
from clients.terminal.tokens import TokenFile
from clients.terminal.tui.app import KingsCornerApp
from clients.terminal.tui.look import Look
from server.app import GameServer
from tests.clients.tui_driver import save, server, shows, until

__all__ = ["server"]  # the fixture, imported to override the shared one


async def signed_out(url: str, tokens: TokenFile) -> tuple[GameClient, str, str]:
    """Ana plays here (her token in ``tokens``), then makes a recovery code elsewhere: the
    token kept here is revoked. Returns the other device, the code and the revoked token."""
    here = GameClient(url, "Ana")
    await here.connect()
    await here.request({"type": "profile"}, "profile")  # kept, with a tag
    assert here.player is not None
    tokens.put_player(url, here.player, here.player_id)
    await here.close()
    elsewhere = GameClient(url, "Ana")
    elsewhere.player = here.player
    await elsewhere.connect()
    code = await elsewhere.recovery_code()
    return elsewhere, code, here.player


async def test_the_line_mode_says_how_to_get_back_in_and_recover_works(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    tokens = TokenFile(tmp_path / "tokens.json")
    elsewhere, code, revoked = await signed_out(url, tokens)
    try:
        argv = ["--url", url, "--name", "Ana", "--token-file", str(tokens.path)]
        lines: list[str] = []
        assert await amain([*argv, "--quick", "2"], write=lines.append) == 1
        said = "\n".join(lines)
        assert "signed out" in said and "--recover CODE" in said and "new player" in said
        assert tokens.player(url) is None  # the revoked token is forgotten
        # In the player's language, too.
        tokens.put_player(url, revoked, None)
        lines.clear()
        assert await amain([*argv, "--lang", "es", "--quick", "2"], write=lines.append) == 1
        assert "Vuelve a ser tú con: kings-corner play --recover" in "\n".join(lines)
        # The way in it names: --recover from a device whose token was revoked.
        tokens.put_player(url, revoked, None)
        lines.clear()
        assert await amain([*argv, "--recover", code], write=lines.append) == 0, lines
        assert any(line.startswith("You are Ana#") for line in lines), lines
        assert tokens.player_id(url) == elsewhere.player_id
    finally:
        await elsewhere.close()


async def test_the_full_screen_opens_the_lobby_as_a_new_player_and_takes_the_code(
    server: GameServer, url: str, tmp_path: Path
) -> None:
    tokens = TokenFile(tmp_path / "tokens.json")
    elsewhere, code, _ = await signed_out(url, tokens)
    client = GameClient(url, "Ana", reconnect=True)
    client.player = tokens.player(url)
    app = KingsCornerApp(client, Look(), tokens=tokens)
    try:
        async with app.run_test(size=(80, 24)) as pilot:
            await shows(pilot, "This device was signed out")
            await shows(pilot, "Press i, then u")
            assert app.return_code is None and app.is_running
            assert app.client.player_id != elsewhere.player_id
            save(app, "signed-out-lobby-80x24")
            await pilot.press("i")
            await shows(pilot, "u  use a recovery code")
            await pilot.press("u")
            await shows(pilot, "Recovery code")
            await pilot.press(*code)
            await pilot.press("enter")
            await shows(pilot, "Welcome back, Ana#")
            await until(
                pilot,
                lambda: tokens.player_id(url) == elsewhere.player_id,
                what="the identity kept",
            )
            await pilot.press("ctrl+q")
    finally:
        await app.client.close()
        await elsewhere.close()
