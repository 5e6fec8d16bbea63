// The coach on the match result: "Your three costliest turns", from the server's review of
// the match that just ended (GET /api/matches/ID/review, docs/coach.md). Each turn shows the
// hand you held, whether you could have gone out, where your line and the better one part
// (the fork), what it would have saved and what the better line gains, and opens the replay
// at that turn. The replay of one of your matches shows the same turns beside the table
// (replayCoach), each a jump to its step and a way to play its better line on the table.

import { cardFace, cardName, cardText } from "./cards.js";
import { send } from "./connection.js";
import { $, el } from "./dom.js";
import { has, onLangChange, t } from "./i18n.js";
import { S } from "./state.js";

// Which parameters of a reason are cards and which are plain numbers (the rest are piles).
const REASON_CARDS = new Set(["card", "next", "target", "top"]);
const REASON_NUMBERS = new Set(["count"]);
// The heading for one, two or three turns.
const TITLES = ["coach.title_1", "coach.title_2", "coach.title"];
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

/** A move of a line, "7♦ → North" or "North → West" (a pile moved whole); a line wraps
 * between its moves, never inside one. */
export function moveText(text) {
  const [from, to] = String(text).split(">");
  const what = /^[NESW]{1,2}$/.test(from) ? t(`pile.${from}`) : cardText(from);
  return `${what}\u00a0→\u00a0${t(`pile.${to}`)}`;
}

function lineText(moves) {
  return moves.map(moveText).join(", ");
}

/** Where the played and the better line part: ``fork`` from the review, else (an older
 * review) the length of their common start. */
export function forkOf(turn) {
  const played = turn.played || [];
  const better = turn.better || [];
  if (Number.isInteger(turn.fork)) return Math.max(0, Math.min(turn.fork, played.length));
  let fork = 0;
  while (fork < played.length && fork < better.length && played[fork] === better[fork]) fork += 1;
  return fork;
}

/** The two lines as sentences: the start they share (when they share one), what was played
 * from there and the better way from there, each as [class, text]. */
export function lineSentences(turn) {
  const played = turn.played || [];
  const better = turn.better || [];
  const fork = forkOf(turn);
  const rest = (moves) => (moves.length ? lineText(moves) : t("coach.then_end"));
  if (fork === 0) {
    return [
      [
        "coach-played",
        played.length ? t("coach.played", { moves: lineText(played) }) : t("coach.played_none"),
      ],
      ["coach-better", t("coach.better", { moves: rest(better) })],
    ];
  }
  return [
    ["coach-common", t("coach.as_played", { moves: lineText(played.slice(0, fork)) })],
    [
      "coach-played",
      played.length > fork
        ? t("coach.then_played", { moves: lineText(played.slice(fork)) })
        : t("coach.then_ended"),
    ],
    ["coach-better", t("coach.then_better", { moves: rest(better.slice(fork)) })],
  ];
}

/** What the better line gains, in the player's language. */
export function reasonText(reason) {
  if (!reason || !has(`gain.${reason.code}`)) return "";
  const words = {};
  for (const [key, value] of Object.entries(reason.params || {})) {
    if (REASON_NUMBERS.has(key)) words[key] = String(Number(value));
    else if (REASON_CARDS.has(key)) words[key] = cardText(String(value));
    else words[key] = t(`pile.${value}`);
  }
  return t(`gain.${reason.code}`, words);
}

function percent(share) {
  return String(Math.round(Number(share) * 100));
}

/** The label of a turn's better-line button: to show it, or (shown now) to leave it. */
function betterLabel(shown) {
  return t(shown ? "coach.show_played" : "coach.show_better");
}

/** One costly turn as a list item. Its "Replay this turn" calls ``actions.open(step)``;
 * with ``actions.better`` (the replay) it also has a button to play the better line on the
 * table, ``actions.better(turn)``, whose words follow ``actions.shown`` (the step shown). */
function turnItem(turn, actions) {
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
  const chance = turn.win_chance || { played: 0, better: 0 };
  const handNo = turn.hand + 1;
  const replay = el("button", {
    type: "button",
    class: "coach-replay small",
    text: t("coach.replay"),
    "aria-label": t("coach.replay_label", { hand: handNo }),
  });
  replay.addEventListener("click", () => actions.open(turn.step));
  let better = null;
  if (actions.better && turn.better) {
    const shown = actions.shown === turn.step;
    better = el("button", {
      type: "button",
      class: "coach-show-better small",
      text: betterLabel(shown),
      dataset: { step: String(turn.step) },
    });
    better.addEventListener("click", () => actions.better(turn));
  }
  const lines = turn.better ? lineSentences(turn) : [];
  return el(
    "li",
    {
      class: actions.better && actions.shown === turn.step ? "coach-turn showing" : "coach-turn",
      dataset: { step: String(turn.step) },
    },
    turn.could_go_out ? el("p", { class: "coach-out", text: t("coach.could_go_out") }) : null,
    el("p", { class: "coach-where", text: t("coach.where", { hand: handNo, cards: "" }).trim() }),
    faces,
    ...lines.map(([name, text]) => el("p", { class: name, text })),
    el("p", { class: "coach-why", text: reasonText(turn.reason) }),
    el("p", {
      class: "coach-saved",
      text: t("coach.saved", {
        points: Number(turn.cost).toFixed(1),
        played: percent(chance.played),
        better: percent(chance.better),
      }),
    }),
    el("div", { class: "coach-actions" }, replay, better),
  );
}

function draw() {
  const open = (step) => {
    location.hash = `replay/${C.id}/${step}`;
  };
  const box = { heading: $("coach-title"), note: $("coach-note"), list: $("coach-list") };
  fill(box, C.status, C.review, S.seat, { open });
}

/** Fill a coach section (``box``: its heading, note and list): the seat's costliest turns
 * under a heading that counts them, or only the note (pending, none, failed). */
function fill(box, status, review, seat, actions) {
  let text = "";
  let items = [];
  if (status === "ready") {
    const mine = seat !== null && seat !== undefined ? review.seats[seat] : null;
    items = (mine ? mine.costliest : []).map((turn) => turnItem(turn, actions));
    if (!items.length) text = t("coach.none");
  } else if (status === "failed") {
    text = t("coach.failed");
  } else {
    text = t("coach.pending");
  }
  // Without turns the heading claims none: it is hidden, and names the section by the note.
  box.heading.textContent = items.length
    ? t(TITLES[Math.min(items.length, TITLES.length) - 1])
    : text;
  box.heading.hidden = !items.length;
  box.note.textContent = text;
  box.note.hidden = !text;
  box.list.replaceChildren(...items);
  box.list.hidden = !items.length;
}

// --- in the replay: the same turns beside the table, each a jump to its step and a way to
// play its better line on the table -------------------------------------------------------

const P = {
  id: null,
  seat: null,
  status: "idle",
  review: null,
  polls: 0,
  timer: null,
  open: null,
  better: null,
  shown: null, // the step of the turn whose better line the table shows, or null
};

/** Show the coach's turns of ``seat`` (the viewer's, when they played the match; null hides
 * the section) in the replay of match ``id``; ``open(step)`` jumps there and
 * ``better(turn)`` plays (or, shown already, leaves) that turn's better line. */
export function replayCoach(id, seat, open, better) {
  clearTimeout(P.timer);
  Object.assign(P, {
    id,
    seat,
    status: "pending",
    review: null,
    polls: 0,
    timer: null,
    open,
    better,
    shown: null,
  });
  $("replay-coach").hidden = seat === null || seat === undefined;
  if ($("replay-coach").hidden) return;
  drawReplayCoach();
  poll(P, id, drawReplayCoach);
}

/** The table shows the better line of the turn at ``step`` now (null: what was played).
 * The buttons change their words in place, so the one just pressed keeps the focus. */
export function showingBetter(step) {
  P.shown = step;
  for (const item of $("replay-coach-list").querySelectorAll(".coach-turn")) {
    const shown = item.dataset.step === String(step);
    item.classList.toggle("showing", shown);
    const button = item.querySelector(".coach-show-better");
    if (button) button.textContent = betterLabel(shown);
  }
}

/** Redraw the replay's coach section (a language change). */
export function drawReplayCoach() {
  if (P.id === null || $("replay-coach").hidden) return;
  const box = {
    heading: $("replay-coach-title"),
    note: $("replay-coach-note"),
    list: $("replay-coach-list"),
  };
  fill(box, P.status, P.review, P.seat, { open: P.open, better: P.better, shown: P.shown });
}

onLangChange(drawReplayCoach);
