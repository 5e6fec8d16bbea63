// The result of a hand or of the match, over the table: what each player was left holding,
// the penalties and totals, and what comes next (next hand, rematch, replay, leaderboards).

import { cardFace, cardName } from "./cards.js";
import { renderCoach } from "./coach.js";
import { send } from "./connection.js";
import { game, seatName } from "./doc.js";
import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import {
  SETTLES_AFTER,
  cellText,
  changeText,
  provisionalText,
  unratedText,
  whyText,
} from "./rating.js";
import { COMPACT } from "./fit.js";
import { groundFlights } from "./motion.js";
import { S } from "./state.js";
import { todayUtc } from "./replay.js";
import { leave } from "./sync.js";
import { go } from "./views.js";

export function renderOverlay() {
  renderAsk();
  const g = game();
  const overlay = $("overlay");
  const result = g && !S.elsewhere ? g.result : null;
  const key = g ? `${S.room}:${g.hand_no}` : null;
  if (!result) {
    overlay.hidden = true;
    $("show-result").hidden = true;
    S.dismissed = null;
    S.overlayFor = null;
    return;
  }
  const show = S.dismissed !== key;
  if (show) groundFlights();
  overlay.hidden = !show;
  $("show-result").hidden = show;
  const finished = g.phase === "finished";
  $("result-title").textContent = finished
    ? t("result.match_title")
    : t("result.hand_title", { n: g.hand_no });
  $("result-reason").textContent =
    result.reason === "emptied"
      ? t("result.out", { name: seatName(result.out) })
      : t("result.blocked");
  let winners = "";
  if (finished && g.winners) {
    const names = g.winners.map(seatName).join(t("result.and"));
    winners = t(g.winners.length > 1 ? "result.winners" : "result.winner", { names });
    if (S.seat !== null && g.winners.includes(S.seat)) winners += ` ${t("result.you_won")}`;
  }
  $("result-winners").textContent = winners;
  $("result-winners").hidden = !winners;
  const ratings = finished ? S.doc.room.ratings : null;
  renderRating(finished, ratings);
  // scoring "corners": one hand, the seats ranked by corners collected, then penalty.
  const corners = Array.isArray(g.collected) ? g.collected : null;
  const places = corners ? placesOf(g, result) : null;
  if (corners) $("result-reason").textContent += ` ${t("result.by_corners")}`;
  const head = el(
    "tr",
    {},
    places ? el("th", { scope: "col", text: t("result.place") }) : null,
    el("th", { scope: "col", text: t("score.player") }),
    corners ? el("th", { scope: "col", text: t("result.corners") }) : null,
    el("th", { scope: "col", text: t("result.left") }),
    el("th", { scope: "col", text: t("result.penalty") }),
    corners ? null : el("th", { scope: "col", text: t("result.total") }),
    ratings ? el("th", { scope: "col", text: t("result.rating_col") }) : null,
  );
  const order = result.left.map((_, i) => i);
  if (places) order.sort((a, b) => places[a] - places[b] || a - b);
  const rows = order.map((i) => {
    const cards = result.left[i];
    const names = cards.map(cardName).join(", ");
    const faces = el(
      "div",
      {
        class: "left-cards",
        role: "img",
        "aria-label": names || t("result.none"),
        style: `--lstep: ${leftStep(cards.length)}px`,
      },
      ...cards.map((card) => {
        const face = cardFace(card);
        face.classList.add("mini");
        return face;
      }),
    );
    if (!cards.length) faces.append(el("span", { class: "muted", text: t("result.none") }));
    return el(
      "tr",
      {
        class: [g.winners && g.winners.includes(i) ? "winner" : "", i === S.seat ? "mine" : ""]
          .join(" ")
          .trim(),
        dataset: { seat: String(i) },
      },
      places ? el("td", { class: "num place", text: String(places[i]) }) : null,
      el("th", { scope: "row", text: seatName(i) }),
      corners ? el("td", { class: "num corners", text: String(corners[i]) }) : null,
      el("td", { class: "left-cell" }, faces),
      el("td", { class: "num", text: `+${result.penalties[i]}` }),
      corners ? null : el("td", { class: "num total", text: String(g.totals[i]) }),
      ratings ? ratingCell(ratings[i]) : null,
    );
  });
  $("result-table").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
  const seated = S.role === "player";
  const votes = S.doc.room.rematch || [];
  const voted = seated && votes.includes(S.seat);
  const isHost = seated && S.doc.room.host === S.seat;
  // A daily room plays the day's deal once: no rematch there (it would deal something else).
  const daily = Boolean(S.doc.room.daily);
  $("next-hand").hidden = finished || !seated;
  $("play-again").hidden = !finished || !seated || daily;
  $("play-again").disabled = voted;
  $("play-again").textContent = t(voted ? "result.again_wait" : "result.again");
  $("force-again").hidden = !(finished && isHost && votes.length > 0) || daily;
  $("new-game").hidden = !finished;
  // Today's daily deal is withheld by the server (403) until the UTC day is over.
  const replayLater = Boolean(daily && S.doc.room.daily.day === todayUtc());
  $("result-replay").hidden = !finished || !seated || replayLater;
  $("result-boards").hidden = !finished;
  let noteText = finished ? "" : t("result.auto");
  if (finished && votes.length) {
    noteText = t("result.votes", { names: votes.map(seatName).join(", ") });
  }
  if (finished && seated && replayLater) {
    noteText = `${noteText} ${t("result.replay_later", { time: dayEnds() })}`.trim();
  }
  $("result-note").textContent = noteText;
  renderCoach(key, finished && seated && !replayLater);
  if (show && S.overlayFor !== key) {
    S.overlayFor = key;
    let primary = $("view-table");
    if (seated && !finished) primary = $("next-hand");
    else if (seated) primary = daily ? $("result-boards") : $("play-again");
    primary.focus();
  }
}

/** Each seat's place in a corners match (1 first; ties share it and the next counts them:
 * 1, 2, 2, 4): the server's once the match is over, else by more corners, then less penalty. */
function placesOf(g, result) {
  if (Array.isArray(g.places)) return g.places;
  const key = g.collected.map((n, i) => [-n, result.penalties[i]]);
  const before = (a, b) => a[0] < b[0] || (a[0] === b[0] && a[1] < b[1]);
  return key.map((mine) => 1 + key.filter((other) => before(other, mine)).length);
}

/** How much of each card a hand left shows: one line of cards, however many (the names of
 * all of them are in the row's label), at most about a third of a phone's width. */
function leftStep(n) {
  const narrow = window.matchMedia("(max-width: 480px)").matches;
  const room = narrow ? 60 : window.matchMedia(COMPACT).matches ? 110 : 230;
  return Math.round(Math.max(6, Math.min(18, room / Math.max(1, n - 1))));
}

/** A result table's rating cell: the rating after the match with its move ("1,046? (+12)"),
 * and under it why ("2nd of 4", "Left the match: last of 4", "No opponent counted"). */
function ratingCell(change) {
  if (!change) return el("td", { class: "num rating" });
  // A provisional rating moves a lot ("3rd of 4: +58"): said where the number is.
  const why = [whyText(change), change.provisional ? t("rating.provisional_big") : ""]
    .filter(Boolean)
    .join(" · ");
  return el(
    "td",
    { class: "num rating" },
    el("span", { class: "rating-move", text: cellText(change) }),
    why ? el("span", { class: "rating-why", text: why }) : null,
  );
}

/** Under the winners: your rating's move once the match is rated, with its place and the
 * provisional mark explained; or why the match changes no rating. */
function renderRating(finished, ratings) {
  const line = $("result-rating");
  const note = $("result-provisional");
  const room = S.doc.room;
  let text = "";
  let noteText = "";
  if (finished && room.rated === false) {
    text = unratedText(room.unrated || unratedGuess(room));
  } else if (finished && S.role === "player" && room.rated) {
    const mine = ratings && S.seat !== null ? ratings[S.seat] : null;
    if (mine) {
      text = t("rating.you", { change: changeText(mine) });
      const least = S.profile && S.profile.min_matches ? S.profile.min_matches : SETTLES_AFTER;
      if (mine.provisional) noteText = provisionalText(mine.matches, least);
      if (S.profile) {
        Object.assign(S.profile, { rating: mine.after, matches: mine.matches });
        if ("provisional" in mine) {
          S.profile.provisional = Boolean(mine.provisional);
          S.profile.listed = !mine.provisional;
        }
      }
    } else if (!ratings) {
      text = t("rating.wait");
    }
  }
  line.textContent = text;
  line.hidden = !text;
  note.textContent = noteText;
  note.hidden = !noteText;
}

/** Why an unrated room is, when the server did not say (one from before it did). */
function unratedGuess(room) {
  if (room.options && room.options.casual) return "casual";
  if (room.daily) return "daily";
  return "chosen_deal"; // the client chose the deal (a seed or stacked decks)
}

/** When the current UTC day ends, in this browser's own time. */
function dayEnds() {
  const now = new Date();
  const end = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() + 1));
  return end.toLocaleTimeString(document.documentElement.lang || undefined, {
    hour: "2-digit",
    minute: "2-digit",
  });
}

// --- leaving a match in progress asks first ---------------------------------------------------

/** Whether leaving now costs something: a seat in a match still being played. */
function leavingCosts() {
  const g = game();
  return S.role === "player" && Boolean(g) && g.phase !== "finished";
}

/** "Leave": straight away in the waiting room or after the match; in play, ask first. */
export function askLeave() {
  if (!leavingCosts()) {
    closeAsk(false);
    leave();
    return;
  }
  $("leave-ask").hidden = false;
  $("leave-stay").focus();
}

function closeAsk(refocus) {
  const ask = $("leave-ask");
  if (ask.hidden) return;
  ask.hidden = true;
  if (refocus && !$("leave").hidden) $("leave").focus();
}

/** The question goes away with the match it was about (the room left, the match over). */
export function renderAsk() {
  if (!$("leave-ask").hidden && !(S.room && leavingCosts())) closeAsk(false);
}

// --- wiring ------------------------------------------------------------------------------

export function wireResult() {
  $("leave-stay").addEventListener("click", () => closeAsk(true));
  $("leave-yes").addEventListener("click", () => {
    closeAsk(false);
    leave();
  });
  $("leave-ask").addEventListener("keydown", (event) => {
    if (event.key === "Escape") {
      event.stopPropagation();
      closeAsk(true);
    }
  });
  $("leave-ask").addEventListener("click", (event) => {
    if (event.target === $("leave-ask")) closeAsk(true);
  });
  // The cards left overlap by the width there is: a phone turned, a window narrowed.
  window.addEventListener("resize", () => {
    if (!$("overlay").hidden) renderOverlay();
  });
  $("next-hand").addEventListener("click", () => send({ type: "next_hand" }));
  $("view-table").addEventListener("click", () => {
    const g = game();
    S.dismissed = g ? `${S.room}:${g.hand_no}` : null;
    renderOverlay();
    $("show-result").focus();
  });
  $("show-result").addEventListener("click", () => {
    S.dismissed = null;
    S.overlayFor = null;
    renderOverlay();
  });
  $("new-game").addEventListener("click", () => leave());
  $("play-again").addEventListener("click", () => send({ type: "rematch", force: false }));
  $("force-again").addEventListener("click", () => send({ type: "rematch", force: true }));
  $("result-boards").addEventListener("click", () => {
    S.boardTab = S.doc && S.doc.room.daily ? "daily" : "alltime";
    go("leaderboards");
  });
  $("result-replay").addEventListener("click", () => {
    const g = game();
    S.findReplay = { room: S.room, totals: g ? g.totals : null, tries: 0 };
    send({ type: "my_matches" });
  });
}
