"""The web client names the room in its WebSocket's URL whenever it knows it.

A load balancer routing by room (deploy/nginx.conf) can then put every player of a room on
one server process (docs/protocol.md, "Transport"): a page opened from a link to a room, a
page that comes back to its seat, and a page that created a room (from its next socket on)
open ``/?room=CODE``; a page in the lobby opens ``/``.
"""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, expect

from .conftest import Pages
from .helpers import create_room, join_by_link


def sockets_of(urls: list[str]) -> Callable[[Page], None]:
    def setup(page: Page) -> None:
        page.on("websocket", lambda ws: urls.append(ws.url))

    return setup


def test_each_socket_names_the_room_the_page_knows(pages: Pages) -> None:
    host_urls: list[str] = []
    host = pages.open("host", setup=sockets_of(host_urls))
    expect(host.locator("#create-go")).to_be_visible()
    assert [url.partition("//")[2].partition("/")[2] for url in host_urls] == [""]
    code = create_room(host, "Ana", ["open"], target=25)

    guest_urls: list[str] = []
    guest = pages.open("guest", path=f"/?room={code}", setup=sockets_of(guest_urls))
    join_by_link(guest, "Ben")
    assert guest_urls and all(url.endswith(f"/?room={code}") for url in guest_urls)

    # The creator's page, reloaded, comes back to its seat over a socket naming the room.
    host.reload()
    expect(host.locator("#waiting")).to_be_visible()
    assert host_urls[-1].endswith(f"/?room={code}"), host_urls
