"""Coming back to the site (issue 47): after a match ends, opening the site again lands in
the lobby, not in the finished room; a player the host removed who opens the room's link
again is told so, not offered a seat the server refuses."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from .conftest import Pages
from .helpers import create_room, join_by_link, play_until_over


def test_after_a_match_the_site_opens_on_the_lobby(pages: Pages) -> None:
    page = pages.open("finished")
    code = create_room(page, "Ana", ["random"], target=1)
    page.click("#start-go")
    play_until_over(page)
    expect(page.locator("#result-title")).to_have_text("Match over")
    # A reload of this tab stays at the result.
    page.reload()
    expect(page.locator("#result-title")).to_have_text("Match over")
    # The bare address in this tab, and the room's address in a new tab: the lobby.
    page.goto(pages.base_url)
    expect(page.locator("#lobby")).to_be_visible()
    expect(page.locator("#table")).to_be_hidden()
    again = page.context.new_page()
    pages.watch(again, "finished-again")
    again.goto(f"{pages.base_url}?room={code}")
    expect(again.locator("#lobby")).to_be_visible()
    expect(again.locator("#invite")).to_be_hidden()
    expect(again.locator("#table")).to_be_hidden()
    assert "room=" not in again.url


def test_a_removed_player_opening_the_link_again_is_told_so(pages: Pages) -> None:
    ana = pages.open("host")
    code = create_room(ana, "Ana", ["open"], target=5)
    ben = pages.open("removed", path=f"/?room={code}")
    join_by_link(ben, "Ben")
    ana.locator('#wait-seats li[data-seat="1"] button').click()
    expect(ben.locator("#notice-text")).to_have_text(f"The host removed you from room {code}.")
    ben.click("#notice-ok")
    ben.goto(f"{pages.base_url}?room={code}")
    expect(ben.locator("#lobby")).to_be_visible()
    expect(ben.locator("#notice-text")).to_have_text(re.compile(f"removed you from room {code}"))
    expect(ben.locator("#invite")).to_be_hidden()
    expect(ben.locator("#invite-join")).to_be_hidden()
