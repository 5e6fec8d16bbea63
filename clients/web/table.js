// The table while a hand is played: the other seats' plates, the piles, your hand, the
// status line and the actions, the turn clock, and the "a bot is playing for you" bar.
// Drawn afresh from the document on every render; fit.js then fits it to the screen.

import { GRID, POSITIONS, pileClasses, pileLabel, pileParts, stockView } from "./board.js";
import { cardFace, cardName, cardText, sortHand } from "./cards.js";
import { send } from "./connection.js";
import {
  botLabel,
  legal,
  movablePiles,
  myTurn,
  playableCards,
  seatInfo,
  seatName,
  targets,
} from "./doc.js";
import { $, el } from "./dom.js";
import { fitTable, keepTableInView, markMore } from "./fit.js";
import { has, t } from "./i18n.js";
import { startDrag } from "./input.js";
import { focusFirstCard, focusHand, roveTable } from "./keys.js";
import { land, lastTurn } from "./motion.js";
import { S, render, storage } from "./state.js";
import { placeToasts } from "./toasts.js";

// localStorage: the order of your hand, "suit" (by suit and rank, the default) or "dealt".
const HAND_ORDER = "kc.hand_order";

function handOrder() {
  return storage.get(localStorage, HAND_ORDER) === "dealt" ? "dealt" : "suit";
}

// --- the turn clock ----------------------------------------------------------------------

/** The countdown of the turn being played, when the room has a turn timer. It runs from
 * when this client saw the turn start; the server's own timer decides. */
function updateClock(g) {
  const seconds = S.doc.room.options.turn_timer;
  const seat = seatInfo(g.turn);
  const key = `${S.room}:${g.hand_no}:${g.turn}:${S.clockEpoch}`;
  const timed =
    seconds &&
    g.phase === "playing" &&
    !g.result &&
    seat &&
    seat.kind === "human" &&
    !seat.away &&
    S.clockExpired !== key;
  if (!timed) {
    S.clock = null;
  } else if (!S.clock || S.clock.key !== key) {
    S.clock = { key, seat: g.turn, end: performance.now() + seconds * 1000 };
  }
}

function clockText() {
  const left = Math.max(0, Math.ceil((S.clock.end - performance.now()) / 1000));
  return { left, text: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` };
}

export function tickClocks() {
  const shown = document.querySelectorAll("[data-clock]");
  if (!S.clock || !shown.length) return;
  const { left, text } = clockText();
  for (const node of shown) {
    node.textContent = text;
    node.classList.toggle("low", left <= 10);
  }
}

// --- seats, piles and the hand --------------------------------------------------------------

function plate(i, g, position) {
  const seat = seatInfo(i);
  const count = g.counts[i];
  const turn = g.phase === "playing" && g.turn === i;
  const classes = ["plate", `pos-${position}`];
  const turnDone = lastTurn(S.room);
  const lastMover = Boolean(turnDone && turnDone.seat === i);
  if (turn) classes.push("turn");
  if (lastMover) classes.push("last-mover");
  if (seat && seat.kind === "bot") classes.push("bot");
  if (seat && seat.away) classes.push("away");
  if (seat && seat.kind === "human" && !seat.connected) classes.push("offline");
  if (g.winners && g.winners.includes(i)) classes.push("winner");
  let kind = t("seat.empty");
  if (seat && seat.kind === "bot") kind = botLabel(seat);
  else if (seat && seat.away) kind = t("seat.away");
  else if (seat) {
    kind = `${t("seat.human")} · ${t(seat.connected ? "seat.online" : "seat.offline")}`;
  }
  const countText = count === 1 ? t("seat.card_one") : t("seat.cards", { n: count });
  const backs = el("span", { class: "mini-backs", "aria-hidden": "true" });
  for (let k = 0; k < Math.min(count, 12); k += 1) backs.append(el("span", { class: "mini-back" }));
  const name = seatName(i);
  // scoring "corners": the corners this seat collected, public at every moment.
  const corners = Array.isArray(g.collected) ? g.collected[i] : null;
  const cornersText = corners === null ? null : t("seat.collected", { n: corners });
  const label = [name, i === S.seat ? t("seat.you") : null, kind, countText, cornersText]
    .concat(g.dealer === i ? [t("seat.dealer")] : [])
    .concat(turn ? [t("seat.turn")] : [])
    .concat(lastMover ? [t("seat.last_move")] : [])
    .filter(Boolean)
    .join(", ");
  return el(
    "div",
    { class: classes.join(" "), dataset: { seat: String(i) }, role: "group", "aria-label": label },
    el(
      "div",
      { class: "plate-head" },
      el("span", { class: "dot", "aria-hidden": "true" }),
      el("span", { class: "pname", text: name }),
      g.dealer === i
        ? el("span", {
            class: "dealer-chip",
            title: t("seat.dealer"),
            text: "D",
            "aria-hidden": "true",
          })
        : null,
      S.clock && S.clock.seat === i
        ? el("span", {
            class: "clock",
            role: "timer",
            "aria-label": t("clock.label"),
            dataset: { clock: "" },
          })
        : null,
    ),
    el("div", { class: "plate-sub", text: kind }),
    corners === null
      ? null
      : el(
          "div",
          { class: "plate-corners", dataset: { corners: String(corners) } },
          el("span", { class: "corners-long", text: cornersText }),
          el("span", { class: "corners-short", text: `◰ ${corners}`, "aria-hidden": "true" }),
        ),
    lastMover
      ? el("div", { class: "last-tag", "aria-hidden": "true", text: t("seat.last_move") })
      : null,
    el(
      "div",
      { class: "plate-cards" },
      backs,
      el(
        "span",
        { class: "pcount" },
        el("span", { class: "pcount-long", text: countText }),
        el("span", { class: "pcount-short", text: String(count), "aria-hidden": "true" }),
      ),
    ),
  );
}

function pileButton(name, g, goals, movable) {
  const cards = g.piles[name] || [];
  const fits = goals.has(name);
  const selected = S.sel && S.sel.kind === "pile" && S.sel.pile === name;
  const hinted = S.hint && (S.hint.pile === name || S.hint.to === name);
  const classes = pileClasses(name, cards);
  if (fits) classes.push("legal");
  if (selected) classes.push("selected");
  if (hinted) classes.push("hinted");
  if (movable.has(name)) classes.push("movable");
  const turnDone = lastTurn(S.room);
  if (turnDone && turnDone.piles.has(name)) classes.push("last-turn");
  const button = el(
    "button",
    {
      type: "button",
      class: classes.join(" "),
      dataset: { pile: name, focusKey: `pile:${name}` },
      "aria-label": pileLabel(name, cards, fits, selected, movable.has(name)),
      "aria-pressed": S.role === "player" ? String(Boolean(selected)) : null,
      disabled: S.role !== "player",
    },
    ...pileParts(name, cards, S.fresh.has(name)),
  );
  if (cards.length && S.role === "player") {
    button.addEventListener("pointerdown", (event) =>
      startDrag(event, { kind: "pile", pile: name }, () => cardFace(cards[cards.length - 1])),
    );
  }
  return button;
}

function handButtons(g) {
  const hand = handOrder() === "suit" ? sortHand(g.hand || []) : [...(g.hand || [])];
  const playable = playableCards();
  const buttons = hand.map((card) => {
    const selected = S.sel && S.sel.kind === "card" && S.sel.card === card;
    const fits = playable.has(card);
    const classes = ["card-btn"];
    if (selected) classes.push("selected");
    if (fits) classes.push("playable");
    if (S.fresh.has(card)) classes.push("drawn");
    const label =
      cardName(card) + (fits ? t("hand.playable") : "") + (selected ? t("hand.selected") : "");
    const button = el(
      "button",
      {
        type: "button",
        class: classes.join(" "),
        dataset: { card, focusKey: `card:${card}` },
        "aria-label": label,
        "aria-pressed": String(Boolean(selected)),
      },
      cardFace(card),
    );
    button.addEventListener("pointerdown", (event) =>
      startDrag(event, { kind: "card", card }, () => cardFace(card)),
    );
    return button;
  });
  return buttons;
}

/** Note which piles got a new top card and which cards just came into the hand. */
function trackChanges(g) {
  S.fresh = new Set();
  const tops = {};
  for (const [name, cards] of Object.entries(g.piles)) {
    tops[name] = cards.length ? cards[cards.length - 1] : null;
    if (S.lastTops[name] !== undefined && S.lastTops[name] !== tops[name] && tops[name]) {
      S.fresh.add(name);
    }
  }
  S.lastTops = tops;
  const hand = g.hand || [];
  if (S.lastHand) for (const card of hand) if (!S.lastHand.includes(card)) S.fresh.add(card);
  S.lastHand = [...hand];
}

// Which parameters of a hint's reason are cards, and which are piles.
const REASON_CARDS = new Set(["card", "next", "target", "top"]);

/** Why the hint suggests its move, in the player's language (empty when unsaid). */
function hintWhy(why) {
  if (!why || !has(`why.${why.code}`)) return "";
  const words = {};
  for (const [key, value] of Object.entries(why.params || {})) {
    words[key] = REASON_CARDS.has(key) ? cardText(String(value)) : t(`pile.${value}`);
  }
  return ` ${t(`why.${why.code}`, words)}`;
}

function statusText(g) {
  if (g.phase === "finished") return t("status.finished");
  if (g.phase === "hand_over") return t("status.hand_over");
  const playing = t("status.turn_of", { name: seatName(g.turn) });
  if (S.role !== "player") return `${t("status.watching")} ${playing}`;
  if (!myTurn()) return playing;
  const why = S.hint ? hintWhy(S.hint.why) : "";
  if (S.hint && S.hint.type === "end_turn") return t("status.hint_end") + why;
  if (S.hint && S.hint.type === "draw") return t("status.hint_draw") + why;
  if (S.hint && S.hint.type === "play") {
    const words = { card: cardText(S.hint.card), pile: t(`pile.${S.hint.pile}`) };
    return t("status.hint_play", words) + why;
  }
  if (S.hint && S.hint.type === "move") {
    const words = { from: t(`pile.${S.hint.from}`), to: t(`pile.${S.hint.to}`) };
    return t("status.hint_move", words) + why;
  }
  if (S.sel && S.sel.kind === "card") {
    const key = targets().size ? "status.card_selected" : "status.no_fit";
    return t(key, { card: cardText(S.sel.card) });
  }
  if (S.sel && S.sel.kind === "pile") {
    return t("status.pile_selected", { pile: t(`pile.${S.sel.pile}`) });
  }
  if (legal().includes("draw")) return t("status.draw");
  if (!legal().includes("end") && mustPlay(g)) return t("status.must_play");
  if (!legal().includes("end") && S.doc.room.options.kings_first) return t("status.kings_first");
  return t("status.your_turn");
}

/** Whether "end" is missing because no card of the hand was played yet: under "draw until
 * playable" a turn ends only after a play, or once the stock is empty. */
function mustPlay(g) {
  return S.doc.room.options.draw === "until_playable" && g.stock > 0 && !kingWaits(g);
}

/** Whether "kings first" keeps the turn going: a king in hand and an empty corner. */
function kingWaits(g) {
  if (!S.doc.room.options.kings_first) return false;
  const king = (g.hand || []).some((card) => card.startsWith("K"));
  return king && ["NE", "SE", "SW", "NW"].some((name) => !(g.piles[name] || []).length);
}

export function renderTable(g) {
  // Forget a selection the new state made stale.
  if (S.sel && S.sel.kind === "card" && !(g.hand || []).includes(S.sel.card)) S.sel = null;
  if (S.sel && S.sel.kind === "pile" && !(g.piles[S.sel.pile] || []).length) S.sel = null;
  trackChanges(g);
  updateClock(g);
  const focusKey = document.activeElement ? document.activeElement.dataset.focusKey : undefined;
  const n = g.seats;
  const base = S.seat === null ? 0 : S.seat;
  const positions = POSITIONS[n] || [];
  const plates = positions.map((position, k) => plate((base + 1 + k) % n, g, position));
  $("opponents").replaceChildren(...plates);
  $("opponents").dataset.count = String(plates.length);
  $("me-plate").replaceChildren(plate(base, g, "bottom"));

  const goals = targets();
  const movable = movablePiles();
  const board = $("board");
  board.replaceChildren(
    ...GRID.map((name) =>
      name === "stock" ? stockView(g.stock) : pileButton(name, g, goals, movable),
    ),
  );
  board.classList.toggle("choosing", S.sel !== null);

  const hand = $("hand");
  // A hand that scrolls sideways stays where it was scrolled to (its cards are new nodes).
  const scrolled = hand.scrollLeft;
  if (S.role === "player") {
    const buttons = handButtons(g);
    const empty = el("span", { class: "muted", text: t("hand.empty") });
    hand.replaceChildren(...(buttons.length ? buttons : [empty]));
    hand.hidden = false;
    hand.classList.toggle("laid", buttons.length > 0);
  } else {
    hand.replaceChildren();
    hand.hidden = true;
  }
  // opening_refill: while the first turn's window is open, what a pile move does.
  const refill =
    g.refill_open && g.phase === "playing"
      ? el("span", { class: "refill-note", text: t("status.refill_open") })
      : null;
  $("status").replaceChildren(statusText(g), ...(refill ? [" ", refill] : []));
  $("felt").classList.toggle("my-turn", myTurn());

  const seated = S.role === "player";
  $("actions").hidden = !seated;
  const order = handOrder();
  const sortButton = $("sort-hand");
  sortButton.textContent = t(order === "suit" ? "hand.order_suit" : "hand.order_dealt");
  sortButton.setAttribute("aria-label", t("hand.order_label", { order: sortButton.textContent }));
  const endButton = $("end-turn");
  const draws = g.stock > 0 && S.doc.room.options.draw === "end";
  endButton.textContent = t(draws ? "act.draw_end" : "act.end");
  endButton.disabled = !legal().includes("end");
  // With "kings first" the server leaves "end" out while a king must still go to a corner;
  // with "draw until playable", until a card of the hand was played (or the stock is empty).
  const kingFirst = myTurn() && endButton.disabled && kingWaits(g);
  const playFirst = myTurn() && endButton.disabled && mustPlay(g);
  const why = kingFirst ? "status.kings_first" : playFirst ? "status.must_play" : null;
  endButton.title = why ? t(why) : "";
  endButton.classList.toggle("hinted", Boolean(S.hint && S.hint.type === "end_turn"));
  // Drawing is an action of its own only when the room draws until a card can be played.
  const drawButton = $("draw-card");
  drawButton.hidden = S.doc.room.options.draw !== "until_playable";
  drawButton.textContent = t("act.draw");
  drawButton.disabled = !legal().includes("draw");
  drawButton.classList.toggle("hinted", Boolean(S.hint && S.hint.type === "draw"));
  $("hint").disabled = !myTurn();
  tickClocks();
  fitTable(); // the card sizes for this screen, and the hand laid out
  if (scrolled && hand.scrollLeft !== scrolled) {
    hand.scrollLeft = scrolled;
    markMore();
  }
  land(S.doc.room.options.pace); // the last patches' moves travel to where this render put them

  if (focusKey) {
    const again = document.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
    if (again && !again.disabled) again.focus();
    else if (focusKey.startsWith("card:")) {
      const first = hand.querySelector("button");
      if (first) first.focus();
    }
  }
  roveTable();
  const mine = myTurn();
  // Your first turn of a hand, or a turn coming back: the focus follows once the whole page
  // is drawn (the last hand's result goes away after the table, taking its focus with it).
  const handKey = `${S.room}:${g.hand_no}`;
  if (g.phase !== "playing") turnHand = null;
  if (mine && turnHand !== handKey) {
    turnHand = handKey;
    queueMicrotask(() => turnFocus(true));
  } else if (mine && !S.turnWasMine) {
    queueMicrotask(() => turnFocus(false));
  }
  S.turnWasMine = mine;
}

// The hand (room and number) whose first turn of yours has come: the next one starts anew.
let turnHand = null;

/** Whether the player is typing: in a text field, a list or an editable element. */
function typing(node) {
  if (!node || node === document.body) return false;
  if (node.isContentEditable || node.tagName === "TEXTAREA" || node.tagName === "SELECT") {
    return true;
  }
  const fields = ["button", "checkbox", "radio", "range", "color", "file", "submit", "reset"];
  return node.tagName === "INPUT" && !fields.includes(node.type);
}

/** Your turn came: the focus goes to your hand, so the turn starts where the keyboard plays
 * from. A hand's first turn starts at its first card, from wherever the focus was (the last
 * hand's result, a pile, a card) unless you are typing or a dialog is open; a later turn
 * brings it back to the card you were on, unless you are typing or reading elsewhere. */
function turnFocus(first) {
  if (S.view || $("table").hidden || !$("overlay").hidden || !myTurn()) return;
  const active = document.activeElement;
  // Nowhere, or on a control that is gone from the screen ("Start the match", "Next hand").
  const idle = !active || active === document.body || !active.getClientRects().length;
  if (first) {
    const open = "dialog[open], [role='alertdialog'], .view, .lang-menu";
    if (!idle && (typing(active) || active.closest(open))) return;
    focusFirstCard();
  } else {
    const atTable = Boolean(active) && $("table").contains(active) && !$("hand").contains(active);
    if (!idle && !atTable) return;
    focusHand();
  }
  keepTableInView();
}

/** "A bot is playing for you": shown while this seat is away and the server takes "back". */
export function renderAway(g) {
  const mine = S.seat !== null && S.doc ? S.doc.room.seats[S.seat] : null;
  const phase = g ? g.phase : null;
  $("away-bar").hidden = !(mine && mine.away && (phase === "playing" || phase === "hand_over"));
}

export function wireTable() {
  $("back").addEventListener("click", () => send({ type: "back" }));
  $("sort-hand").addEventListener("click", () => {
    storage.set(localStorage, HAND_ORDER, handOrder() === "suit" ? "dealt" : "suit");
    render();
  });
  window.addEventListener("resize", () => {
    fitTable();
    placeToasts();
  });
  $("hand").addEventListener("scroll", markMore, { passive: true });
}
