// Leaderboards and the match history, drawn from the server's rows (names as text only).

import { el } from "./dom.js";
import { lang, t } from "./i18n.js";

/** Competition ranks (1, 2, 2, 4) of rows already sorted best first; ``key`` tells ties. */
function ranks(entries, key) {
  const out = [];
  entries.forEach((entry, i) => {
    out.push(i > 0 && key(entry) === key(entries[i - 1]) ? out[i - 1] : i + 1);
  });
  return out;
}

const KEYS = {
  daily: (e) => `${e.penalty}:${e.hands}`,
  alltime: (e) => `${e.won}:${e.played}`,
};

function number(value, digits = 0) {
  return new Intl.NumberFormat(lang(), { maximumFractionDigits: digits }).format(value);
}

/** Where ``me`` stands on a board: {rank, of} or null when not on it. */
export function standing(board, entries, me) {
  const at = entries.findIndex((entry) => entry.player === me);
  if (at < 0) return null;
  return { rank: ranks(entries, KEYS[board])[at], of: entries.length };
}

export function leaderboardTable(board, entries, me) {
  const daily = board === "daily";
  const columns = daily
    ? ["boards.rank", "boards.player", "boards.penalty", "boards.hands"]
    : ["boards.rank", "boards.player", "boards.won", "boards.played", "boards.avg"];
  // The player's column reads left to right; every other one is a number.
  const head = el(
    "tr",
    {},
    ...columns.map((key, i) =>
      el("th", {
        scope: "col",
        class: i === 1 ? null : i === 0 ? "num rank" : "num",
        text: t(key),
      }),
    ),
  );
  const places = ranks(entries, KEYS[board]);
  const rows = entries.map((entry, i) => {
    const mine = entry.player === me;
    const who = el(
      "th",
      { scope: "row", class: "who" },
      el("span", { class: "who-name", text: String(entry.name) }),
      mine ? el("span", { class: "you-tag", text: t("boards.you") }) : null,
    );
    const cells = daily
      ? [number(entry.penalty), number(entry.hands)]
      : [number(entry.won), number(entry.played), number(entry.avg_penalty, 2)];
    return el(
      "tr",
      {
        class: mine ? "mine" : null,
        "aria-current": mine ? "true" : null,
        dataset: { player: String(entry.player) },
      },
      el("td", { class: "num rank", text: String(places[i]) }),
      who,
      ...cells.map((text) => el("td", { class: "num", text })),
    );
  });
  return el(
    "table",
    { class: "board-table", id: "board-table" },
    el("caption", { class: "sr-only", text: t(daily ? "boards.today" : "boards.alltime") }),
    el("thead", {}, head),
    el("tbody", {}, ...rows),
  );
}

function when(seconds) {
  if (typeof seconds !== "number") return "";
  const options = { dateStyle: "medium", timeStyle: "short" };
  return new Intl.DateTimeFormat(lang(), options).format(new Date(seconds * 1000));
}

function matchTitle(match) {
  return match.daily
    ? t("matches.daily", { day: match.daily.day })
    : t("matches.room", { code: match.room });
}

/** One line per finished match, newest first, each with a Replay button. */
export function matchList(matches, onReplay) {
  return matches.map((match) => {
    const seats = Array.isArray(match.seats) ? match.seats : [];
    const winners = Array.isArray(match.winners) ? match.winners : [];
    const totals = Array.isArray(match.totals) ? match.totals : [];
    const players = el(
      "ul",
      { class: "match-seats" },
      ...seats.map((seat, i) =>
        el(
          "li",
          { class: winners.includes(i) ? "winner" : null, dataset: { seat: String(i) } },
          el("span", { class: "who-name", text: seat ? String(seat.name) : t("seat.empty") }),
          el("span", { class: "num", text: String(totals[i] ?? "") }),
        ),
      ),
    );
    const title = matchTitle(match);
    const date = when(match.finished_at);
    return el(
      "li",
      { class: "match-row", dataset: { match: String(match.id) } },
      el(
        "div",
        { class: "match-info" },
        el("strong", { text: title }),
        el("span", { class: "muted small", text: date }),
        players,
      ),
      el("button", {
        type: "button",
        class: "primary small",
        text: t("matches.replay"),
        "aria-label": t("matches.replay_label", { title, when: date }),
        onclick: () => onReplay(match),
      }),
    );
  });
}
