// The replay viewer: a finished match step by step, read-only, with every hand open.
//
// The server sends the first view and one JSON Patch per step (GET /api/matches/ID/replay);
// every view is rebuilt here with the client's own patch applier. Names come from the
// match record and go into the page as text only.
//
// From a coach's turn beside the table, the better line can be played on the table: its
// views are the replay's view at the turn's step with the line's moves applied one by one
// (betterViews), and while it is shown the replay's controls step through it instead.

import {
  GRID,
  POSITIONS,
  localPile,
  pileClasses,
  pileLabel,
  pileParts,
  stockView,
} from "./board.js";
import { cardFace, cardName, cardText, sortHand } from "./cards.js";
import { replayCoach, showingBetter } from "./coach.js";
import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { applyPatch } from "./patch.js";
import { shownNames } from "./rating.js";

const NEXT_HAND = "next";
const PLAY_EVERY_MS = 800;

const R = {
  id: null,
  status: "idle", // loading | ready | withheld | missing | failed
  data: null,
  views: [],
  at: 0,
  timer: null,
  // The better line of a coach's turn, while the table shows it: the turn's step, its
  // views (0: the turn as it began) and the one shown.
  better: null, // { step, seat, moves, views, n }
};

/** Today's date as the server counts days for the daily deal (UTC). */
export function todayUtc() {
  return new Date().toISOString().slice(0, 10);
}

/** Whether a match's replay is still withheld: a daily deal of a day not over yet. */
export function withheld(daily) {
  return Boolean(daily && daily.day >= todayUtc());
}

export function replayId() {
  return R.id;
}

/** Load match ``id`` and show its first step (or step ``step``). ``daily`` (when known)
 * spares a request the server would refuse; ``seat`` (when the viewer played it) shows the
 * coach's turns of that seat beside it. */
export async function openReplay(id, daily = null, step = null, seat = null) {
  stop();
  R.better = null;
  R.id = id;
  R.data = null;
  R.views = [];
  R.at = 0;
  if (withheld(daily)) {
    R.status = "withheld";
    renderReplay();
    return;
  }
  R.status = "loading";
  renderReplay();
  let status = "failed";
  let data = null;
  try {
    const response = await fetch(`/api/matches/${encodeURIComponent(id)}/replay`, {
      cache: "no-store",
    });
    if (response.ok) {
      data = await response.json();
      status = "ready";
    } else if (response.status === 403) {
      status = "withheld";
    } else if (response.status === 404) {
      status = "missing";
    }
  } catch {
    status = "failed";
  }
  if (R.id !== id) return; // another replay was opened meanwhile
  if (status === "ready") {
    try {
      R.views = buildViews(data);
      R.data = data;
    } catch {
      status = "failed";
    }
  }
  R.status = status;
  if (status === "ready" && step !== null) R.at = Math.max(0, Math.min(last(), step));
  if (status === "ready") {
    const open = (at) => {
      leaveBetter();
      goTo(at);
      $("replay-felt").scrollIntoView({ block: "nearest" }); // on a phone the list is below
    };
    replayCoach(id, seat, open, toggleBetter);
  }
  renderReplay();
  if (status === "ready") $("replay-next").focus();
}

export function closeReplay() {
  stop();
  R.better = null;
  R.id = null;
  R.status = "idle";
  R.data = null;
  R.views = [];
}

function buildViews(data) {
  if (!data || !data.first || !Array.isArray(data.steps)) throw new Error("not a replay");
  const views = [data.first];
  for (const step of data.steps) views.push(applyPatch(views[views.length - 1], step.ops));
  return views;
}

// --- a better line on the table ---------------------------------------------------------

/** ``view`` after ``move`` of seat ``seat``: a play "7H>N" takes the card from the seat's
 * hand onto the pile; a move "W>N" lays pile W whole onto N and empties W. */
export function applyMove(view, seat, move) {
  const [from, to] = String(move).split(">");
  const piles = { ...view.piles };
  const next = { ...view, piles, moved: true };
  if (from in piles) {
    piles[to] = [...(piles[to] || []), ...piles[from]];
    piles[from] = [];
    return next;
  }
  const hands = (view.hands || []).map((hand) => [...hand]);
  hands[seat] = (hands[seat] || []).filter((card) => card !== from);
  piles[to] = [...(piles[to] || []), from];
  const counts = [...(view.counts || [])];
  counts[seat] = hands[seat].length;
  return { ...next, hands, counts };
}

/** The views of a better line: ``start``, then after each of ``moves`` in turn. */
export function betterViews(start, seat, moves) {
  const views = [start];
  for (const move of moves) views.push(applyMove(views[views.length - 1], seat, move));
  return views;
}

/** Play the better line of a coach's ``turn`` on the table, from the turn's step; the same
 * turn again (its button now says "Back to what you played") leaves it. */
function toggleBetter(turn) {
  if (R.status !== "ready") return;
  if (R.better && R.better.step === turn.step) {
    leaveBetter();
    return;
  }
  stop();
  R.at = Math.max(0, Math.min(last(), turn.step));
  const moves = turn.better || [];
  const views = betterViews(R.views[R.at], turn.seat, moves);
  R.better = { step: R.at, seat: turn.seat, moves, views, n: 0 };
  showingBetter(R.at);
  renderReplay();
  $("replay-felt").scrollIntoView({ block: "nearest" }); // on a phone the list is below
  // Stepping is what comes next (a line of no moves has only the way back).
  const next = $("replay-next").disabled ? $("replay-better-back") : $("replay-next");
  next.focus({ preventScroll: true });
}

/** Back from a better line to the replay at its turn's step (what was played). */
function leaveBetter() {
  if (!R.better) return;
  stop();
  R.at = R.better.step;
  R.better = null;
  showingBetter(null);
  renderReplay();
}

// --- moving through the steps (of the replay, or of the better line shown) --------------

function last() {
  return R.views.length - 1;
}

/** Where the controls are: the replay's step, or the better line's move. */
function here() {
  return R.better ? R.better.n : R.at;
}

function end() {
  return R.better ? R.better.views.length - 1 : last();
}

function goTo(position) {
  if (R.status !== "ready") return;
  const at = Math.max(0, Math.min(end(), position));
  if (R.better) R.better.n = at;
  else R.at = at;
  if (at === end()) stop();
  renderReplay();
}

/** Show step ``position`` of the replay open now (the address named a step). */
export function showStep(position) {
  leaveBetter();
  goTo(position);
}

/** The hand (index into ``hands``) the step at ``position`` belongs to. */
function handAt(position) {
  const starts = R.data.hands || [0];
  let hand = 0;
  starts.forEach((start, k) => {
    if (start <= position) hand = k;
  });
  return hand;
}

function jumpHand(delta) {
  if (R.better) return; // the better line is one turn: no other hand to jump to
  const starts = R.data.hands || [0];
  const current = handAt(R.at);
  let target = current + delta;
  // "Previous hand" from the middle of a hand goes to its start first.
  if (delta < 0 && R.at > starts[current]) target = current;
  if (target < 0 || target >= starts.length) return;
  goTo(starts[target]);
}

function play() {
  if (R.status !== "ready" || R.timer) return;
  if (here() === end()) goTo(0);
  R.timer = setInterval(() => {
    if (here() < end()) {
      goTo(here() + 1);
    } else {
      stop();
      renderReplay();
    }
  }, PLAY_EVERY_MS);
  renderReplay();
}

function stop() {
  if (R.timer) clearInterval(R.timer);
  R.timer = null;
}

function togglePlay() {
  if (R.timer) {
    stop();
    renderReplay();
  } else {
    play();
  }
}

// --- words ------------------------------------------------------------------------------

function seatName(i) {
  const seats = (R.data && R.data.seats) || [];
  return shownNames(seats)[i] ?? t("lobby.seat_n", { n: i + 1 });
}

function names(seats) {
  return seats.map(seatName).join(t("result.and"));
}

/** The better line's move ``n`` (1-based) as a table-log sentence. */
function betterCaption(n) {
  const { seat, moves, views } = R.better;
  const [left, right] = String(moves[n - 1]).split(">");
  const name = seatName(seat);
  if (left in views[n].piles) {
    return t("log.moved", { name, from: localPile(left), to: localPile(right) });
  }
  return t("log.played", { name, card: cardText(left), pile: localPile(right) });
}

/** What happened in the step that led to ``position``, as a table-log sentence. */
export function captionAt(position) {
  const view = R.views[position];
  if (position === 0) return t("log.started", { name: seatName(view.dealer) });
  const step = R.data.steps[position - 1];
  const before = R.views[position - 1];
  const name = seatName(step.seat);
  const hands = (v) => ((v.hands || [])[step.seat] || []).length;
  let text;
  if (step.action === NEXT_HAND) {
    text = t("log.dealt", { n: view.hand_no, name: seatName(view.dealer) });
  } else if (step.action === "end") {
    text = t(hands(view) > hands(before) ? "log.drew" : "log.ended", { name });
  } else if (step.action === "draw") {
    text = t("log.took", { name });
  } else {
    const [left, right] = String(step.action).split(">");
    if (left in view.piles) {
      text = t("log.moved", { name, from: localPile(left), to: localPile(right) });
    } else {
      text = t("log.played", { name, card: cardText(left), pile: localPile(right) });
      // Draw until playable: a last card beside an empty side space brings up to three more.
      const refill = hands(view) - hands(before) + 1;
      if (refill > 0) text += ` ${t("log.took_many", { name, n: refill })}`;
    }
  }
  if (view.result && !before.result) {
    const out = view.result.reason === "emptied";
    text += ` ${out ? t("log.out", { name: seatName(view.result.out) }) : t("log.blocked")}`;
  }
  if (view.phase === "finished" && before.phase !== "finished" && view.winners) {
    const verb = t(view.winners.length > 1 ? "log.won_many" : "log.won_one");
    text += ` ${t("log.match_over", { names: names(view.winners), verb })}`;
  }
  return text;
}

// --- drawing ----------------------------------------------------------------------------

function seatKind(i) {
  const seat = ((R.data && R.data.seats) || [])[i];
  if (seat && seat.kind === "bot") return t("seat.bot", { level: t(`level.${seat.level}`) });
  return t("seat.human");
}

function openHand(i, view, big) {
  const cards = sortHand((view.hands || [])[i] || []);
  const label = cards.length
    ? t("replay.open_hand", { name: seatName(i), cards: cards.map(cardName).join(", ") })
    : t("replay.open_hand", { name: seatName(i), cards: t("result.none") });
  const box = el("div", {
    class: big ? "open-hand big" : "open-hand left-cards",
    role: "img",
    "aria-label": label,
    dataset: { seat: String(i) },
  });
  for (const card of cards) {
    const face = cardFace(card);
    if (!big) face.classList.add("mini");
    box.append(face);
  }
  if (!cards.length) box.append(el("span", { class: "muted", text: t("hand.empty") }));
  return box;
}

function plate(i, view, position) {
  const playing = view.phase === "playing" && !view.result && view.turn === i;
  const count = (view.counts || [])[i] || 0;
  const classes = ["plate", `pos-${position}`];
  if (playing) classes.push("turn");
  if (view.winners && view.winners.includes(i)) classes.push("winner");
  const countText = count === 1 ? t("seat.card_one") : t("seat.cards", { n: count });
  const label = [seatName(i), seatKind(i), countText]
    .concat(view.dealer === i ? [t("seat.dealer")] : [])
    .concat(playing ? [t("seat.turn")] : [])
    .join(", ");
  return el(
    "div",
    { class: classes.join(" "), dataset: { seat: String(i) }, role: "group", "aria-label": label },
    el(
      "div",
      { class: "plate-head" },
      el("span", { class: "pname", text: seatName(i) }),
      view.dealer === i
        ? el("span", {
            class: "dealer-chip",
            title: t("seat.dealer"),
            text: "D",
            "aria-hidden": "true",
          })
        : null,
    ),
    el("div", { class: "plate-sub", text: `${seatKind(i)} · ${countText}` }),
    position === "bottom" ? null : openHand(i, view, false),
  );
}

/** Piles whose top card changed from view ``before`` (null: none) to ``view``. */
function changedPiles(before, view) {
  if (!before) return new Set();
  const top = (cards) => (cards && cards.length ? cards[cards.length - 1] : null);
  return new Set(
    Object.keys(view.piles).filter((name) => top(view.piles[name]) !== top(before.piles[name])),
  );
}

function drawFelt(view, changed) {
  const n = view.seats;
  const others = (POSITIONS[n] || []).map((position, k) => plate((1 + k) % n, view, position));
  const board = el(
    "div",
    { class: "board" },
    ...GRID.map((name) => {
      if (name === "stock") return stockView(view.stock);
      const cards = view.piles[name] || [];
      const classes = pileClasses(name, cards);
      if (changed.has(name)) classes.push("last-move");
      return el(
        "div",
        {
          class: classes.join(" "),
          role: "img",
          dataset: { pile: name },
          "aria-label": pileLabel(name, cards),
        },
        ...pileParts(name, cards, changed.has(name)),
      );
    }),
  );
  const me = el(
    "div",
    { class: "me-area replay-me" },
    el("div", { class: "me-plate" }, plate(0, view, "bottom")),
    openHand(0, view, true),
  );
  $("replay-felt").replaceChildren(el("div", { class: "opponents" }, ...others), board, me);
  $("replay-felt").classList.toggle("better-line", Boolean(R.better));
}

function drawScore(view) {
  const head = el("tr", {}, el("th", { scope: "col", text: t("score.player") }));
  view.scores.forEach((_, k) => {
    head.append(el("th", { scope: "col", text: t("score.hand", { n: k + 1 }) }));
  });
  head.append(el("th", { scope: "col", text: t("score.total") }));
  const rows = view.totals.map((total, i) => {
    const row = el(
      "tr",
      {
        class: view.winners && view.winners.includes(i) ? "winner" : null,
        dataset: { seat: String(i) },
      },
      el("th", { scope: "row", text: seatName(i) }),
    );
    for (const penalties of view.scores) row.append(el("td", { text: String(penalties[i]) }));
    row.append(el("td", { class: "total", text: String(total) }));
    return row;
  });
  $("replay-score").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
  let result = "";
  if (view.phase === "finished" && view.winners) {
    const key = view.winners.length > 1 ? "result.winners" : "result.winner";
    result = `${t("result.match_title")}. ${t(key, { names: names(view.winners) })}`;
  }
  $("replay-result").textContent = result;
  $("replay-result").hidden = !result;
}

function drawControls() {
  const atEnd = here() === end();
  $("replay-first").disabled = here() === 0;
  $("replay-prev").disabled = here() === 0;
  $("replay-next").disabled = atEnd;
  $("replay-last").disabled = atEnd;
  // A better line is one turn from one step: the hand and the step stay where it began.
  $("replay-hand").disabled = Boolean(R.better);
  $("replay-slider").disabled = Boolean(R.better);
  const better = R.better;
  $("replay-better").hidden = !better;
  if (better) {
    $("replay-better-status").textContent = better.n
      ? t("coach.better_step", { n: better.n, total: better.views.length - 1 })
      : t("coach.better_start");
    $("replay-better-back").textContent = t("coach.show_played");
  }
  const playing = Boolean(R.timer);
  $("replay-play").textContent = t(playing ? "replay.pause" : "replay.play");
  $("replay-play").setAttribute("aria-pressed", String(playing));
  const starts = R.data.hands || [0];
  const select = $("replay-hand");
  const current = handAt(R.at);
  if (select.options.length !== starts.length || select.dataset.lang !== t("replay.hand_n")) {
    select.replaceChildren(
      ...starts.map((_, k) =>
        el("option", { value: String(k), text: t("replay.hand_n", { n: k + 1 }) }),
      ),
    );
    select.dataset.lang = t("replay.hand_n");
  }
  select.value = String(current);
  const slider = $("replay-slider");
  slider.max = String(last());
  slider.value = String(R.at);
  slider.setAttribute("aria-valuetext", t("replay.step", { n: R.at, total: last() }));
  $("replay-pos").textContent = t("replay.step", { n: R.at, total: last() });
}

export function renderReplay() {
  const message = $("replay-message");
  const body = $("replay-body");
  const texts = {
    loading: "replay.loading",
    withheld: "replay.withheld",
    missing: "replay.missing",
    failed: "replay.failed",
  };
  message.hidden = !texts[R.status];
  if (texts[R.status]) message.textContent = t(texts[R.status]);
  message.classList.toggle("withheld", R.status === "withheld");
  body.hidden = R.status !== "ready";
  $("replay-title").textContent = t("replay.title");
  if (R.status !== "ready") return;
  const view = R.views[R.at];
  const better = R.better;
  if (better) {
    const shown = better.views[better.n];
    drawFelt(shown, changedPiles(better.n ? better.views[better.n - 1] : null, shown));
  } else {
    drawFelt(view, changedPiles(R.at ? R.views[R.at - 1] : null, view));
  }
  drawScore(view);
  drawControls();
  $("replay-caption").textContent = better && better.n ? betterCaption(better.n) : captionAt(R.at);
}

// --- input ------------------------------------------------------------------------------

function active() {
  return !$("replay").hidden && R.status === "ready";
}

export function wireReplay() {
  $("replay-first").addEventListener("click", () => goTo(0));
  $("replay-prev").addEventListener("click", () => goTo(here() - 1));
  $("replay-next").addEventListener("click", () => goTo(here() + 1));
  $("replay-last").addEventListener("click", () => goTo(end()));
  $("replay-better-back").addEventListener("click", () => {
    leaveBetter();
    $("replay-next").focus(); // the button is gone with the better line
  });
  $("replay-play").addEventListener("click", togglePlay);
  $("replay-hand").addEventListener("change", () => {
    const starts = R.data.hands || [0];
    goTo(starts[Number($("replay-hand").value)] || 0);
  });
  $("replay-slider").addEventListener("input", () => goTo(Number($("replay-slider").value)));
  document.addEventListener("keydown", (event) => {
    if (!active() || event.altKey || event.ctrlKey || event.metaKey) return;
    const target = event.target;
    const field = target instanceof HTMLSelectElement || target instanceof HTMLInputElement;
    const pressable = field || target instanceof HTMLButtonElement;
    let handled = true;
    if (event.key === "ArrowRight" && !field) goTo(here() + 1);
    else if (event.key === "ArrowLeft" && !field) goTo(here() - 1);
    else if (event.key === "Home" && !field) goTo(0);
    else if (event.key === "End" && !field) goTo(end());
    else if (event.key === "PageDown") jumpHand(1);
    else if (event.key === "PageUp") jumpHand(-1);
    else if ((event.key === " " || event.key === "k") && !pressable) togglePlay();
    else handled = false;
    if (handled) event.preventDefault();
  });
}
