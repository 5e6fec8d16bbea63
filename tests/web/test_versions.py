"""The web client says the protocol version it speaks, and falls back to version 1 for a
server of the release before that refuses 2 (as during a rolling upgrade)."""

from __future__ import annotations

import json
import re
import time

from playwright.sync_api import WebSocketRoute

from .conftest import Pages


def test_the_page_says_2_and_speaks_1_to_a_server_that_refuses_2(pages: Pages) -> None:
    sent: list[dict[str, object]] = []
    welcomes: list[dict[str, object]] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def outgoing(message: str | bytes) -> None:
            frame = json.loads(message)
            sent.append(frame)
            if frame.get("type") == "hello" and frame.get("version") == 2:
                # An older server's refusal: it speaks only version 1.
                refusal = {
                    "type": "error",
                    "code": "unsupported_version",
                    "params": {"supported": [1]},
                    "message": "This server speaks protocol versions 1.",
                    "seq": None,
                }
                ws.send(json.dumps(refusal))
                return
            server.send(message)

        def incoming(message: str | bytes) -> None:
            frame = json.loads(message)
            if frame.get("type") == "welcome":
                welcomes.append(frame)
            ws.send(message)

        ws.on_message(outgoing)
        server.on_message(incoming)

    page = pages.open(
        "old-server", setup=lambda p: p.route_web_socket(re.compile(r"^wss?://"), route)
    )
    deadline = time.monotonic() + 10
    while not welcomes and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    hellos = [f["version"] for f in sent if f.get("type") == "hello"]
    assert hellos[:2] == [2, 1], sent
    assert welcomes and welcomes[0]["version"] == 1
    # Welcomed in version 1, the page goes on: nothing it shows is an error.
    page.wait_for_timeout(300)
    assert page.locator(".toast.error").count() == 0
