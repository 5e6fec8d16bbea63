"""Operations: metrics, structured logs, health and readiness, the admin view."""

from __future__ import annotations

import asyncio
import io
import json
import logging
import random
import re
import sys
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from clients.net import GameClient
from server import logs
from server.admin import main as admin_main
from server.app import GameServer, port_of, start_server
from tests.redis_helpers import PrivateRedis

from .audit import CARD
from .conftest import make_settings
from .test_match_flow import play_until_finished


def get(port: int, path: str, token: str | None = None) -> tuple[int, str]:
    headers = {"Authorization": f"Bearer {token}"} if token is not None else {}
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", headers=headers)
    try:
        with urllib.request.urlopen(request, timeout=5) as reply:
            return int(reply.status), reply.read().decode()
    except urllib.error.HTTPError as exc:
        return int(exc.code), exc.read().decode()


def sample(text: str, name: str, labels: str = "") -> float:
    """The value of one sample in Prometheus text format (0 when absent)."""
    pattern = re.escape(name + (("{" + labels + "}") if labels else "")) + r" ([0-9.e+]+)"
    found = re.search(pattern, text)
    return float(found.group(1)) if found else 0.0


async def two_players(game: GameServer, **options: object) -> tuple[GameClient, GameClient]:
    url = f"ws://127.0.0.1:{port_of(game)}/"
    a, b = GameClient(url, "Ana"), GameClient(url, "Ben")
    await a.connect()
    await b.connect()
    code = await a.create(seats=2, **options)
    await b.join(code)
    await b.ready()
    await a.start()
    await b.until(lambda c: c.game is not None)
    return a, b


async def test_metrics_move_as_a_match_is_played() -> None:
    game = await start_server(make_settings())
    try:
        port = port_of(game)
        _, before = await asyncio.to_thread(get, port, "/metrics")
        assert sample(before, "kc_actions_total", 'code="",outcome="accepted"') == 0
        a, b = await two_players(game, target=5)
        _, during = await asyncio.to_thread(get, port, "/metrics")
        assert sample(during, "kc_connections", 'role="player"') == 2
        assert sample(during, "kc_rooms", 'phase="playing"') == 1
        await play_until_finished([a, b], random.Random(3))
        await a.act("end")  # refused: the match is over
        _, after = await asyncio.to_thread(get, port, "/metrics")
        accepted = sample(after, "kc_actions_total", 'code="",outcome="accepted"')
        assert accepted > 10
        assert sample(after, "kc_act_to_patch_seconds_count") == accepted
        assert sample(after, "kc_actions_total", 'code="match_over",outcome="refused"') == 1
        assert sample(after, "kc_sent_bytes_total") > 1000
        assert sample(after, "kc_store_operation_seconds_count", 'operation="append"') >= accepted
        assert sample(after, "kc_rooms", 'phase="finished"') == 1
        assert "room=" not in after and "Ana" not in after  # bounded labels only
        await a.close()
        await b.close()
    finally:
        await game.shutdown()


async def test_bot_decisions_are_timed() -> None:
    game = await start_server(make_settings())
    try:
        url = f"ws://127.0.0.1:{port_of(game)}/"
        a = GameClient(url, "Ana")
        await a.connect()
        await a.create(seats=2, bots=[None, "heuristic"])
        await a.start()
        await a.until(lambda c: c.my_turn)
        await a.act("end")
        await a.until(lambda c: c.my_turn)
        _, text = await asyncio.to_thread(get, port_of(game), "/metrics")
        assert sample(text, "kc_bot_decision_seconds_count", 'level="heuristic"') >= 1
        await a.close()
    finally:
        await game.shutdown()


async def test_logs_of_a_played_match_hold_no_secret_and_no_hidden_card(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    caplog.set_level(logging.DEBUG)
    # As server.logs.setup does: websockets would log every frame at DEBUG.
    monkeypatch.setattr(logging.getLogger("websockets"), "level", logging.WARNING)
    game = await start_server(make_settings())
    try:
        a, b = await two_players(game, target=5)
        mover = a if a.my_turn else b
        card = next(c for c in mover.game["hand"] if c[0] != "K")  # type: ignore[index]
        refusal = await mover.act({"type": "play", "card": card, "pile": "NE"})
        assert refusal["code"] == "corner_needs_king"
        await play_until_finished([a, b], random.Random(8))
        tokens = [a.token, b.token]
        await a.close()
        await b.close()
    finally:
        await game.shutdown()
    formatter = logs_formatter()
    lines = [formatter.format(record) for record in caplog.records]
    assert any('"code": "corner_needs_king"' in line for line in lines)
    # A person running the server sees it working: connections, rooms and matches at INFO.
    messages = [json.loads(line)["message"] for line in lines]
    for seen in ("connection opened", "room created", "match finished", "connection closed"):
        assert seen in messages, seen
    assert messages.count("connection opened") == messages.count("connection closed") == 2
    public: set[str] = set()
    for line in lines:
        entry = json.loads(line)
        assert entry["level"] != "ERROR", line
        for token in tokens:
            assert token is not None and token not in line
        if str(entry["message"]).startswith("accepted "):
            public.update(CARD.findall(entry["message"]))
            continue
        assert not set(CARD.findall(line)) - public, line


@contextmanager
def json_logs() -> Iterator[io.StringIO]:
    """The server's own logging (``logs.setup``: JSON lines, its context filter) writing
    into a buffer; the root logger is put back as it was afterwards."""
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    websockets = logging.getLogger("websockets")
    websockets_level = websockets.level
    written = io.StringIO()
    stderr, sys.stderr = sys.stderr, written
    try:
        logs.setup("INFO", "json")  # the handler writes to the stream stderr is now
    finally:
        sys.stderr = stderr
    try:
        yield written
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
        websockets.setLevel(websockets_level)


def entries(written: io.StringIO) -> list[dict[str, object]]:
    return [json.loads(line) for line in written.getvalue().splitlines()]


def test_a_value_the_call_gives_wins_over_the_log_context() -> None:
    log = logging.getLogger("server.test")
    with json_logs() as written:
        token = logs.context.set({"conn": "p1-7", "room": None, "seat": 2})
        try:
            log.info("named", extra={"room": "ABC123", "seat": None})
            log.info("unnamed")
        finally:
            logs.context.reset(token)
    named, unnamed = entries(written)
    assert named["message"] == "named" and unnamed["message"] == "unnamed"
    assert named["room"] == "ABC123" and named["seat"] is None and named["conn"] == "p1-7"
    assert unnamed["room"] is None and unnamed["seat"] == 2 and unnamed["conn"] == "p1-7"


async def test_the_room_created_line_names_the_room() -> None:
    # The line is logged while the creating connection's context says it is in no room.
    with json_logs() as written:
        game = await start_server(make_settings())
        try:
            a = GameClient(f"ws://127.0.0.1:{port_of(game)}/", "Ana")
            await a.connect()
            code = await a.create(seats=2)
            await a.close()
        finally:
            await game.shutdown()
    created = [e for e in entries(written) if e["message"] == "room created"]
    assert [e["room"] for e in created] == [code], created
    assert str(created[0]["conn"]).startswith(game.settings.process_id), created


def logs_formatter() -> logging.Formatter:
    """The JSON formatter the server installs, with its context filter."""
    handler = logging.StreamHandler()
    root = logging.getLogger()
    saved = root.handlers[:], root.level
    try:
        logs.setup("DEBUG", "json")
        handler = root.handlers[0]  # type: ignore[assignment]
    finally:
        root.handlers[:], level = saved
        root.setLevel(level)
    assert handler.formatter is not None
    return handler.formatter


async def test_admin_endpoints_refuse_without_the_token_and_work_with_it() -> None:
    game = await start_server(make_settings(admin_token="s3cret-admin", tick=0.1))
    disabled = await start_server(make_settings())
    try:
        port = port_of(game)
        assert (await asyncio.to_thread(get, port_of(disabled), "/admin/rooms", "x"))[0] == 404
        assert (await asyncio.to_thread(get, port, "/admin/rooms"))[0] == 401
        assert (await asyncio.to_thread(get, port, "/admin/rooms", "wrong"))[0] == 401
        a, b = await two_players(game)
        status, body = await asyncio.to_thread(get, port, "/admin/rooms", "s3cret-admin")
        assert status == 200
        rooms = json.loads(body)["rooms"]
        assert [r["room"] for r in rooms] == [a.room]
        assert rooms[0]["phase"] == "playing" and rooms[0]["seats"][1]["name"] == "Ben"
        # Kick Ben's connection, then close the room.
        await asyncio.sleep(0.3)  # presence heartbeat
        status, body = await asyncio.to_thread(get, port, "/admin/rooms", "s3cret-admin")
        ben = next(m for m in json.loads(body)["rooms"][0]["members"] if m["seat"] == 1)
        path = f"/admin/connections/{ben['conn']}/kick"
        assert (await asyncio.to_thread(get, port, path, "s3cret-admin"))[0] == 200
        await b.until(lambda c: c.close_code is not None)
        path = f"/admin/rooms/{a.room}/close"
        assert (await asyncio.to_thread(get, port, path, "bad"))[0] == 401
        assert (await asyncio.to_thread(get, port, path, "s3cret-admin"))[0] == 200
        await a.until(lambda c: any(f["type"] == "kicked" for f in c.frames))
        assert a.room not in await game.store.room_codes()
        await a.close()
    finally:
        await game.shutdown()
        await disabled.shutdown()


async def test_the_admin_cli_lists_rooms(capsys: pytest.CaptureFixture[str]) -> None:
    game = await start_server(make_settings(admin_token="tok"))
    try:
        a, b = await two_players(game)
        url = f"http://127.0.0.1:{port_of(game)}"
        code = await asyncio.to_thread(admin_main, ["--url", url, "--token", "tok", "rooms"])
        assert code == 0
        assert a.room is not None and a.room in capsys.readouterr().out
        code = await asyncio.to_thread(admin_main, ["--url", url, "--token", "no", "rooms"])
        assert code == 1
        await a.close()
        await b.close()
    finally:
        await game.shutdown()


@pytest.fixture
def own_redis(tmp_path: Path) -> Iterator[PrivateRedis]:
    server = PrivateRedis(tmp_path)
    server.start()
    yield server
    server.stop()


async def test_readiness_follows_the_store(own_redis: PrivateRedis) -> None:
    game = await start_server(make_settings(redis_url=own_redis.url, tick=0.1))
    try:
        port = port_of(game)
        assert (await asyncio.to_thread(get, port, "/readyz"))[0] == 200
        assert (await asyncio.to_thread(get, port, "/healthz"))[0] == 200
        own_redis.kill()
        status, body = await asyncio.to_thread(get, port, "/readyz")
        assert status == 503 and json.loads(body)["store"] == "down"
        own_redis.start()
        for _ in range(50):
            if (await asyncio.to_thread(get, port, "/readyz"))[0] == 200:
                break
            await asyncio.sleep(0.1)
        assert (await asyncio.to_thread(get, port, "/readyz"))[0] == 200
    finally:
        await game.shutdown()


async def test_every_http_answer_names_one_charset() -> None:
    game = await start_server(make_settings())
    try:

        def content_type(path: str) -> str:
            url = f"http://127.0.0.1:{port_of(game)}{path}"
            try:
                with urllib.request.urlopen(url, timeout=5) as reply:
                    return str(reply.headers["Content-Type"])
            except urllib.error.HTTPError as exc:
                return str(exc.headers["Content-Type"])

        for path in ("/metrics", "/healthz", "/", "/app.js", "/texts.js", "/nothing-here"):
            kind = await asyncio.to_thread(content_type, path)
            assert kind.count("charset=") == 1, (path, kind)
    finally:
        await game.shutdown()


def test_plain_metrics_render_as_prometheus_samples() -> None:
    from prometheus_client.parser import text_string_to_metric_families

    from server.metrics import Metrics

    metrics = Metrics()
    for seconds in (0.0005, 0.0006, 3.0):  # on a bound counts in it ("le"); past the last: +Inf
        metrics.act_latency.observe(seconds)
    metrics.count(metrics.actions, "refused", "bad_phase")
    metrics.count(metrics.actions, "refused", "bad_phase")
    metrics.dropped.inc()
    families = {f.name: f for f in text_string_to_metric_families(metrics.render().decode())}
    buckets = {
        s.labels["le"]: s.value
        for s in families["kc_act_to_patch_seconds"].samples
        if s.name.endswith("_bucket")
    }
    assert buckets["0.0005"] == 1 and buckets["0.001"] == 2 and buckets["2.5"] == 2
    assert buckets["+Inf"] == 3
    assert sample(metrics.render().decode(), "kc_act_to_patch_seconds_sum") == 3.0011
    assert (
        metrics.registry.get_sample_value(
            "kc_actions_total", {"outcome": "refused", "code": "bad_phase"}
        )
        == 2
    )
    assert metrics.registry.get_sample_value("kc_dropped_slow_clients_total") == 1
    # A histogram nobody observed yet is still exported (dashboards see zeros, not gaps).
    assert metrics.registry.get_sample_value("kc_matchmaking_wait_seconds_count") == 0
