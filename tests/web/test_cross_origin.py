"""The JavaScript library imports from a page of another origin (issue 48): ``/client.js``
and the ``/patch.js`` it imports are served with ``Access-Control-Allow-Origin: *``; a page
served by a second local HTTP server (another port, so another origin) imports it from the
game server in real Chromium, connects, and creates a room."""

from __future__ import annotations

import functools
import threading
import urllib.request
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from playwright.sync_api import Browser

from tests.web.conftest import ServerThread

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>elsewhere</title></head><body>
<script type="module">
  import { Client } from "GAME/client.js";
  try {
    const me = new Client("WS", "Elsewhere");
    const welcome = await me.connect();
    const room = await me.create({ seats: 2 });
    window.result = { ok: true, room, protocol: me.protocol, version: welcome.version };
    me.close();
  } catch (error) {
    window.result = { ok: false, error: String(error) };
  }
</script>
<script>
  window.addEventListener("error", () => { window.result = { ok: false, error: "import" }; });
</script>
</body></html>
"""


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def elsewhere(tmp_path: Path, web_server: ServerThread) -> Iterator[str]:
    """The URL of a page on another origin (a second HTTP server) that imports the library."""
    game = web_server.url.rstrip("/")
    ws = game.replace("http://", "ws://") + "/"
    (tmp_path / "index.html").write_text(PAGE.replace("GAME", game).replace("WS", ws))
    handler = functools.partial(_Quiet, directory=str(tmp_path))
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{httpd.server_address[1]}/index.html"
    finally:
        httpd.shutdown()
        httpd.server_close()


def test_the_library_files_are_served_to_any_origin(web_server: ServerThread) -> None:
    for name in ("client.js", "patch.js"):
        with urllib.request.urlopen(f"{web_server.url.rstrip('/')}/{name}") as answer:
            assert answer.headers["Access-Control-Allow-Origin"] == "*", name
    with urllib.request.urlopen(f"{web_server.url.rstrip('/')}/app.js") as answer:
        assert answer.headers["Access-Control-Allow-Origin"] is None  # the web client's own


def test_a_page_of_another_origin_imports_the_library(browser: Browser, elsewhere: str) -> None:
    page = browser.new_page()
    try:
        page.goto(elsewhere)
        page.wait_for_function("window.result !== undefined", timeout=15000)
        result = page.evaluate("window.result")
    finally:
        page.close()
    assert result["ok"], result
    assert len(result["room"]) == 6 and result["protocol"] == result["version"] == 2
