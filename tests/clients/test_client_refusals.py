"""Both client libraries return every refusal of an action, as docs/client-library.md says:
Python's ``GameClient.act`` returns the ``error`` frame (``rate_limited`` too: it carries no
``seq``, the frame was refused unread), and JavaScript's ``act`` resolves with it instead of
waiting for its timeout. Each also tells the negotiated protocol version (issue 48)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path

import pytest

from clients.net import GameClient
from protocol.messages import PROTOCOL_VERSION
from tests.clients.test_client_library import ROOT, node

#: Three frames (hello, create, start) and one action fit the burst; the second action is
#: refused unread; the rate refills a token only after five seconds.
LIMITED = pytest.mark.settings(rate=0.2, burst=4)


@LIMITED
async def test_python_act_returns_a_rate_limited_refusal(url: str) -> None:
    me = await GameClient(url, "Py").connect()
    assert me.protocol == PROTOCOL_VERSION
    await me.create(seats=2, bots=[None, "random"])
    await me.start()
    first = await me.act("end")
    assert first["type"] in ("patch", "error") and first.get("code") != "rate_limited", first
    second = await me.act("end", timeout=5)  # returned, not raised
    assert second["type"] == "error" and second["code"] == "rate_limited", second
    assert second["seq"] is None and second["params"]["reason"] == "messages"
    await me.close()


@pytest.mark.settings(rate=10000.0, burst=10000)
async def test_python_act_returns_an_engine_refusal(url: str) -> None:
    me = await GameClient(url, "Py").connect()
    await me.create(seats=2, bots=[None, "random"])
    await me.start()
    answer = await me.act({"type": "play", "card": "1Z", "pile": "N"})
    assert answer["type"] == "error" and answer["seq"] is not None, answer


JS = """
import { Client } from "./clients/web/client.js";
const c = new Client(process.argv[2], "JS");
const welcome = await c.connect();
await c.create({ seats: 2, bots: [null, "random"] });
await c.start();
const out = { protocol: c.protocol, welcome: welcome.version, answers: [] };
const started = Date.now();
out.answers.push(await c.act("end"));
out.answers.push(await c.act("end", 5000));
out.ms = Date.now() - started;
c.close();
try {
  await c.act("end", 60000);
  out.afterClose = "resolved";
} catch (error) {
  out.afterClose = String(error.message);
}
console.log(JSON.stringify(out));
"""


async def run_node(cwd: Path, *args: str) -> str:
    """Run a script under Node.js (the server runs on this event loop: no blocking wait)."""
    process = await asyncio.create_subprocess_exec(
        *node(), *args, cwd=cwd, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE
    )
    try:
        out, err = await asyncio.wait_for(process.communicate(), 60)
    except TimeoutError:
        process.kill()
        await process.wait()
        raise
    assert process.returncode == 0, err.decode()[-2000:]
    return out.decode()


@LIMITED
async def test_js_act_resolves_with_a_rate_limited_refusal(url: str, tmp_path: Path) -> None:
    (tmp_path / "act.mjs").write_text(JS)
    (tmp_path / "clients").symlink_to(ROOT / "clients")
    began = time.monotonic()
    stdout = await run_node(tmp_path, "act.mjs", url)
    out = json.loads(stdout.strip().splitlines()[-1])
    assert out["protocol"] == out["welcome"] == PROTOCOL_VERSION
    first, second = out["answers"]
    assert first.get("code") != "rate_limited", first
    assert second["type"] == "error" and second["code"] == "rate_limited", second
    assert out["ms"] < 4000  # answered, not the 5-second timeout
    assert out["afterClose"].startswith("connection closed"), out
    assert time.monotonic() - began < 50


async def test_node_without_websocket_is_told_what_to_do(tmp_path: Path) -> None:
    """Node.js 20 without its flag has no WebSocket: ``connect`` says what to run."""
    bare = node()[0]
    (tmp_path / "connect.mjs").write_text(
        'import { Client } from "./clients/web/client.js";\n'
        "delete globalThis.WebSocket;\n"
        'try { await new Client("ws://127.0.0.1:9/").connect(); } '
        "catch (error) { console.log(error.message); }\n"
    )
    (tmp_path / "clients").symlink_to(ROOT / "clients")
    process = await asyncio.create_subprocess_exec(
        bare, "connect.mjs", cwd=tmp_path, stdout=asyncio.subprocess.PIPE
    )
    out, _ = await asyncio.wait_for(process.communicate(), 30)
    assert "Node.js 20 with --experimental-websocket" in out.decode(), out
