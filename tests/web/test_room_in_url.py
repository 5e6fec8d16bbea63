"""The web client names the room in its WebSocket's URL whenever it knows it.

A load balancer routing by room (deploy/nginx.conf) can then put every player of a room on
one server process (docs/protocol.md, "Transport"): a page opened from a link to a room, a
page that comes back to its seat, and a page that created a room (from its next socket on)
open ``/?room=CODE``; a page in the lobby opens ``/``. A page that entered a room on a socket
not naming it (a create, a code typed in, quick play) moves at once to one that does, and
closes the first with 1000 "moved".
"""

from __future__ import annotations

from collections.abc import Callable

from playwright.sync_api import Page, WebSocket, expect

from clients.i18n import texts

from .conftest import Pages
from .helpers import create_room, join_by_link


def sockets_of(urls: list[str]) -> Callable[[Page], None]:
    def setup(page: Page) -> None:
        page.on("websocket", lambda ws: urls.append(ws.url))

    return setup


def sockets(found: list[WebSocket]) -> Callable[[Page], None]:
    def setup(page: Page) -> None:
        page.on("websocket", lambda ws: found.append(ws))

    return setup


def test_each_socket_names_the_room_the_page_knows(pages: Pages) -> None:
    host_sockets: list[WebSocket] = []
    host = pages.open("host", setup=sockets(host_sockets))
    expect(host.locator("#create-go")).to_be_visible()
    assert [ws.url.partition("//")[2].partition("/")[2] for ws in host_sockets] == [""]
    code = create_room(host, "Ana", ["open"], target=25)
    # The room named, the page moves to a socket naming it and lets the first one go.
    for _ in range(200):
        if len(host_sockets) == 2 and host_sockets[0].is_closed():
            break
        host.wait_for_timeout(50)
    assert [ws.url.endswith(f"/?room={code}") for ws in host_sockets] == [False, True]
    assert host_sockets[0].is_closed() and not host_sockets[1].is_closed()

    guest_urls: list[str] = []
    guest = pages.open("guest", path=f"/?room={code}", setup=sockets_of(guest_urls))
    join_by_link(guest, "Ben")
    assert guest_urls and all(url.endswith(f"/?room={code}") for url in guest_urls)

    # The creator's page, reloaded, comes back to its seat over a socket naming the room.
    # The guest sees the host connected: the move never showed the seat gone.
    expect(guest.locator('#wait-seats li[data-seat="0"]')).not_to_contain_text(
        texts("en")["seat.offline"]
    )
    host.reload()
    expect(host.locator("#waiting")).to_be_visible()
    assert host_sockets[-1].url.endswith(f"/?room={code}"), [ws.url for ws in host_sockets]
