"""A page load fetches its player's language only, compressed (issue 47): not one 70 KB
module of every language; another language comes when the player switches to it."""

from __future__ import annotations

import urllib.request

from playwright.sync_api import Request, expect

from .conftest import Pages, ServerThread
from .helpers import choose_language


def test_the_page_loads_its_language_only_and_text_comes_compressed(
    pages: Pages, web_server: ServerThread
) -> None:
    asked: list[str] = []

    def note(request: Request) -> None:
        path = "/" + request.url.split("/", 3)[3]
        if "texts" in path or "languages" in path:
            asked.append(path)

    page = pages.open("texts-es", locale="es-ES", setup=lambda p: p.on("request", note))
    expect(page.locator("html")).to_have_attribute("lang", "es")
    expect(page.locator("#bots-go")).to_have_text("Jugar contra 3 bots")
    assert sorted(asked) == ["/languages.js", "/texts/es.js"], asked
    choose_language(page, "cs")
    assert asked[-1] == "/texts/cs.js"
    assert "/texts.js" not in asked

    # Text answers are gzip-compressed for a client that accepts it, with a Vary header.
    for path, limit in (("texts/es.js", 12_000), ("app.js", 4_000)):
        ask = urllib.request.Request(web_server.url + path, headers={"Accept-Encoding": "gzip"})
        with urllib.request.urlopen(ask, timeout=10) as answer:
            body = answer.read()
            assert answer.headers["Content-Encoding"] == "gzip"
            assert answer.headers["Vary"] == "Accept-Encoding"
            assert int(answer.headers["Content-Length"]) == len(body) < limit
    with urllib.request.urlopen(web_server.url + "texts/es.js", timeout=10) as plain:
        assert plain.headers["Content-Encoding"] is None
        assert plain.read().startswith(b"// The es texts")
