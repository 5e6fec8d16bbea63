// The table fitted to one screen. On a phone (a narrow window, or a short one in landscape)
// the plates, the piles, your hand and the actions always fit the screen together, whatever
// the size of the hand: the sizes of the board's cards (--cw) and of your hand's (--hw) are
// worked out from the room left once everything else has its place, and the hand is laid
// out in overlapping rows (sideways scrolling only when even the smallest cards would not
// fit). On a wide screen the styles size the cards, and only the hand is laid out here.
//
// Every card of the hand shows at least MIN_TAP pixels each way: a tap target, with its rank
// and suit in the corner.

import { $ } from "./dom.js";
import { t } from "./i18n.js";

/** Narrow windows and short ones: the phone layouts (css/phone.css says the same). */
export const COMPACT = "(max-width: 820px), (max-height: 500px)";
/** A short, wide window (a phone held sideways): the board beside your hand. */
export const SIDEWAYS = "(max-height: 500px) and (min-aspect-ratio: 4/3)";

export const MIN_TAP = 44;
const HAND_GAP = 6; // between cards while the hand has room to spare
const LIFT = 22; // room above one row for the lifted (selected) card
const LIFTED = 20; // how far a selected card rises (over another row: less, see placeHand)
const ROWS_TOP = 8; // above several rows: a lifted card may cover the status line
const BOTTOM = 4;
const SIDE = 6;
// A pile is its card and the base card peeking out above it: 1.4 + 0.58 card widths.
const PILE = 1.98;
const CW_MAX = 100;
const CW_MIN = 40;
const HW_MAX = 104;
const HW_MIN = 52;
const SAFETY = 2;
// The bottom piles' name tags and counts hang this far below their cards.
const OVERHANG = 10;

function compact() {
  return window.matchMedia(COMPACT).matches;
}

function sideways() {
  return window.matchMedia(SIDEWAYS).matches;
}

/** Where the cards of a hand of ``n`` go in ``width`` pixels, cards ``cw`` wide: rows that
 * overlap as little as they can, at most ``maxRows`` (beyond that the hand scrolls). */
export function handPlan(n, width, cw, maxRows = Infinity) {
  const ch = cw * 1.4;
  const minStep = Math.max(MIN_TAP, cw * 0.42);
  const fit = Math.max(1, Math.floor((width - cw) / minStep) + 1);
  let rows = Math.max(1, Math.ceil(n / fit));
  const scrolls = rows > maxRows;
  if (scrolls) rows = Math.max(1, maxRows);
  const perRow = Math.ceil(n / rows);
  let step = cw;
  if (scrolls) step = minStep;
  else if (perRow > 1) step = Math.min(cw + HAND_GAP, (width - cw) / (perRow - 1));
  const rowStep = rows > 1 ? Math.max(MIN_TAP, Math.round(ch * 0.46)) : ch;
  const top = rows > 1 && !scrolls ? ROWS_TOP : LIFT;
  const height = n ? top + (rows - 1) * rowStep + ch + BOTTOM : 0;
  return { n, width, cw, ch, rows, perRow, step, rowStep, top, height, scrolls };
}

/** How many rows of cards ``cw`` wide fit in ``room`` pixels (at least one). */
function rowsIn(room, cw) {
  const ch = cw * 1.4;
  const rowStep = Math.max(MIN_TAP, Math.round(ch * 0.46));
  return Math.max(1, Math.floor((room - ROWS_TOP - BOTTOM - ch) / rowStep) + 1);
}

/** How far down its card the rank and suit of the top left corner reach. */
function cornerDepth(button, cw) {
  const corner = button.querySelector(".idx.tl");
  return corner && corner.offsetHeight ? corner.offsetTop + corner.offsetHeight : cw * 0.6;
}

/** Place every card of the hand as ``plan`` says. Each button is exactly the part of its
 * card that shows. A selected card rises in its place (hand.css), under the cards that lie
 * over it: it covers no rank or suit of the cards beside it; over another row it rises only
 * as far as that row's corners leave room (``--lift``). */
function placeHand(hand, buttons, plan) {
  const { n, width, cw, ch, rows, perRow, step, rowStep, top } = plan;
  hand.classList.toggle("rows", rows > 1);
  hand.classList.toggle("scrolls", plan.scrolls);
  hand.style.padding = `${top}px ${SIDE}px ${BOTTOM}px`;
  const free = rows > 1 ? Math.floor(rowStep - cornerDepth(buttons[0], cw) - 3) : LIFTED;
  const lift = Math.max(4, Math.min(LIFTED, free));
  buttons.forEach((button, k) => {
    const row = Math.floor(k / perRow);
    const col = k % perRow;
    const inRow = Math.min(perRow, n - row * perRow);
    const rowWidth = cw + (inRow - 1) * step;
    const lastInRow = col === inRow - 1;
    const start = Math.max(0, (width - rowWidth) / 2);
    Object.assign(button.style, {
      left: `${Math.round(SIDE + start + col * step)}px`,
      top: `${top + row * rowStep}px`,
      width: `${lastInRow ? cw : Math.floor(step)}px`,
      height: `${row === rows - 1 ? ch : rowStep}px`,
    });
    button.style.setProperty("--lift", `${row === 0 ? LIFTED : lift}px`);
  });
  hand.style.height = `${plan.height}px`;
}

function clearSizes() {
  const root = document.documentElement.style;
  root.removeProperty("--cw");
  root.removeProperty("--hw");
}

function shown(node) {
  return Boolean(node) && !node.hidden && node.getClientRects().length > 0;
}

/** Heights of the table's rows other than the board and the hand, with the gaps between
 * every row shown (the hand's too, and the board's when it is a row of its own). */
function otherRows(felt, hand, boardRow) {
  const gap = parseFloat(getComputedStyle(felt).rowGap) || 0;
  const plates = Math.max($("opponents").offsetHeight, $("me-plate").offsetHeight);
  const status = Math.max($("status").offsetHeight, $("tips-table").offsetHeight);
  const parts = [plates, $("away-bar").offsetHeight, status, $("actions").offsetHeight];
  // A hand without cards ("No cards") is a row of text like the others.
  if (!hand.querySelector(".card-btn")) parts.push(hand.offsetHeight);
  const rows = parts.filter((h) => h > 0).length + (boardRow ? 1 : 0);
  const handRow = hand.querySelector(".card-btn") ? 1 : 0;
  return parts.reduce((a, b) => a + b, 0) + gap * Math.max(0, rows + handRow - 1);
}

function boardGaps(board) {
  const style = getComputedStyle(board);
  return { row: parseFloat(style.rowGap) || 0, col: parseFloat(style.columnGap) || 0 };
}

/** Fit the table to the screen (phones) and lay the hand out; after every render and on
 * every resize. */
export function fitTable() {
  layTable();
  markMore();
}

// --- a hand wider than the screen ------------------------------------------------------------

/** Whether the rank and suit in the corner of ``button``'s card show between ``left`` and
 * ``right`` (the hand's visible part, in the page's coordinates). */
function cornerShows(button, left, right) {
  const corner = button.querySelector(".idx.tl");
  const box = (corner || button).getBoundingClientRect();
  return box.left >= left - 1 && box.right <= right + 1;
}

/** A hand that scrolls sideways says so on each side that has more of it: a shade, an arrow
 * and, when cards there are out of view (their corner cannot be read), how many; a screen
 * reader hears how many are out of view. After every layout and every scroll of the hand. */
export function markMore() {
  const hand = $("hand");
  const cue = $("hand-more");
  if (!cue) return;
  const buttons = [...hand.querySelectorAll(".card-btn")];
  const range = hand.scrollWidth - hand.clientWidth;
  if (hand.hidden || !buttons.length || range <= 1 || !shown(hand)) {
    cue.hidden = true;
    return;
  }
  const box = hand.getBoundingClientRect();
  const left = box.left + hand.clientLeft;
  const right = left + hand.clientWidth;
  let before = 0;
  let after = 0;
  for (const button of buttons) {
    if (cornerShows(button, left, right)) continue;
    const middle = button.getBoundingClientRect();
    if (middle.left + middle.width / 2 < (left + right) / 2) before += 1;
    else after += 1;
  }
  const sides = {
    left: { more: hand.scrollLeft > 1, count: before, arrow: "‹" },
    right: { more: hand.scrollLeft < range - 1, count: after, arrow: "›" },
  };
  for (const [side, { more, count, arrow }] of Object.entries(sides)) {
    const edge = $(`hand-more-${side}`);
    edge.hidden = !more;
    const words = count ? t("hand.more", { n: count }) : "";
    edge.querySelector(".more-pill").textContent =
      side === "left" ? `${arrow} ${words}`.trim() : `${words} ${arrow}`.trim();
  }
  const out = before + after;
  const said = out ? t("hand.out_of_view", { n: out, total: buttons.length }) : "";
  $("hand-more-text").textContent = said;
  cue.hidden = !sides.left.more && !sides.right.more;
}

function layTable() {
  const felt = $("felt");
  const hand = $("hand");
  const board = $("board");
  if (!shown(felt)) {
    clearSizes();
    return;
  }
  const buttons = [...hand.querySelectorAll(".card-btn")];
  const n = buttons.length;
  if (!compact()) {
    clearSizes();
    if (!n || hand.hidden) {
      hand.style.height = "";
      hand.style.padding = "";
      return;
    }
    const cw = buttons[0].querySelector(".card").offsetWidth;
    const width = hand.clientWidth - 2 * SIDE;
    if (cw && width > 0) placeHand(hand, buttons, handPlan(n, width, cw));
    return;
  }
  const style = getComputedStyle(felt);
  const innerH = felt.clientHeight - parseFloat(style.paddingTop) - parseFloat(style.paddingBottom);
  const innerW = felt.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
  const gaps = boardGaps(board);
  const side = sideways();
  const rest = otherRows(felt, hand, !side);
  const withHand = n > 0 && !hand.hidden;
  let cw;
  let plan = null;
  if (side) {
    // The board has the whole height; your side the width beside it.
    const colGap = parseFloat(style.columnGap) || 0;
    cw = (innerH - 2 * gaps.row - OVERHANG - SAFETY) / (3 * PILE);
    cw = Math.min(CW_MAX, cw, (innerW - 280 - colGap - 2 * gaps.col) / 3);
    const width = innerW - (3 * cw + 2 * gaps.col) - colGap - 2 * SIDE;
    if (withHand) {
      const room = innerH - rest - SAFETY;
      const top = Math.min(HW_MAX, Math.floor(width / 5.2), Math.max(HW_MIN, cw * 1.25));
      for (let hw = Math.floor(top); hw >= HW_MIN && !plan; hw -= 2) {
        const tried = handPlan(n, width, hw);
        if (tried.height <= room) plan = tried;
      }
      if (!plan) plan = handPlan(n, width, HW_MIN, rowsIn(room, HW_MIN));
    }
  } else {
    // One column: the board takes what the plates, your hand and the actions leave.
    const width = innerW - 2 * SIDE;
    const widthCap = Math.min(CW_MAX, (innerW - 2 * gaps.col) / 3);
    const boardFor = (handHeight) =>
      Math.min(
        widthCap,
        (innerH - rest - handHeight - 2 * gaps.row - OVERHANG - SAFETY) / (3 * PILE),
      );
    if (withHand) {
      const top = Math.min(HW_MAX, Math.floor(width / 5.2));
      for (let hw = top; hw >= HW_MIN && !plan; hw -= 2) {
        const tried = handPlan(n, width, hw);
        if (boardFor(tried.height) >= hw * 0.85) plan = tried;
      }
      if (!plan) plan = handPlan(n, width, HW_MIN);
      if (boardFor(plan.height) < CW_MIN) {
        // Even the smallest cards take too many rows: fewer rows, and the hand scrolls.
        const room = innerH - rest - 3 * PILE * CW_MIN - 2 * gaps.row - OVERHANG - SAFETY;
        plan = handPlan(n, width, HW_MIN, rowsIn(room, HW_MIN));
      }
    }
    cw = boardFor(plan ? plan.height : 0);
  }
  cw = Math.max(CW_MIN, Math.floor(cw));
  const root = document.documentElement.style;
  root.setProperty("--cw", `${cw}px`);
  if (plan) {
    root.setProperty("--hw", `${plan.cw}px`);
    placeHand(hand, buttons, plan);
  } else {
    root.removeProperty("--hw");
    hand.style.height = "";
    hand.style.padding = "";
  }
}

/** On a phone, bring the table back on screen (the page may have been scrolled to the side
 * panel below it): what a chosen card may go to glows gold where it can be seen. */
export function keepTableInView() {
  const felt = $("felt");
  if (!compact() || !shown(felt)) return;
  const box = felt.getBoundingClientRect();
  const bar = document.querySelector(".topbar").getBoundingClientRect().bottom;
  if (box.top >= bar - 1 && box.bottom <= window.innerHeight + 1) return;
  window.scrollTo({ top: Math.max(0, window.scrollY + box.top - bar - 6), behavior: "auto" });
}
