// The parts of the table drawn the same way live and in a replay: piles, their names and
// accessible labels, and the stock.

import { cardBack, cardFace, cardName } from "./cards.js";
import { el } from "./dom.js";
import { has, t } from "./i18n.js";

export const CORNERS = new Set(["NE", "SE", "SW", "NW"]);
export const GRID = ["NW", "N", "NE", "W", "stock", "E", "SW", "S", "SE"];
/** Where the other seats sit, clockwise from the one at the bottom. */
export const POSITIONS = { 2: ["top"], 3: ["left", "right"], 4: ["left", "top", "right"] };

/** A pile's short name in the current language: N, E, S, O… */
export function localPile(code) {
  return has(`short.${code}`) ? t(`short.${code}`) : code;
}

export function pileLabel(name, cards, fits = false, selected = false, movable = false) {
  const where = t(CORNERS.has(name) ? "pile.corner" : "pile.side", { pile: t(`pile.${name}`) });
  let label;
  if (!cards.length) {
    label = t(CORNERS.has(name) ? "pile.empty_corner" : "pile.empty_side", { where });
  } else if (cards.length === 1) {
    label = t("pile.one", { where, top: cardName(cards[0]) });
  } else {
    label = t("pile.many", {
      where,
      top: cardName(cards[cards.length - 1]),
      base: cardName(cards[0]),
      n: cards.length,
    });
  }
  // The short name the pile shows ("NW") comes first: a voice-control user says what they see.
  label = `${localPile(name)}: ${label}`;
  if (fits) label += t("pile.fits");
  if (movable) label += t("pile.movable");
  if (selected) label += t("pile.selected");
  return label;
}

/** The classes every pile has, whoever draws it. */
export function pileClasses(name, cards) {
  const classes = ["pile", CORNERS.has(name) ? "corner" : "side", `at-${name}`];
  if (!cards.length) classes.push("empty");
  if (cards.length >= 2) classes.push("stacked");
  return classes;
}

/** What is inside a pile: the bottom card peeking out, the top card, its name, the count. */
export function pileParts(name, cards, fresh) {
  const stack = el("span", { class: "stack" });
  if (cards.length >= 2) {
    const base = cardFace(cards[0]);
    base.classList.add("base");
    stack.append(base);
  }
  if (cards.length) {
    const top = cardFace(cards[cards.length - 1]);
    top.classList.add("top");
    if (fresh) top.classList.add("fresh");
    stack.append(top);
  } else {
    stack.append(
      el(
        "span",
        { class: "slot", "aria-hidden": "true" },
        el("span", { dataset: { text: CORNERS.has(name) ? t("pile.kings") : "" } }),
      ),
    );
  }
  // The name sits in the pile's bottom-left corner, over the top card: the base card peeks
  // out above, so it never covers the name.
  return [
    stack,
    // Drawn from data-text by CSS: the pile's accessible name starts with it (pileLabel), and
    // text here would run into the count ("NW2") for axe-core's name check.
    el("span", { class: "pile-name", "aria-hidden": "true", dataset: { text: localPile(name) } }),
    cards.length
      ? el("span", { class: "count", "aria-hidden": "true", text: String(cards.length) })
      : null,
  ].filter(Boolean);
}

export function stockView(count) {
  const label = count ? t("stock.label", { n: count }) : t("stock.empty");
  return el(
    "div",
    { class: `stock${count ? "" : " empty"}`, role: "img", "aria-label": label },
    count ? cardBack("stock-card") : el("span", { class: "slot" }),
    el("span", { class: "stock-count", "aria-hidden": "true", text: String(count) }),
  );
}
