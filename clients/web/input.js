// What the player does at the table: tap (or click, or Enter/Space on) a card, then a pile;
// a pile, then another; or drag either onto a pile (pointer events: mouse, pen and touch).
// Whatever is tried is sent as an action: the server judges it. Escape clears a selection;
// D (or E) draws and ends the turn, H asks for a hint (while the table has the focus); in a
// room that draws until a card can be played, D draws a card and E ends the turn.

import { send } from "./connection.js";
import { game } from "./doc.js";
import { $, el } from "./dom.js";
import { keepTableInView } from "./fit.js";
import { focusHand, focusTarget, wireKeys } from "./keys.js";
import { S, render } from "./state.js";
import { leaveView } from "./views.js";

// --- actions -----------------------------------------------------------------------------

function act(action) {
  S.seq += 1;
  S.pending.set(S.seq, action);
  send({ type: "act", seq: S.seq, action });
  S.sel = null;
  S.hint = null;
  render();
}

function selectCard(card) {
  if (S.role !== "player") return;
  S.hint = null;
  S.sel = S.sel && S.sel.kind === "card" && S.sel.card === card ? null : { kind: "card", card };
  render();
  if (S.sel) keepTableInView(); // where the card may go glows gold: on screen
}

/** A pile chosen: play the selected card or move the selected pile onto it, or select it.
 * Says what it did: "acted", "selected" or nothing. */
function choosePile(pile) {
  const g = game();
  if (!g || S.role !== "player") return null;
  if (S.sel && S.sel.kind === "card") {
    act({ type: "play", card: S.sel.card, pile });
    return "acted";
  } else if (S.sel && S.sel.kind === "pile") {
    if (S.sel.pile === pile) {
      S.sel = null;
      render();
      return null;
    }
    act({ type: "move", from: S.sel.pile, to: pile });
    return "acted";
  } else if (g.piles[pile] && g.piles[pile].length) {
    S.hint = null;
    S.sel = { kind: "pile", pile };
    render();
    keepTableInView();
    return "selected";
  }
  return null;
}

function endTurn() {
  act({ type: "end_turn" });
}

function drawCard() {
  act({ type: "draw" });
}

export function onHint(frame) {
  const action = frame.action || {};
  if (action.type === "play") S.sel = { kind: "card", card: action.card };
  else if (action.type === "move") S.sel = { kind: "pile", pile: action.from };
  else S.sel = null;
  S.hint = { ...action, why: frame.reason || null };
  render();
}

// --- drag and drop (pointer events: mouse, pen and touch) ----------------------------------

let drag = null;

export function startDrag(event, source, visual) {
  if (event.button !== 0 || S.role !== "player") return;
  drag = { source, visual, x: event.clientX, y: event.clientY, id: event.pointerId, ghost: null };
}

function findPile(x, y) {
  const hit = document.elementFromPoint(x, y);
  return hit ? hit.closest("[data-pile]") : null;
}

function onPointerMove(event) {
  if (!drag || event.pointerId !== drag.id) return;
  if (!drag.ghost) {
    if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 8) return;
    S.sel = drag.source;
    S.hint = null;
    render();
    drag.ghost = el("div", { class: "drag-ghost" }, drag.visual());
    document.body.append(drag.ghost);
  }
  drag.ghost.style.transform = `translate(${event.clientX}px, ${event.clientY}px)`;
  for (const node of document.querySelectorAll(".drop-over")) node.classList.remove("drop-over");
  const over = findPile(event.clientX, event.clientY);
  if (over) over.classList.add("drop-over");
}

function endDrag(event, cancelled) {
  if (!drag || event.pointerId !== drag.id) return;
  const dragged = drag;
  drag = null;
  if (!dragged.ghost) return;
  dragged.ghost.remove();
  S.suppressClick = true;
  setTimeout(() => {
    S.suppressClick = false;
  }, 0);
  for (const node of document.querySelectorAll(".drop-over")) node.classList.remove("drop-over");
  const over = cancelled ? null : findPile(event.clientX, event.clientY);
  const pile = over ? over.dataset.pile : null;
  if (pile && !(dragged.source.kind === "pile" && dragged.source.pile === pile)) choosePile(pile);
}

// --- taps ----------------------------------------------------------------------------------

/** A card tapped or clicked (``keyboard``: with Enter or Space). From the keyboard, the card
 * a hint chose is taken as it stands (Enter says "this one", not "let go"): it stays chosen,
 * and the focus goes to the pile the hint names. */
function tapCard(card, keyboard) {
  const hinted = S.hint && S.hint.type === "play" && S.hint.card === card;
  if (keyboard && hinted && S.sel && S.sel.kind === "card" && S.sel.card === card) {
    focusTarget(S.hint.pile);
    return;
  }
  selectCard(card);
  if (keyboard && S.sel) focusTarget();
}

function tapPile(pile, keyboard) {
  const done = choosePile(pile);
  if (keyboard && done === "acted") focusHand();
  else if (keyboard && done === "selected") focusTarget();
}

// A render draws the hand and the piles afresh: a patch that comes between the press and the
// release of a tap (the answer to the card just played, a bot's move) replaces the pressed
// button, and the browser sends no click for a press and a release on different nodes. Such
// a tap, released on the button that now shows the same card or pile, is made here.
let press = null;

function onPress(event) {
  const node = event.button === 0 ? event.target.closest("[data-card], [data-pile]") : null;
  press = node ? { node, id: event.pointerId } : null;
}

function onRelease(event) {
  const pressed = press;
  press = null;
  if (!pressed || event.pointerId !== pressed.id || pressed.node.isConnected) return;
  if (S.suppressClick) return; // a drag, or a tap already made
  const hit = document.elementFromPoint(event.clientX, event.clientY);
  const { card, pile } = pressed.node.dataset;
  const node = hit && hit.closest(card ? "#hand [data-card]" : "#board [data-pile]");
  if (!node || (card ? node.dataset.card !== card : node.dataset.pile !== pile)) return;
  // Should a click come after all (on another browser), it is not taken twice.
  S.suppressClick = true;
  setTimeout(() => {
    S.suppressClick = false;
  }, 0);
  if (card) tapCard(card, false);
  else tapPile(pile, false);
}

// --- keys for the turn's actions --------------------------------------------------------------

/** Whether the table's own keys apply: it shows, and the focus is on it (or nowhere), not
 * in a field, a dialog or the side panel. */
function tableHasKeys() {
  if ($("table").hidden || !$("overlay").hidden || S.role !== "player") return false;
  const active = document.activeElement;
  return !active || active === document.body || $("table").contains(active);
}

/** D or E: "Draw and end turn" (D: "Draw a card" when the room has it); H: "Hint". Says
 * whether it took the key. */
function tableKey(event) {
  if (event.altKey || event.ctrlKey || event.metaKey || event.repeat) return false;
  const key = event.key.toLowerCase();
  if (!["d", "e", "h"].includes(key) || !tableHasKeys()) return false;
  const draws = key === "d" && !$("draw-card").hidden;
  const button = $(key === "h" ? "hint" : draws ? "draw-card" : "end-turn");
  event.preventDefault();
  if (!button.disabled) button.click();
  return true;
}

// --- wiring ------------------------------------------------------------------------------

export function wireInput() {
  window.addEventListener("pointermove", onPointerMove);
  window.addEventListener("pointerup", (event) => endDrag(event, false));
  window.addEventListener("pointercancel", (event) => endDrag(event, true));
  window.addEventListener("pointerup", onRelease); // after endDrag: a drag is no tap
  window.addEventListener("pointercancel", () => {
    press = null;
  });
  $("board").addEventListener("pointerdown", onPress);
  $("hand").addEventListener("pointerdown", onPress);
  $("board").addEventListener("click", (event) => {
    const pile = event.target.closest("[data-pile]");
    if (!pile || S.suppressClick) return;
    // event.detail is 0 for a click made with Enter or Space: keep the keyboard moving.
    tapPile(pile.dataset.pile, event.detail === 0);
  });
  $("hand").addEventListener("click", (event) => {
    const card = event.target.closest("[data-card]");
    if (!card || S.suppressClick) return;
    tapCard(card.dataset.card, event.detail === 0);
  });
  $("end-turn").addEventListener("click", endTurn);
  $("draw-card").addEventListener("click", drawCard);
  $("hint").addEventListener("click", () => send({ type: "hint" }));
  document.addEventListener("keydown", (event) => {
    if (S.view) {
      if (event.key === "Escape") leaveView();
      return;
    }
    if (tableKey(event)) return;
    if (event.key === "Escape" && !$("overlay").hidden) {
      $("view-table").click();
    } else if (event.key === "Escape" && S.sel) {
      S.sel = null;
      S.hint = null;
      render();
      focusHand();
    }
  });
  wireKeys();
}
