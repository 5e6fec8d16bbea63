// Cards drawn by the client: card codes ("7H", "10D", "KS"), their names, and their DOM.

import { t } from "./i18n.js";

const SVG_NS = "http://www.w3.org/2000/svg";
const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUIT_TEXT = { H: "\u2665\uFE0E", D: "\u2666\uFE0E", C: "\u2663\uFE0E", S: "\u2660\uFE0E" };
// Display order of a hand: alternating colours, high to low inside a suit.
const SUIT_ORDER = { S: 0, H: 1, C: 2, D: 3 };

export function parseCard(code) {
  return { rank: code.slice(0, -1), suit: code.slice(-1) };
}

export function isRed(code) {
  const { suit } = parseCard(code);
  return suit === "H" || suit === "D";
}

export function rankValue(code) {
  return RANKS.indexOf(parseCard(code).rank) + 1;
}

/** "7♥" for logs and short texts. */
export function cardText(code) {
  const { rank, suit } = parseCard(code);
  return `${rank}${SUIT_TEXT[suit] ?? suit}`;
}

/** The accessible name: "7 of hearts", "As de picas". */
export function cardName(code) {
  const { rank, suit } = parseCard(code);
  const named = rank === "A" || rank === "J" || rank === "Q" || rank === "K";
  return t("card.name", { rank: named ? t(`rank.${rank}`) : rank, suit: t(`suit.${suit}`) });
}

export function sortHand(cards) {
  return [...cards].sort(
    (a, b) =>
      SUIT_ORDER[parseCard(a).suit] - SUIT_ORDER[parseCard(b).suit] ||
      rankValue(b) - rankValue(a),
  );
}

function suitIcon(suit, className) {
  const svg = document.createElementNS(SVG_NS, "svg");
  svg.setAttribute("class", className);
  svg.setAttribute("viewBox", "0 0 100 100");
  svg.setAttribute("aria-hidden", "true");
  const use = document.createElementNS(SVG_NS, "use");
  use.setAttribute("href", `#suit-${suit}`);
  svg.append(use);
  return svg;
}

function span(className, ...children) {
  const el = document.createElement("span");
  el.className = className;
  el.append(...children);
  return el;
}

/** A rank drawn from its data attribute by CSS (``.rank::before``), not as text: the button
 * around a card says "7 of spades", and axe-core (label-content-name-mismatch) counts every
 * text inside it, the corner drawn twice too, as what a voice-control user would say. */
function rankSpan(className, rank) {
  const node = span(className);
  node.dataset.rank = rank;
  return node;
}

/** A face-up card (decorative: the button around it carries the accessible name). */
export function cardFace(code) {
  const { rank, suit } = parseCard(code);
  const colour = isRed(code) ? "red" : "black";
  const card = span(`card face ${colour}`);
  card.dataset.code = code;
  card.setAttribute("aria-hidden", "true");
  const corner = (where) => span(`idx ${where}`, rankSpan("rank", rank), suitIcon(suit, "suit"));
  let middle;
  if (rank === "J" || rank === "Q" || rank === "K") {
    middle = span("court", rankSpan("court-rank", rank), suitIcon(suit, "court-suit"));
  } else if (rank === "A") {
    middle = span("middle ace", suitIcon(suit, "pip"));
  } else {
    middle = span("middle", suitIcon(suit, "pip"));
  }
  card.append(corner("tl"), middle, corner("br"));
  return card;
}

/** A face-down card. */
export function cardBack(className = "") {
  const card = span(`card back ${className}`.trim(), span("back-inner"));
  card.setAttribute("aria-hidden", "true");
  return card;
}
