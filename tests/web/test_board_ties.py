"""The all-time board (issue 47): rows it ranks alike come in a visible order (the lower
average penalty, then the name); and a player not on it yet is told the daily deal does not
count there."""

from __future__ import annotations

from clients.i18n import texts

from .conftest import Pages

ROWS = """async () => {
  const { leaderboardTable } = await import("/lists.js");
  const entry = (player, name, tag, avg) =>
    ({ player, name, tag, won: 3, played: 5, avg_penalty: avg });
  const table = leaderboardTable("alltime", [
    { player: "a", name: "Zed", tag: "AAAA", won: 4, played: 5, avg_penalty: 9 },
    entry("b", "Mia", "BBBB", 7.5), entry("c", "Ana", "CCCC", 7.5),
    entry("d", "Bob", "DDDD", 2), entry("e", "Ana", "AAAA", 7.5),
  ], "x");
  return [...table.querySelectorAll("tbody tr")].map((row) =>
    [row.querySelector(".rank").textContent, row.querySelector("th").textContent]);
}"""


def test_tied_rows_come_in_a_visible_order(pages: Pages) -> None:
    page = pages.open("ties")
    rows = page.evaluate(ROWS)
    assert rows == [
        ["1", "Zed#AAAA"],
        ["2", "Bob#DDDD"],
        ["2", "Ana#AAAA"],
        ["2", "Ana#CCCC"],
        ["2", "Mia#BBBB"],
    ]
    assert "daily deal does not count" in texts("en")["boards.not_listed"]
