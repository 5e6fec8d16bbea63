// The coach on the match result: "Your three costliest turns", from the server's review of
// the match that just ended (GET /api/matches/ID/review, docs/coach.md). Each turn shows the
// hand you held, what you played, the better line, what it would have saved and why (the
// hint's reason words), and opens the replay at that turn. The replay of one of your matches
// shows the same turns beside the table (replayCoach), each a jump to its step.

import { cardFace, cardName, cardText } from "./cards.js";
import { send } from "./connection.js";
import { $, el } from "./dom.js";
import { has, onLangChange, t } from "./i18n.js";
import { S } from "./state.js";

// Which parameters of a reason are cards (the rest are piles), as for hints.
const REASON_CARDS = new Set(["card", "next", "target", "top"]);
const POLL_MS = 1000;
const MAX_POLLS = 90;

/** The coach's state: the result it is for, the match id once found, the review. */
const C = {
  key: null, // `${room}:${hand_no}` of the result shown
  id: null,
  status: "idle", // idle | finding | pending | ready | failed
  review: null,
  polls: 0,
  timer: null,
};

function reset(key) {
  clearTimeout(C.timer);
  Object.assign(C, { key, id: null, status: "idle", review: null, polls: 0, timer: null });
}

/** Start (once per finished match) or redraw the coach's section of the result. */
export function renderCoach(key, wanted) {
  const box = $("result-coach");
  if (!wanted) {
    if (C.key !== null) reset(null);
    box.hidden = true;
    return;
  }
  if (C.key !== key) {
    reset(key);
    C.status = "finding";
    S.findCoach = { room: S.room, totals: S.doc.game.totals, tries: 0 };
    send({ type: "my_matches" });
  }
  box.hidden = false;
  draw();
}

/** "My matches" arrived: the match that just ended is the newest of this room with these
 * totals; then its review is asked for. */
export function coachMatches(matches) {
  const wanted = S.findCoach;
  if (!wanted) return;
  const found = matches.find(
    (m) => m.room === wanted.room && JSON.stringify(m.totals) === JSON.stringify(wanted.totals),
  );
  if (found) {
    S.findCoach = null;
    C.id = found.id;
    C.status = "pending";
    poll(C, C.id, draw);
  } else if (wanted.tries < 8) {
    wanted.tries += 1;
    setTimeout(() => send({ type: "my_matches" }), 300);
  } else {
    S.findCoach = null;
    C.status = "failed";
    draw();
  }
}

/** Ask for match ``id``'s review into ``state`` (the result's or the replay's) until it is
 * ready or failed, then ``redraw()``; another match in ``state`` meanwhile ends it. */
async function poll(state, id, redraw) {
  const review = await fetchReview(id);
  if (state.id !== id) return;
  if (review === "pending" && state.polls < MAX_POLLS) {
    state.polls += 1;
    state.timer = setTimeout(() => poll(state, id, redraw), POLL_MS);
    return;
  }
  state.review = review && review !== "pending" ? review : null;
  state.status = state.review ? "ready" : "failed";
  redraw();
}

/** The review of match ``id``: the document, "pending" (202), or null (any failure). */
async function fetchReview(id) {
  try {
    const response = await fetch(`/api/matches/${encodeURIComponent(id)}/review`, {
      cache: "no-store",
    });
    const body = await response.json();
    if (response.status === 202) return "pending";
    if (response.ok && body && Array.isArray(body.seats)) return body;
  } catch {
    // unreachable or not JSON: a failure like any other
  }
  return null;
}

/** A move of a line, "7♦ → North" or "North → West" (a pile moved whole). */
export function moveText(text) {
  const [from, to] = String(text).split(">");
  const what = /^[NESW]{1,2}$/.test(from) ? t(`pile.${from}`) : cardText(from);
  return `${what} → ${t(`pile.${to}`)}`;
}

function lineText(moves) {
  return moves.map(moveText).join(", ");
}

/** The better line; when it begins with everything that was played, only what it adds. */
function betterText(played, better) {
  if (!better.length) return t("coach.then_end");
  const same = played.length > 0 && played.every((move, i) => better[i] === move);
  if (same && better.length > played.length) {
    return t("coach.same_then", { moves: lineText(better.slice(played.length)) });
  }
  return lineText(better);
}

/** The tip behind the better line, in the player's language. */
export function reasonText(reason) {
  if (!reason || !has(`why.${reason.code}`)) return "";
  const words = {};
  for (const [key, value] of Object.entries(reason.params || {})) {
    words[key] = REASON_CARDS.has(key) ? cardText(String(value)) : t(`pile.${value}`);
  }
  return t(`why.${reason.code}`, words);
}

function percent(share) {
  return String(Math.round(Number(share) * 100));
}

/** One costly turn as a list item; its button calls ``open(step)``. */
function turnItem(turn, open) {
  const hand = turn.position.hand || [];
  const faces = el(
    "div",
    {
      class: "coach-hand",
      role: "img",
      "aria-label": hand.map(cardName).join(", "),
    },
    ...hand.map((card) => {
      const face = cardFace(card);
      face.classList.add("mini");
      return face;
    }),
  );
  const played = turn.played.length
    ? t("coach.played", { moves: lineText(turn.played) })
    : t("coach.played_none");
  const better = t("coach.better", { moves: betterText(turn.played, turn.better) });
  const chance = turn.win_chance || { played: 0, better: 0 };
  const handNo = turn.hand + 1;
  const replay = el("button", {
    type: "button",
    class: "coach-replay small",
    text: t("coach.replay"),
    "aria-label": t("coach.replay_label", { hand: handNo }),
  });
  replay.addEventListener("click", () => open(turn.step));
  return el(
    "li",
    { class: "coach-turn", dataset: { step: String(turn.step) } },
    el("p", { class: "coach-where", text: t("coach.where", { hand: handNo, cards: "" }).trim() }),
    faces,
    el("p", { class: "coach-played", text: played }),
    el("p", { class: "coach-better", text: better }),
    el("p", { class: "coach-why", text: reasonText(turn.reason) }),
    el("p", {
      class: "coach-saved",
      text: t("coach.saved", {
        points: Number(turn.cost).toFixed(1),
        played: percent(chance.played),
        better: percent(chance.better),
      }),
    }),
    replay,
  );
}

function draw() {
  const open = (step) => {
    location.hash = `replay/${C.id}/${step}`;
  };
  fill($("coach-note"), $("coach-list"), C.status, C.review, S.seat, open);
}

/** Fill a coach section: its note (pending, none, failed) or the seat's costliest turns. */
function fill(note, list, status, review, seat, open) {
  let text = "";
  let items = [];
  if (status === "ready") {
    const mine = seat !== null && seat !== undefined ? review.seats[seat] : null;
    items = (mine ? mine.costliest : []).map((turn) => turnItem(turn, open));
    if (!items.length) text = t("coach.none");
  } else if (status === "failed") {
    text = t("coach.failed");
  } else {
    text = t("coach.pending");
  }
  note.textContent = text;
  note.hidden = !text;
  list.replaceChildren(...items);
  list.hidden = !items.length;
}

// --- in the replay: the same turns beside the table, each a jump to its step --------------

const P = { id: null, seat: null, status: "idle", review: null, polls: 0, timer: null, open: null };

/** Show the coach's turns of ``seat`` (the viewer's, when they played the match; null hides
 * the section) in the replay of match ``id``; ``open(step)`` jumps there. */
export function replayCoach(id, seat, open) {
  clearTimeout(P.timer);
  Object.assign(P, { id, seat, status: "pending", review: null, polls: 0, timer: null, open });
  $("replay-coach").hidden = seat === null || seat === undefined;
  if ($("replay-coach").hidden) return;
  drawReplayCoach();
  poll(P, id, drawReplayCoach);
}

/** Redraw the replay's coach section (a language change). */
export function drawReplayCoach() {
  if (P.id === null || $("replay-coach").hidden) return;
  fill($("replay-coach-note"), $("replay-coach-list"), P.status, P.review, P.seat, P.open);
}

onLangChange(drawReplayCoach);
