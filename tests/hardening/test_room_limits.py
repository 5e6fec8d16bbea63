"""Limits that cover a whole room: its chat budget, and a kick that bans the person (their
identity), not only the seat token they had."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from clients.net import GameClient, ServerError
from server.config import Settings

from .helpers import clients_of, eventually, fast_settings, serving


def test_the_shipped_chat_budget() -> None:
    s = Settings()
    assert (s.room_chat_rate, s.room_chat_burst) == (5.0, 10)


async def test_a_room_accepts_its_chat_budget_from_everyone_together() -> None:
    settings = fast_settings(room_chat_rate=0.01)
    async with serving(settings) as game, clients_of(game) as pool:
        ana = await pool.new("Ana")
        code = await ana.create(seats=2)
        ben = await pool.new("Ben")
        await ben.join(code)
        # Two people, each well within their own rate, share one budget of 10.
        for i in range(8):
            await ana.send({"type": "chat", "text": f"a{i}"})
            await ben.send({"type": "chat", "text": f"b{i}"})
        # Each line is answered: by the line itself, to everyone, or by an error.
        await eventually(lambda: len(ana.chat) + len(ana.errors) + len(ben.errors) == 16)
        errors = ana.errors + ben.errors
        assert len(errors) == 6
        assert {e["code"] for e in errors} == {"rate_limited"}
        assert all("chat" in e["message"] for e in errors)
        await asyncio.sleep(0.1)
        # Refused lines reached nobody.
        assert len(ana.chat) == len(ben.chat) == 10
        assert [m["text"] for m in ana.chat] == [m["text"] for m in ben.chat]
        # Another room has its own budget.
        cy = await pool.new("Cy")
        await cy.create(seats=2)
        await cy.send({"type": "chat", "text": "hello"})
        await cy.until(lambda cl: len(cl.chat) == 1)


async def test_the_chat_budget_refills() -> None:
    settings = fast_settings(room_chat_rate=50.0, room_chat_burst=1)
    async with serving(settings) as game, clients_of(game) as pool:
        ana = await pool.new("Ana")
        await ana.create(seats=2)
        await ana.send({"type": "chat", "text": "one"})
        await ana.send({"type": "chat", "text": "two"})
        await ana.until(lambda cl: len(cl.chat) == 1 and len(cl.errors) == 1)
        await asyncio.sleep(0.1)
        await ana.send({"type": "chat", "text": "three"})
        await ana.until(lambda cl: len(cl.chat) == 2)
        assert [m["text"] for m in ana.chat] == ["one", "three"]


@pytest.mark.parametrize("kind", ["memory", "redis"])
async def test_a_kicked_person_cannot_sit_again_with_the_same_identity(
    kind: str, redis_url: str, redis_prefix: str
) -> None:
    store: dict[str, Any] = {}
    if kind == "redis":
        store = {"redis_url": redis_url, "redis_prefix": redis_prefix}
    async with serving(fast_settings(**store)) as game, clients_of(game) as pool:
        host = await pool.new("Host")
        code = await host.create(seats=4)
        guest = await pool.new("Guest")
        await guest.join(code)
        identity = guest.player
        await host.send({"type": "kick", "seat": guest.seat})
        await guest.wait_for(lambda f: f["type"] == "kicked")
        await guest.close()
        assert host.doc is not None and not host.doc["room"]["locked"]

        async def come_back() -> GameClient:
            again = GameClient(pool.url, "Guest again")
            again.player = identity  # the same person: the same identity token in hello
            await again.connect()
            pool.made.append(again)
            return again

        again = await come_back()
        assert again.player == identity
        with pytest.raises(ServerError) as refused:
            await again.join(code)
        assert refused.value.code == "kicked"
        # Into any free seat or a chosen one: refused alike, and nothing changed.
        with pytest.raises(ServerError) as refused:
            await again.join(code, seat=3)
        assert refused.value.code == "kicked"
        live = game.lobby.rooms[code]
        assert [s is not None for s in live.room.seats] == [True, False, False, False]
        # Someone else still gets in.
        other = await pool.new("Other")
        await other.join(code)
        assert other.seat == 1
        # The ban is part of the room's history: a process that loads it anew knows it.
        await host.close()
        await other.close()
        await game.lobby.drop(code)
        with pytest.raises(ServerError) as refused:
            await (await come_back()).join(code)
        assert refused.value.code == "kicked"
