// The keyboard at the table. The piles are one Tab stop and the hand is another (a roving
// tabindex): arrow keys move inside them, so a pile is one Shift+Tab from the hand however
// many cards it holds. Choosing a card or a pile from the keyboard takes focus to the first
// pile it fits on; playing brings focus back to the hand, and so does your turn coming.

import { GRID } from "./board.js";
import { $ } from "./dom.js";

// The board's 3×3 grid (the stock in the middle is not a stop): where each arrow goes.
const STEPS = { ArrowLeft: [0, -1], ArrowRight: [0, 1], ArrowUp: [-1, 0], ArrowDown: [1, 0] };

const remembered = { board: null, hand: null };

function stops(box) {
  return [...box.querySelectorAll("button:not([disabled])")];
}

function keyOf(button) {
  return button ? button.dataset.focusKey : null;
}

/** Give exactly one button of `box` tabindex 0: the focused one, else `preferred`, else the
 * one focused last, else the first. */
function rove(name, preferred) {
  const box = $(name);
  const buttons = stops(box);
  if (!buttons.length) return;
  const active = buttons.find((b) => b === document.activeElement);
  const last = buttons.find((b) => keyOf(b) === remembered[name]);
  const chosen = active || preferred || last || buttons[0];
  for (const button of buttons) button.tabIndex = button === chosen ? 0 : -1;
}

/** After each render: the stops of the board and the hand. A selection makes the first pile
 * it fits on the board's stop. */
export function roveTable() {
  const board = $("board");
  rove("board", board.querySelector(".pile.legal:not([disabled])"));
  rove("hand", $("hand").querySelector(".card-btn.selected"));
}

/** Focus the pile named ``preferred`` when the selection fits on it, else the first pile it
 * fits on (or the board's stop). */
export function focusTarget(preferred) {
  const board = $("board");
  const named = preferred
    ? board.querySelector(`.pile.legal[data-pile="${CSS.escape(preferred)}"]:not([disabled])`)
    : null;
  const target = named || board.querySelector(".pile.legal:not([disabled])") || stops(board)[0];
  if (target) target.focus();
}

/** Focus the first card of the hand (a new hand's first turn): the card focused in the last
 * hand is forgotten. */
export function focusFirstCard() {
  const [first] = stops($("hand"));
  remembered.hand = null;
  if (first) first.focus();
}

/** Focus the hand's stop (the selected card, else the card focused last, else the first). */
export function focusHand() {
  const hand = $("hand");
  const buttons = stops(hand);
  const chosen =
    buttons.find((b) => b.classList.contains("selected")) ||
    buttons.find((b) => keyOf(b) === remembered.hand) ||
    buttons[0];
  if (chosen) chosen.focus();
}

function moveInGrid(from, [dr, dc]) {
  const buttons = new Map(stops($("board")).map((b) => [b.dataset.pile, b]));
  let index = GRID.indexOf(from.dataset.pile);
  for (;;) {
    const row = Math.floor(index / 3) + dr;
    const col = (index % 3) + dc;
    if (row < 0 || row > 2 || col < 0 || col > 2) return null;
    index = row * 3 + col;
    const next = buttons.get(GRID[index]);
    if (next) return next;
  }
}

function moveInHand(from, key) {
  const buttons = stops($("hand"));
  const at = buttons.indexOf(from);
  if (key === "Home") return buttons[0];
  if (key === "End") return buttons[buttons.length - 1];
  const step = key === "ArrowLeft" || key === "ArrowUp" ? -1 : 1;
  return buttons[Math.min(buttons.length - 1, Math.max(0, at + step))];
}

function onKey(name, event) {
  const from = event.target.closest("button");
  if (!from || event.altKey || event.ctrlKey || event.metaKey) return;
  let next = null;
  if (name === "board" && STEPS[event.key]) next = moveInGrid(from, STEPS[event.key]);
  else if (name === "hand" && (STEPS[event.key] || event.key === "Home" || event.key === "End"))
    next = moveInHand(from, event.key);
  else return;
  event.preventDefault();
  if (next && next !== from) next.focus();
}

export function wireKeys() {
  for (const name of ["board", "hand"]) {
    const box = $(name);
    box.addEventListener("keydown", (event) => onKey(name, event));
    box.addEventListener("focusin", (event) => {
      const button = event.target.closest("button");
      if (!button) return;
      remembered[name] = keyOf(button);
      for (const other of stops(box)) other.tabIndex = other === button ? 0 : -1;
    });
  }
}
