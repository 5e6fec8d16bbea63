"""Ratings in Chromium: a rated match shows the rating's move on the match-end screen and in
the lobby, every board and the history show the tag after the name, and a recovery code
makes a second browser the same player."""

from __future__ import annotations

import asyncio
import re

from playwright.sync_api import Page, expect

from server.identity import player_id, tag_of
from server.ratings import MIN_MATCHES

from .conftest import Pages, ServerThread, Shot
from .helpers import create_room, my_board_row, play_until_over, storage_item

RATING_LINE = re.compile(r"^Your rating: 1000 → (\d+) \(([+\u2212\u00b1]\d+)\)\.$")


def open_tab(page: Page, board: str) -> None:
    page.click(f"#board-tab-{board}")
    expect(page.locator(f"#board-tab-{board}")).to_have_attribute("aria-selected", "true")


def rate_more(web_server: ServerThread, player: str) -> None:
    """Finish more rated matches for ``player`` in the server (against a random bot)."""
    game = web_server.game
    assert game is not None
    for n in range(MIN_MATCHES - 1):
        record = {
            "id": f"EXTRA{player[:4]}-{n}",
            "room": "EXTRA1",
            "finished_at": 0.0,
            "seats": [
                {"name": "Ana", "kind": "human", "level": None},
                {"name": "Bot 2", "kind": "bot", "level": "random"},
            ],
            "players": [player, None],
            "results": [[0, 9]],
            "totals": [0, 9],
            "winners": [0],
            "daily": None,
            "rated": True,
            "abandoned": [],
        }
        done = game.records.record_finished(record, [(player, "Ana", 0)], None)
        asyncio.run_coroutine_threadsafe(done, web_server.loop).result(timeout=10)


def test_a_rated_match_moves_the_rating_and_the_tag_names_the_player_everywhere(
    pages: Pages, web_server: ServerThread, shots: Shot
) -> None:
    ana = pages.open("rated-ana")
    create_room(ana, "Ana", ["random"], target=1)
    ana.click("#start-go")
    expect(ana.locator("#table")).to_be_visible()
    play_until_over(ana)
    expect(ana.locator("#result-title")).to_have_text("Match over")
    line = ana.locator("#result-rating")
    expect(line).to_have_text(RATING_LINE)
    after, delta = RATING_LINE.match(line.inner_text()).groups()  # type: ignore[union-attr]
    mine = ana.locator('#result-table tr[data-seat="0"] td.rating')
    expect(mine).to_have_text(f"{after} ({delta})")
    expect(ana.locator('#result-table tr[data-seat="1"] td.rating')).to_have_text("")
    shots(ana, "rating-result")

    token = storage_item(ana, "localStorage", "kc.player")
    assert isinstance(token, str)
    me = player_id(token)
    tag = tag_of(me)
    assert token not in tag

    # Back in the lobby: name, tag and the new rating.
    ana.click("#new-game")
    expect(ana.locator("#lobby")).to_be_visible()
    expect(ana.locator("#me-line")).to_have_text(
        f"Ana#{tag} · rating {after} · 1 rated matches (on Top players from {MIN_MATCHES})"
    )

    # Today's deal, so that every board has Ana on it.
    ana.click("#daily-go")
    expect(ana.locator("#table")).to_be_visible()
    play_until_over(ana)
    expect(ana.locator("#result-title")).to_have_text("Match over")
    rate_more(web_server, me)
    ana.click("#result-boards")
    expect(ana.locator("#boards")).to_be_visible()
    for board in ("daily", "alltime", "rating"):
        open_tab(ana, board)
        my_board_row(ana)
        row = ana.locator("#board-table tr.mine")
        expect(row.locator(".who-name")).to_have_text("Ana")
        expect(row.locator(".who-tag")).to_have_text(f"#{tag}")
        # Every row of every board has a tag.
        rows = ana.locator("#board-table tbody tr")
        expect(rows.locator(".who-tag")).to_have_count(rows.count())
    expect(ana.locator("#board-caption")).to_contain_text(f"at least {MIN_MATCHES}")
    shots(ana, "rating-board")

    # The history names each person with their tag too.
    ana.click("#boards .view-back")
    ana.click("#leave")
    expect(ana.locator("#lobby")).to_be_visible()
    ana.click("#matches-go")
    expect(ana.locator("#match-list .match-row").first).to_be_visible()
    expect(ana.locator("#match-list .who-tag").first).to_have_text(f"#{tag}")
    ana.click("#matches .view-back")

    # A recovery code, shown once, makes another browser Ana: same tag, rating, history.
    ana.click("#me-code")
    box = ana.locator("#me-code-box")
    expect(box).to_contain_text("Your recovery code: ")
    found = re.search(r"([A-Z0-9]{4}(?:-[A-Z0-9]{4}){3})", box.inner_text())
    assert found is not None
    code = found.group(1)
    expect(ana.locator("#me-line")).to_contain_text(f"Ana#{tag}")
    shots(ana, "rating-lobby")
    rating_now = re.search(r"rating (\d+)", ana.locator("#me-line").inner_text())
    assert rating_now is not None

    other = pages.open("rated-other")
    other.fill("#name", "Someone")
    other.press("#name", "Tab")  # a changed name is a rename
    expect(other.locator("#me-line")).to_contain_text("Someone#")
    other.click("#me-use")
    other.fill("#me-recover-code", "WRONG-CODE-0000-0000")
    other.click("#me-recover-go")
    expect(other.locator(".toast.error").last).to_contain_text("belongs to nobody")
    other.fill("#me-recover-code", code.lower())
    other.click("#me-recover-go")
    expect(other.locator(".toast").last).to_contain_text("Welcome back, Ana")
    expect(other.locator("#name")).to_have_value("Ana")
    expect(other.locator("#me-line")).to_contain_text(f"Ana#{tag} · rating {rating_now.group(1)}")
    recovered = storage_item(other, "localStorage", "kc.player")
    assert isinstance(recovered, str) and recovered != token
    other.click("#matches-go")
    expect(other.locator("#match-list .match-row")).to_have_count(
        ana.locator("#match-list .match-row").count() or 2
    )
    # After a reload the recovered browser is still Ana.
    other.reload()
    expect(other.locator("#me-line")).to_contain_text(f"Ana#{tag}")


def test_a_casual_room_says_its_match_changes_no_rating(pages: Pages) -> None:
    cai = pages.open("casual-cai")
    cai.check("#opt-casual")
    create_room(cai, "Cai", ["random"], target=1)
    cai.click("#start-go")
    expect(cai.locator("#table")).to_be_visible()
    play_until_over(cai)
    expect(cai.locator("#result-title")).to_have_text("Match over")
    expect(cai.locator("#result-rating")).to_have_text("Casual match: no rating changes.")
    expect(cai.locator("#result-table th", has_text="Rating")).to_have_count(0)
    cai.click("#new-game")
    expect(cai.locator("#me-line")).to_contain_text("rating 1000 · 0 rated matches")
