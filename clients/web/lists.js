// Leaderboards and the match history, drawn from the server's rows (names as text only).

import { el } from "./dom.js";
import { lang, t } from "./i18n.js";
import { changeText, unratedText } from "./rating.js";

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
  rating: (e) => `${e.rating}`,
};

const COLUMNS = {
  daily: ["boards.penalty", "boards.hands"],
  alltime: ["boards.won", "boards.played", "boards.avg"],
  rating: ["boards.rating_col", "boards.matches"],
};

/** A person as every board and history shows them: the name, then the tag (``Ana#4F7K``). */
export function who(name, tag) {
  const parts = [el("span", { class: "who-name", text: String(name) })];
  if (typeof tag === "string" && tag) parts.push(el("span", { class: "who-tag", text: `#${tag}` }));
  return parts;
}

function number(value, digits = 0) {
  return new Intl.NumberFormat(lang(), { maximumFractionDigits: digits }).format(value);
}

/** Where ``me`` stands on a board: {rank, of} or null when not on it. */
export function standing(board, entries, me) {
  const at = entries.findIndex((entry) => entry.player === me);
  if (at < 0) return null;
  return { rank: ranks(entries, KEYS[board])[at], of: entries.length };
}

/** Rows the board ranks alike, in an order people can see: the lower average penalty
 * first (all-time), then by name and tag; the server's order otherwise. */
function tiesInOrder(board, entries) {
  const key = KEYS[board] || KEYS.alltime;
  const byName = (a, b) =>
    String(a.name).localeCompare(String(b.name), lang()) ||
    String(a.tag || "").localeCompare(String(b.tag || ""));
  return entries
    .map((entry, i) => ({ entry, i }))
    .sort((a, b) => {
      if (key(a.entry) !== key(b.entry)) return a.i - b.i;
      const avg = board === "alltime" ? (a.entry.avg_penalty ?? 0) - (b.entry.avg_penalty ?? 0) : 0;
      return avg || byName(a.entry, b.entry) || a.i - b.i;
    })
    .map(({ entry }) => entry);
}

export function leaderboardTable(board, given, me) {
  const entries = tiesInOrder(board, given);
  const daily = board === "daily";
  const columns = ["boards.rank", "boards.player", ...(COLUMNS[board] || COLUMNS.alltime)];
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
    const person = el(
      "th",
      { scope: "row", class: "who" },
      ...who(entry.name, entry.tag),
      mine ? el("span", { class: "you-tag", text: t("boards.you") }) : null,
    );
    let cells = [number(entry.won), number(entry.played), number(entry.avg_penalty, 2)];
    if (daily) cells = [number(entry.penalty), number(entry.hands)];
    if (board === "rating") cells = [String(entry.rating), number(entry.matches)];
    return el(
      "tr",
      {
        class: mine ? "mine" : null,
        "aria-current": mine ? "true" : null,
        dataset: { player: String(entry.player) },
      },
      el("td", { class: "num rank", text: String(places[i]) }),
      person,
      ...cells.map((text) => el("td", { class: "num", text })),
    );
  });
  return el(
    "table",
    { class: "board-table", id: "board-table" },
    el("caption", { class: "sr-only", text: t(CAPTIONS[board] || "boards.alltime") }),
    el("thead", {}, head),
    el("tbody", {}, ...rows),
  );
}

const CAPTIONS = { daily: "boards.today", alltime: "boards.alltime", rating: "boards.rating" };

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

/** What a finished match did to your rating: the change as the match-end screen said it, or
 * why it changed none; "" for a match from before ratings said either. */
function ratingLine(match) {
  const ratings = Array.isArray(match.ratings) ? match.ratings : null;
  const mine = ratings && typeof match.seat === "number" ? ratings[match.seat] : null;
  if (mine) return t("rating.you", { change: changeText(mine) });
  if (typeof match.unrated === "string" && match.unrated) return unratedText(match.unrated);
  return "";
}

/** One line per finished match, newest first, each with a Replay button. */
export function matchList(matches, onReplay) {
  return matches.map((match) => {
    const seats = Array.isArray(match.seats) ? match.seats : [];
    const winners = Array.isArray(match.winners) ? match.winners : [];
    const totals = Array.isArray(match.totals) ? match.totals : [];
    const abandoned = Array.isArray(match.abandoned) ? match.abandoned : [];
    const players = el(
      "ul",
      { class: "match-seats" },
      ...seats.map((seat, i) =>
        el(
          "li",
          { class: winners.includes(i) ? "winner" : null, dataset: { seat: String(i) } },
          ...(seat ? who(seat.name, seat.tag) : who(t("seat.empty"))),
          abandoned.includes(i)
            ? el("span", { class: "muted small", text: t("matches.abandoned") })
            : null,
          el("span", { class: "num", text: String(totals[i] ?? "") }),
        ),
      ),
    );
    const title = matchTitle(match);
    const date = when(match.finished_at);
    const rating = ratingLine(match);
    return el(
      "li",
      { class: "match-row", dataset: { match: String(match.id) } },
      el(
        "div",
        { class: "match-info" },
        el("strong", { text: title }),
        el("span", { class: "muted small", text: date }),
        players,
        rating ? el("p", { class: "match-rating small", text: rating }) : null,
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
