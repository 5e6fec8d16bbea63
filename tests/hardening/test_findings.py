"""Bugs and missing limits the hardening work found, now fixed: each test pins the fix."""

from __future__ import annotations

from typing import Any

import pytest

from clients.net import GameClient

from .helpers import clients_of, default_settings, fast_settings, serving


async def test_a_refused_sit_leaves_a_spectator_watching() -> None:
    async with serving(fast_settings()) as game, clients_of(game) as pool:
        host = await pool.new("Ana")
        code = await host.create(seats=2)
        guest = await pool.new("Ben")
        await guest.join(code)
        watcher = await pool.new("Wes")
        await watcher.join(code, spectate=True)
        await watcher.send({"type": "sit", "seat": 0})
        error = await watcher.wait_for(lambda f: f["type"] == "error")
        assert error["code"] == "seat_taken"
        # Still a spectator: a resync brings a snapshot, and the room's changes still arrive.
        reply = await watcher.request({"type": "resync"}, "snapshot")
        assert reply["room"] == code
        assert game.lobby.rooms[code].spectators == 1


WRONG_TYPES = [
    '{"type": "hello", "version": "1"}',
    '{"type": "hello", "version": true}',
    '{"type": "hello", "version": 1.0}',
    '{"type": "create", "options": {"target": true}}',
    '{"type": "create", "options": {"seats": "2"}}',
    '{"type": "create", "options": {"public": "yes"}}',
    '{"type": "create", "options": {"turn_timer": "60"}}',
    '{"type": "join", "room": "ACDEFG", "spectate": "yes"}',
    '{"type": "join", "room": "ACDEFG", "seat": "1"}',
    '{"type": "act", "seq": "5", "action": {"type": "end_turn"}}',
]


async def test_wrong_types_are_refused_not_coerced() -> None:
    async with serving(fast_settings()) as game, clients_of(game) as pool:
        c = await pool.new("Ana")
        accepted = []
        for frame in WRONG_TYPES:
            start = len(c.frames)
            await c.send_raw(frame)
            reply = await c.wait_for(lambda f: True)
            if reply["type"] != "error" or reply["code"] != "bad_message":
                accepted.append((frame, reply["type"], reply.get("code")))
            # Leave whatever room the frame created, to try the next one from the lobby.
            if c.room is not None:
                await c.request({"type": "leave"}, "left")
            assert len(c.frames) > start
        assert not accepted, accepted


async def test_one_connection_cannot_create_rooms_without_bound() -> None:
    # The rate limit is lifted: it is a different limit.
    settings = default_settings(rate=1e6, burst=10**6)
    async with serving(settings) as game, clients_of(game) as pool:
        c = await pool.new("Ana")
        refused = None
        for _ in range(100):
            await c.send({"type": "create", "options": {"seats": 2}})
            reply = await c.wait_for(lambda f: f["type"] in ("snapshot", "error"))
            if reply["type"] == "error":
                refused = reply
                break
            await c.request({"type": "leave"}, "left")
        assert refused is not None, f"{len(game.lobby.rooms)} rooms created by one client"


async def test_hints_on_one_turn_are_limited(monkeypatch: pytest.MonkeyPatch) -> None:
    from server.bot_pool import BotPool

    searches: list[int] = []
    real_hint = BotPool.hint

    async def counted(self: BotPool, view: Any) -> Any:
        searches.append(1)
        return await real_hint(self, view)

    # Hints are searched in the bot workers: count the searches the server asks for.
    monkeypatch.setattr(BotPool, "hint", counted)
    settings = default_settings(bot_delay=0.0, hints_per_turn=1)
    async with serving(settings) as game, clients_of(game) as pool:
        c: GameClient = await pool.new("Ana")
        code = await c.create(seats=3, target=500, dealer=2, bots=[None, "random", None])
        other = await pool.new("Ben")
        await other.join(code)
        await other.ready()
        await c.start()
        await c.until(lambda cl: cl.my_turn)
        start = len(c.frames)

        def answers(cl: GameClient) -> list[dict[str, Any]]:
            return [f for f in cl.frames[start:] if f["type"] in ("hint", "error")]

        # Asking again about the same position costs no search.
        for _ in range(10):
            await c.send({"type": "hint"})
        await c.until(lambda cl: len(answers(cl)) == 10, timeout=30)
        assert {f["text"] for f in answers(c)} == {answers(c)[0]["text"]}
        assert len(searches) == 1
        # The room changes (Ben leaves) on the same turn: a new search is past the limit.
        await other.close()
        await c.until(lambda cl: not cl.doc["room"]["seats"][2]["connected"])  # type: ignore[index]
        error = await c.request({"type": "hint"}, "error")
        assert error["code"] == "rate_limited" and c.my_turn
        assert len(searches) == 1
