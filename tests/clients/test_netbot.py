"""Networked bots: ordinary clients that play whole matches against a real server."""

from __future__ import annotations

import asyncio

from clients.bot.run import BotConfig, config_from, parser, run_bot
from server.app import GameServer


async def test_two_networked_bots_play_a_whole_match(server: GameServer, url: str) -> None:
    code: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    host = BotConfig(
        url=url, name="Hosty", level="medium", seed="a", mode="create", seats=2, target=8, delay=0
    )
    host_task = asyncio.create_task(run_bot(host, on_room=code.set_result))
    room = await asyncio.wait_for(code, 10)
    guest = BotConfig(
        url=url, name="Guesty", level="easy", seed="b", mode="join", room=room, delay=0
    )
    games = await asyncio.wait_for(asyncio.gather(host_task, run_bot(guest)), 25)

    live = server.lobby.rooms[room]
    seats = live.room.seats
    # Both seats were played by the networked bots as people, never by the server's bots.
    assert [s.name if s else None for s in seats] == ["Hosty", "Guesty"]
    assert all(s is not None and s.kind == "human" and not s.away for s in seats)
    match = live.room.match
    assert match is not None and match.phase == "finished"
    for seat, game in enumerate(games):
        assert game["you"] == seat
        assert game["phase"] == "finished"
        assert game["totals"] == list(match.totals)
        assert max(game["totals"]) >= 8
        assert game["winners"] == list(match.winners)
    # Every action of the match was taken by one of the two seats through its connection.
    assert live.room.turns > 0


async def test_quick_play_bot_plays_against_server_bots(server: GameServer, url: str) -> None:
    rooms: list[str] = []
    config = BotConfig(url=url, name="Quick", level="heuristic", mode="quick", seats=2, delay=0)
    game = await asyncio.wait_for(run_bot(config, on_room=rooms.append), 25)
    assert len(rooms) == 1
    assert game["phase"] == "finished"
    assert max(game["totals"]) >= 25
    mine = server.lobby.rooms[rooms[0]].room.seats[game["you"]]
    assert mine is not None and mine.name == "Quick" and mine.kind == "human"


def test_command_line_options() -> None:
    args = parser().parse_args(["--join", "abcdef", "--level", "hard", "--seat", "2"])
    config = config_from(args)
    assert (config.mode, config.room, config.seat, config.level) == ("join", "abcdef", 1, "hard")
    assert config.name == "hard bot"
    create = config_from(parser().parse_args(["--create", "--seats", "3", "--wait", "5"]))
    assert (create.mode, create.seats, create.wait) == ("create", 3, 5.0)
    quick = config_from(parser().parse_args(["--quick", "2", "--name", "Robo"]))
    assert (quick.mode, quick.seats, quick.name) == ("quick", 2, "Robo")
