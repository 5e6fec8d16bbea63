"""Ratings in Chromium: a rated match against bots shows each person's place among the seats
counted for them and the provisional mark on the match-end screen, in the lobby and in the
history; every board and the history show the tag after the name; a recovery code makes a
second browser the same player. Documents of every shape the server sends (each reason, each
unrated room, a profile without a tag) are fed to the page and worded in English, Spanish
and Czech, with the same sentences as the terminal clients."""

from __future__ import annotations

import asyncio
import json
import re
import time
from typing import Any

import pytest
from playwright.sync_api import Page, WebSocketRoute, expect

from clients.i18n import LANGUAGES
from clients.words import (
    RATINGS,
    describe_change,
    describe_matches,
    describe_profile,
    describe_unrated,
)
from server.identity import player_id
from server.ratings import MIN_MATCHES

from .conftest import Pages, ServerThread, Shot
from .helpers import create_room, my_board_row, play_until_over, storage_item

ANY_WS = re.compile(r"^wss?://")
NBSP = "\u00a0"
#: "Your rating: 3rd of 4: +12 (1,000 → 1,012?)": the place among the seats counted.
RATED_LINE = re.compile(
    r"^Your rating: (?:(?:1st|2nd|3rd|4th) of 4|No opponent counted): "
    r"([+\u2212\u00b1][\d,]+)(?: \(1,000 → ([\d,]+)\?\))?$"
)


def open_tab(page: Page, board: str) -> None:
    page.click(f"#board-tab-{board}")
    expect(page.locator(f"#board-tab-{board}")).to_have_attribute("aria-selected", "true")


def rate_more(web_server: ServerThread, player: str) -> None:
    """Finish enough rated matches for ``player`` in the server to settle the rating: one
    won, one lost, against a hard bot (a bot far below would count for nothing, and so would
    wins over one once they have taken the rating far above it)."""
    game = web_server.game
    assert game is not None
    for n in range(MIN_MATCHES - 1):
        totals = [0, 9] if n % 2 else [9, 0]
        record = {
            "id": f"EXTRA{player[:4]}-{n}",
            "room": "EXTRA1",
            "finished_at": 0.0,
            "seats": [
                {"name": "Ana", "kind": "human", "level": None},
                {"name": "Bot 2", "kind": "bot", "level": "hard"},
            ],
            "players": [player, None],
            "results": [totals],
            "totals": totals,
            "winners": [0 if n % 2 else 1],
            "daily": None,
            "rated": True,
            "abandoned": [],
        }
        done = game.records.record_finished(record, [(player, "Ana", 0)], None)
        changes = asyncio.run_coroutine_threadsafe(done, web_server.loop).result(timeout=10)
        assert changes is not None and changes[0] is not None
        assert changes[0]["reason"] == "placed", changes


def test_a_rated_match_against_bots_shows_the_place_and_the_provisional_mark(
    pages: Pages, web_server: ServerThread, shots: Shot
) -> None:
    ana = pages.open("rated-ana")
    create_room(ana, "Ana", ["hard", "hard", "hard"], target=1)
    ana.click("#start-go")
    expect(ana.locator("#table")).to_be_visible()
    play_until_over(ana)
    expect(ana.locator("#result-title")).to_have_text("Match over")
    line = ana.locator("#result-rating")
    expect(line).to_have_text(RATED_LINE, timeout=15_000)
    found = RATED_LINE.match(line.inner_text())
    assert found is not None
    delta, after = found.groups()
    assert after is not None, "the first rated match counts the bots: 'of 4', provisional"
    expect(ana.locator("#result-provisional")).to_have_text(
        f"provisional — settles after {MIN_MATCHES} rated matches (1 so far)"
    )
    mine = ana.locator('#result-table tr[data-seat="0"] td.rating')
    expect(mine.locator(".rating-move")).to_have_text(f"{after}? ({delta})")
    expect(mine.locator(".rating-why")).to_have_text(
        re.compile(r"^(1st|2nd|3rd|4th) of 4 · provisional: moves a lot until it settles$")
    )
    for bot in (1, 2, 3):
        expect(ana.locator(f'#result-table tr[data-seat="{bot}"] td.rating')).to_have_text("")
    shots(ana, "rating-result")

    token = storage_item(ana, "localStorage", "kc.player")
    assert isinstance(token, str)
    me = player_id(token)
    tag = ana.evaluate("async () => (await import('/state.js')).S.profile.tag")
    assert isinstance(tag, str) and re.fullmatch(r"[0-9A-Z]{4}", tag) and token not in tag

    # Back in the lobby: name, tag, the new rating with its mark, and one rated match.
    ana.click("#new-game")
    expect(ana.locator("#lobby")).to_be_visible()
    expect(ana.locator("#me-line")).to_have_text(
        f"Ana#{tag} · rating {after}? · provisional — settles after {MIN_MATCHES} rated "
        "matches (1 so far)"
    )
    shots(ana, "rating-lobby-provisional")

    # The history says the same as the match-end screen did.
    ana.click("#matches-go")
    row = ana.locator("#match-list .match-row").first
    expect(row.locator(".match-rating")).to_have_text(line.inner_text())
    expect(ana.locator("#match-list .who-tag").first).to_have_text(f"#{tag}")
    shots(ana, "rating-history")
    ana.click("#matches .view-back")

    # Today's deal (never rated: it has its own board), so that every board has Ana on it.
    ana.click("#daily-go")
    expect(ana.locator("#table")).to_be_visible()
    play_until_over(ana)
    expect(ana.locator("#result-title")).to_have_text("Match over")
    expect(ana.locator("#result-rating")).to_have_text(
        "Daily deal: not rated (it has its own board)."
    )
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

    # Settled now: no mark, the rated matches counted.
    ana.click("#boards .view-back")
    ana.click("#leave")
    expect(ana.locator("#lobby")).to_be_visible()
    expect(ana.locator("#me-line")).to_have_text(
        re.compile(rf"^Ana#{tag} · rating [\d,]+ · {MIN_MATCHES} rated matches$")
    )

    # A recovery code, shown once, makes another browser Ana: same tag, rating, history.
    ana.click("#me-code")
    box = ana.locator("#me-code-box")
    expect(box).to_contain_text("Your recovery code: ")
    code_found = re.search(r"([A-Z0-9]{4}(?:-[A-Z0-9]{4}){3})", box.inner_text())
    assert code_found is not None
    code = code_found.group(1)
    expect(ana.locator("#me-line")).to_contain_text(f"Ana#{tag}")
    shots(ana, "rating-lobby")
    rating_now = re.search(r"rating ([\d,]+)", ana.locator("#me-line").inner_text())
    assert rating_now is not None

    other = pages.open("rated-other")
    # Welcomed first: the welcome names this new identity.
    expect(other.locator("#me-line")).to_contain_text("rating")
    other.fill("#name", "Someone")
    other.press("#name", "Tab")  # a changed name is a rename
    expect(other.locator("#me-line")).to_contain_text("Someone")
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
    expect(other.locator("#match-list .match-row").first).to_be_visible()

    # The browser that made the code kept going with the token that came with it: after a
    # reload it is still Ana. A newer code, made on the other browser, signs it out.
    made = storage_item(ana, "localStorage", "kc.player")
    assert isinstance(made, str) and made != token
    ana.reload()
    expect(ana.locator("#me-line")).to_contain_text(f"Ana#{tag} · rating {rating_now.group(1)}")
    other.click("#matches .view-back")
    other.click("#me-code")
    expect(other.locator("#me-code-box")).to_contain_text("Your recovery code: ")
    ana.reload()
    expect(ana.locator(".toast").last).to_contain_text("This device was signed out")
    expect(ana.locator("#me-line")).not_to_contain_text(f"#{tag}")
    assert storage_item(ana, "localStorage", "kc.player") != made


def test_a_name_typed_in_the_lobby_is_the_seat_name_whenever_the_profile_answers(
    pages: Pages,
) -> None:
    """The lobby's profile request keeps this new identity's first name ("Player"); a name
    typed afterwards is still the one the room shows, even when that reply has not reached
    the page by the time the player creates (held back here)."""
    held: list[str] = []

    def route(ws: WebSocketRoute) -> None:
        server = ws.connect_to_server()

        def incoming(message: str | bytes) -> None:
            if isinstance(message, str) and json.loads(message).get("type") == "profile":
                held.append(message)
                return
            ws.send(message)

        server.on_message(incoming)

    page = pages.open("held-profile", setup=lambda p: p.route_web_socket(ANY_WS, route))
    deadline = time.monotonic() + 10
    while not held and time.monotonic() < deadline:
        page.wait_for_timeout(50)
    assert held, "the server never answered the lobby's profile request"
    create_room(page, "Ana", ["random"], target=1)
    expect(page.locator('#wait-seats li[data-seat="0"] .seat-name')).to_have_text("Ana")


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
    expect(cai.locator("#me-line")).to_contain_text(
        f"rating 1,000? · provisional — settles after {MIN_MATCHES} rated matches (0 so far)"
    )


# --- documents of every shape, fed to the page -----------------------------------------

#: One person's change in each shape the server sends (and one from before it said why).
PLACED: dict[str, Any] = {
    "before": 1000,
    "after": 1012,
    "matches": 3,
    "provisional": True,
    "place": 2,
    "of": 4,
    "reason": "placed",
}
SETTLED = {**PLACED, "before": 1034, "after": 1046, "matches": 12, "provisional": False}
ABANDONED = {**SETTLED, "after": 999, "place": 4, "reason": "abandoned"}
NOBODY = {**PLACED, "after": 1000, "matches": 0, "place": 1, "of": 1, "reason": "no_opponents"}
OLDER = {"before": 1000, "after": 1034, "matches": 1}
CHANGES: list[dict[str, Any]] = [
    PLACED,
    SETTLED,
    ABANDONED,
    NOBODY,
    OLDER,
    {**PLACED, "place": 1, "of": 2},
]
UNRATED = ["casual", "chosen_deal", "daily", "aborted", "something_new"]
PROFILES: list[dict[str, Any]] = [
    {"name": "Ana", "tag": None, "rating": 1000, "matches": 0, "listed": False,
     "min_matches": 10, "provisional": True},
    {"name": "Ana", "tag": "4F7K", "rating": 1034, "matches": 3, "listed": False,
     "min_matches": 10, "provisional": True},
    {"name": "Ana", "tag": "4F7K", "rating": 12345, "matches": 21, "listed": True,
     "min_matches": 10, "provisional": False},
]  # fmt: skip

FEED = """async ([room, lang]) => {
  const { S, render } = await import("/state.js");
  const { setLang } = await import("/i18n.js");
  Object.assign(S.doc.room, room);
  S.profile = { ...(S.profile || {}), min_matches: 10 };
  await setLang(lang);
  render();
}"""

WORDED = """async ([changes, reasons, profiles, counts]) => {
  const rating = await import("/rating.js");
  const { LANGUAGES, setLang, lang } = await import("/i18n.js");
  const before = lang();
  const out = {};
  for (const code of LANGUAGES) {
    await setLang(code);
    out[code] = {
      changes: changes.map((c) => rating.changeText(c)),
      unrated: reasons.map((r) => rating.unratedText(r)),
      profiles: profiles.map((p) => rating.profileText(p)),
      counts: counts.map((n) => rating.matchesText(n)),
      texts: Object.fromEntries(
        Object.entries((await import("/texts.js")).default[code])
          .filter(([key]) => key.startsWith("rating."))
          .map(([key, text]) => [key.slice("rating.".length), text]),
      ),
    };
  }
  await setLang(before);
  return out;
}"""


@pytest.fixture
def finished(pages: Pages) -> Page:
    """A page whose four-seat match (against random bots, casual) is over."""
    page = pages.open("fed")
    page.check("#opt-casual")
    create_room(page, "Ana", ["random", "random", "random"], target=1)
    page.click("#start-go")
    expect(page.locator("#table")).to_be_visible()
    play_until_over(page)
    expect(page.locator("#result-title")).to_have_text("Match over")
    return page


def feed(page: Page, lang: str = "en", **room: Any) -> None:
    page.evaluate(FEED, [room, lang])


def rated(change: dict[str, Any] | None) -> dict[str, Any]:
    """``doc.room`` of a rated match whose seat 0 (the page's) changed by ``change``."""
    return {"rated": True, "unrated": None, "ratings": [change, None, None, None]}


def test_every_change_and_every_unrated_room_in_three_languages(
    finished: Page, shots: Shot
) -> None:
    page = finished
    line, note = page.locator("#result-rating"), page.locator("#result-provisional")
    cell = page.locator('#result-table tr[data-seat="0"] td.rating')

    feed(page, **rated(PLACED))
    expect(line).to_have_text("Your rating: 2nd of 4: +12 (1,000 → 1,012?)")
    expect(note).to_have_text("provisional — settles after 10 rated matches (3 so far)")
    expect(cell.locator(".rating-move")).to_have_text("1,012? (+12)")
    # Where the number is, a provisional one says why it moves so much (issue 47).
    expect(cell.locator(".rating-why")).to_have_text(
        "2nd of 4 · provisional: moves a lot until it settles"
    )
    expect(page.locator('#result-table tr[data-seat="1"] td.rating')).to_have_text("")
    shots(page, "rating-fed-placed")

    feed(page, **rated(SETTLED))
    expect(line).to_have_text("Your rating: 2nd of 4: +12 (1,034 → 1,046)")
    expect(note).to_be_hidden()
    feed(page, **rated(ABANDONED))
    expect(line).to_have_text("Your rating: Left the match: last of 4: \u221235 (1,034 → 999)")
    expect(cell.locator(".rating-why")).to_have_text("Left the match: last of 4")
    feed(page, **rated(NOBODY))
    expect(line).to_have_text("Your rating: No opponent counted: \u00b10")
    expect(note).to_have_text("provisional — settles after 10 rated matches (0 so far)")
    expect(cell.locator(".rating-move")).to_have_text("1,000? (\u00b10)")
    feed(page, **rated(OLDER))
    expect(line).to_have_text("Your rating: +34 (1,000 → 1,034)")
    feed(page, rated=True, unrated=None, ratings=None)
    expect(line).to_have_text("Updating ratings…")

    # A match that changes no rating says why, and has no rating column.
    why = {
        "casual": "Casual match: no rating changes.",
        "chosen_deal": "A chosen deal: this match changes no rating.",
        "daily": "Daily deal: not rated (it has its own board).",
        "aborted": (
            "Not rated: someone left before the match really began, so it counts for nobody."
        ),
    }
    for reason, text in why.items():
        feed(page, rated=False, unrated=reason, ratings=None)
        expect(line).to_have_text(text)
        expect(note).to_be_hidden()
        expect(page.locator("#result-table th", has_text="Rating")).to_have_count(0)
    shots(page, "rating-fed-aborted")

    # Spanish and Czech, numbers written as each language writes them.
    feed(page, "es", **rated(PLACED))
    expect(line).to_have_text("Tu puntuación: 2.º de 4: +12 (1000 → 1012?)")
    expect(note).to_have_text("provisional — se asienta tras 10 partidas puntuadas (llevas 3)")
    feed(page, "es", **rated(ABANDONED))
    expect(line).to_have_text("Tu puntuación: Abandono: último de 4: \u221235 (1034 → 999)")
    feed(page, "es", rated=False, unrated="daily", ratings=None)
    expect(line).to_have_text("Reparto del día: no puntúa (tiene su propia clasificación).")
    feed(page, "cs", **rated(SETTLED))
    expect(line).to_have_text(f"Vaše hodnocení: 2. ze 4: +12 (1{NBSP}034 → 1{NBSP}046)")
    feed(page, "cs", **rated(NOBODY))
    expect(line).to_have_text("Vaše hodnocení: Nezapočítal se žádný soupeř: \u00b10")
    expect(note).to_have_text("prozatímní — ustálí se po 10 hodnocených zápasech (zatím 0)")
    feed(page, "cs", rated=False, unrated="aborted", ratings=None)
    expect(line).to_contain_text("Nehodnotí se: někdo odešel dřív, než zápas doopravdy začal")
    shots(page, "rating-fed-czech")
    feed(page, "en", **rated(PLACED))


def test_the_lobby_and_the_history_word_a_profile_and_each_match(
    finished: Page, shots: Shot
) -> None:
    page = finished
    me = page.locator("#me-line")
    # Back in the lobby the page asks for its profile again ("left", then "profile") and
    # shows the answer whenever it comes; the profiles fed below go to the same line. Fed
    # before that answer, one is replaced by it: "Ana#8QVT · rating 1,000? · …", the page's
    # own identity (tagged, casual), where "Ana · rating 1,000? · …" was fed. The line is
    # emptied first, so only that answer fills it again (the profile shown since before
    # the match would pass the wait at once), and the page asks for no other.
    page.evaluate("async () => (await import('/me.js')).onProfile(null)")
    expect(me).to_have_text("")
    page.click("#new-game")
    expect(page.locator("#lobby")).to_be_visible()
    expect(me).to_contain_text("Ana")  # the server's answer to the lobby's own ask is in
    show = """async ([profile, lang]) => {
      const { setLang } = await import("/i18n.js");
      await setLang(lang);
      (await import("/me.js")).onProfile(profile);
    }"""
    singular = {**PROFILES[2], "matches": 1, "provisional": False}
    expected = {
        "en": [
            "Ana · rating 1,000? · provisional — settles after 10 rated matches (0 so far)",
            "Ana#4F7K · rating 12,345 · 21 rated matches",
            "Ana#4F7K · rating 12,345 · 1 rated match",
        ],
        "es": [
            "Ana · puntuación 1000? · provisional — se asienta tras 10 partidas puntuadas "
            "(llevas 0)",
            "Ana#4F7K · puntuación 12.345 · 21 partidas puntuadas",
            "Ana#4F7K · puntuación 12.345 · 1 partida puntuada",
        ],
        "cs": [
            f"Ana · hodnocení 1{NBSP}000? · prozatímní — ustálí se po 10 hodnocených zápasech "
            "(zatím 0)",
            f"Ana#4F7K · hodnocení 12{NBSP}345 · 21 hodnocených zápasů",
            f"Ana#4F7K · hodnocení 12{NBSP}345 · 1 hodnocený zápas",
        ],
    }
    for lang, texts in expected.items():
        for profile, text in zip([PROFILES[0], PROFILES[2], singular], texts, strict=True):
            page.evaluate(show, [profile, lang])
            expect(me).to_have_text(text)
    page.evaluate(show, [{**PROFILES[2], "matches": 3}, "cs"])
    expect(me).to_have_text(f"Ana#4F7K · hodnocení 12{NBSP}345 · 3 hodnocené zápasy")
    page.evaluate(show, [PROFILES[1], "en"])

    # The history: each match says what it did to your rating, or why nothing.
    page.click("#matches-go")
    expect(page.locator("#match-list .match-row").first).to_be_visible()
    seats = [{"name": "Ana", "tag": None}, *({"name": f"Bot {n}", "tag": None} for n in (2, 3, 4))]
    base = {"room": "ROOM01", "finished_at": 0, "seats": seats, "totals": [3, 0, 12, 20],
            "winners": [1], "daily": None, "seat": 0, "abandoned": []}  # fmt: skip
    rows = [
        {**base, "id": "M1", "ratings": [PLACED, None, None, None], "unrated": None},
        {**base, "id": "M2", "ratings": [ABANDONED, None, None, None], "unrated": None,
         "abandoned": [0]},
        {**base, "id": "M3", "ratings": None, "unrated": "casual"},
        {**base, "id": "M4", "ratings": None, "unrated": "aborted"},
        {**base, "id": "M5", "ratings": None},
    ]  # fmt: skip
    page.evaluate("async (matches) => (await import('/views.js')).onMatches({ matches })", rows)
    shown = page.locator("#match-list .match-row")
    expect(shown).to_have_count(5)
    expect(shown.nth(0).locator(".match-rating")).to_have_text(
        "Your rating: 2nd of 4: +12 (1,000 → 1,012?)"
    )
    expect(shown.nth(1).locator(".match-rating")).to_have_text(
        "Your rating: Left the match: last of 4: \u221235 (1,034 → 999)"
    )
    expect(shown.nth(2).locator(".match-rating")).to_have_text("Casual match: no rating changes.")
    expect(shown.nth(3).locator(".match-rating")).to_contain_text("counts for nobody")
    expect(shown.nth(4).locator(".match-rating")).to_have_count(0)
    # A person with no tag yet is just the name.
    expect(shown.nth(0).locator(".who-tag")).to_have_count(0)
    shots(page, "rating-fed-history")


def test_the_web_and_the_terminal_clients_say_the_same(pages: Pages) -> None:
    page = pages.open("rating-words")
    page.wait_for_function("() => document.documentElement.lang !== ''")
    counts = [0, 1, 2, 3, 4, 5, 10, 21, 22, 1000]
    web = page.evaluate(WORDED, [CHANGES, UNRATED, PROFILES, counts])
    for lang in LANGUAGES:
        words = web[lang]
        # The same sentences under the same keys ...
        assert words["texts"] == RATINGS[lang], lang
        # ... put together the same way.
        assert words["changes"] == [describe_change(c, lang) for c in CHANGES], lang
        assert words["unrated"] == [describe_unrated(r, lang) for r in UNRATED], lang
        assert words["profiles"] == [describe_profile(p, lang) for p in PROFILES], lang
        assert words["counts"] == [describe_matches(n, lang) for n in counts], lang
    assert web["en"]["counts"][:3] == ["0 rated matches", "1 rated match", "2 rated matches"]
    assert web["cs"]["counts"][:6] == [
        "0 hodnocených zápasů",
        "1 hodnocený zápas",
        "2 hodnocené zápasy",
        "3 hodnocené zápasy",
        "4 hodnocené zápasy",
        "5 hodnocených zápasů",
    ]
    assert web["es"]["counts"][1] == "1 partida puntuada"
    assert web["en"]["counts"][-1] == "1,000 rated matches"
