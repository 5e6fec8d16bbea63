// Views over the lobby or the room, each at its own address: #leaderboards, #matches and
// #replay/ID. route() shows what the address asks for (the room stays joined underneath);
// "Back" or Escape returns. The leaderboards and "My matches" are drawn here, the replay
// viewer in replay.js.

import { coachMatches } from "./coach.js";
import { send } from "./connection.js";
import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { leaderboardTable, matchList, standing } from "./lists.js";
import { SETTLES_AFTER, matchesText } from "./rating.js";
import { closeReplay, openReplay, replayId, showStep, todayUtc, wireReplay } from "./replay.js";
import { S, render } from "./state.js";
import { toast } from "./toasts.js";

// Views over the lobby or the room, each at its own address (#leaderboards, #replay/ID…).
export const VIEWS = ["boards", "matches", "replay"];

const ROUTES = { leaderboards: "boards", matches: "matches" };

// #replay/ID, or #replay/ID/STEP to open it at a step (the coach's "Replay this turn").
const REPLAY_RE = /^replay\/([A-Za-z0-9-]{1,40})(?:\/(\d{1,5}))?$/;

function parseHash() {
  let hash = "";
  try {
    hash = decodeURIComponent(location.hash.replace(/^#/, ""));
  } catch {
    hash = "";
  }
  if (ROUTES[hash]) return { view: ROUTES[hash], arg: null, step: null };
  const replay = REPLAY_RE.exec(hash);
  if (replay) {
    return { view: "replay", arg: replay[1], step: replay[2] ? Number(replay[2]) : null };
  }
  return { view: null, arg: null, step: null };
}

/** Keep ?room= in the address in step with the room this tab is in. */
function syncRoomParam() {
  const url = new URL(location.href);
  if (S.room) url.searchParams.set("room", S.room);
  else url.searchParams.delete("room");
  if (url.href !== location.href) history.replaceState(history.state, "", url);
}

/** Show what the address asks for; views ask the server for their rows when they open. */
export function route() {
  const { view, arg, step } = parseHash();
  const before = S.view;
  S.view = view;
  syncRoomParam();
  if (view === "boards" && before !== "boards") requestBoards();
  if (view === "matches" && before !== "matches") {
    S.matches = null;
    send({ type: "my_matches" });
  }
  if (view === "replay" && replayId() !== arg) {
    openReplay(arg, S.replayDaily[arg] || null, step, S.replaySeat[arg] ?? null);
  }
  else if (view === "replay" && step !== null) showStep(step);
  if (view !== "replay" && replayId() !== null) closeReplay();
  render();
  if (view && view !== before) {
    const heading = $(view).querySelector("h1");
    heading.tabIndex = -1;
    heading.focus();
  }
}

export function go(hash) {
  const url = new URL(location.href);
  url.hash = hash;
  history.pushState({ kc: true }, "", url);
  route();
}

/** Back from a view: to where the player came from in this app, else to the lobby or room. */
export function leaveView() {
  if (history.state && history.state.kc) {
    history.back(); // "popstate" routes
    return;
  }
  const url = new URL(location.href);
  url.hash = "";
  history.replaceState(null, "", url.href.replace(/#$/, ""));
  route();
}

export function requestBoards() {
  S.boards = { daily: null, alltime: null, rating: null };
  send({ type: "leaderboard", board: "daily", day: null });
  send({ type: "leaderboard", board: "alltime", day: null });
  send({ type: "leaderboard", board: "rating", day: null });
}

/** A view opened while the connection was down asks again (once welcomed). */
export function reopenView() {
  if (S.view === "boards") requestBoards();
  if (S.view === "matches") send({ type: "my_matches" });
}

export function onLeaderboard(frame) {
  if (!["daily", "alltime", "rating"].includes(frame.board)) return;
  S.boards[frame.board] = {
    day: frame.day,
    entries: Array.isArray(frame.entries) ? frame.entries : [],
  };
  if (S.view === "boards") renderBoards();
}

function sameTotals(a, b) {
  return JSON.stringify(a || []) === JSON.stringify(b || []);
}

export function onMatches(frame) {
  S.matches = Array.isArray(frame.matches) ? frame.matches : [];
  for (const match of S.matches) {
    S.replayDaily[match.id] = match.daily || null;
    S.replaySeat[match.id] = Number.isInteger(match.seat) ? match.seat : null;
  }
  coachMatches(S.matches);
  const wanted = S.findReplay;
  if (wanted) {
    // Newest first: the match that just ended in this room, with the totals it ended on.
    const found = S.matches.find(
      (m) => m.room === wanted.room && sameTotals(m.totals, wanted.totals),
    );
    if (found) {
      S.findReplay = null;
      go(`replay/${found.id}`);
    } else if (wanted.tries < 8) {
      // History is written just after the last move: ask again in a moment.
      wanted.tries += 1;
      setTimeout(() => send({ type: "my_matches" }), 300);
    } else {
      S.findReplay = null;
      toast(t("result.not_saved"));
    }
  }
  if (S.view === "matches") renderMatches();
}

const EMPTY = {
  daily: "boards.empty_daily",
  alltime: "boards.empty_alltime",
  rating: "boards.empty_rating",
};

export function renderBoards() {
  for (const tab of document.querySelectorAll("[data-board]")) {
    const on = tab.dataset.board === S.boardTab;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
    tab.classList.toggle("on", on);
    if (on) $("board-pane").setAttribute("aria-labelledby", tab.id);
  }
  const board = S.boardTab;
  const data = S.boards[board];
  const daily = board === "daily";
  const least = S.profile && S.profile.min_matches ? S.profile.min_matches : SETTLES_AFTER;
  const counts = { n: least, matches: matchesText(least) };
  $("board-caption").textContent = daily
    ? t("boards.daily_caption", { day: data && data.day ? data.day : todayUtc() })
    : t(board === "rating" ? "boards.rating_caption" : "boards.alltime_caption", { n: least });
  const rank = $("board-rank");
  if (!data) {
    rank.textContent = "";
    $("board-body").replaceChildren(el("p", { class: "muted", text: t("boards.loading") }));
    return;
  }
  const mine = S.playerId ? standing(board, data.entries, S.playerId) : null;
  if (mine) {
    rank.textContent = t(daily ? "boards.your_rank" : "boards.your_place", {
      rank: mine.rank,
      n: mine.of,
    });
  } else {
    const why = board === "rating" ? "boards.not_rated" : "boards.not_listed";
    rank.textContent = t(daily ? "boards.not_ranked" : why, counts);
  }
  rank.classList.toggle("ranked", Boolean(mine));
  $("board-body").replaceChildren(
    data.entries.length
      ? leaderboardTable(board, data.entries, S.playerId)
      : el("p", { class: "muted", text: t(EMPTY[board] || "boards.empty_alltime", counts) }),
  );
}

export function renderMatches() {
  const list = $("match-list");
  const empty = $("matches-empty");
  if (S.matches === null) {
    empty.hidden = false;
    empty.textContent = t("boards.loading");
    list.replaceChildren();
    return;
  }
  empty.hidden = S.matches.length > 0;
  empty.textContent = t("matches.empty");
  list.replaceChildren(...matchList(S.matches, (match) => go(`replay/${match.id}`)));
}

// --- wiring ------------------------------------------------------------------------------

export function wireViews() {
  for (const back of document.querySelectorAll(".view-back")) {
    back.addEventListener("click", () => leaveView());
  }
  for (const tab of document.querySelectorAll("[data-board]")) {
    tab.addEventListener("click", () => {
      S.boardTab = tab.dataset.board;
      renderBoards();
    });
  }
  $("board-refresh").addEventListener("click", () => {
    requestBoards();
    renderBoards();
  });
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  wireReplay();
}
