// Questions about the document the server keeps this tab in step with (`S.doc`): the game,
// the seats and their names, and what the view's `legal` list allows. Nothing here changes
// the state or the page.

import { t } from "./i18n.js";
import { shownNames } from "./rating.js";
import { S } from "./state.js";

export function game() {
  return S.doc ? S.doc.game : null;
}

export function seatInfo(i) {
  return S.doc && S.doc.room.seats[i] ? S.doc.room.seats[i] : null;
}

/** A seat's name as the page shows it: tagged when two seats share a name (shownNames). */
export function seatName(i) {
  const seat = seatInfo(i);
  return seat ? shownNames(S.doc.room.seats)[i] : t("lobby.seat_n", { n: i + 1 });
}

export function botLabel(seat) {
  return t("seat.bot", { level: t(`level.${seat.level}`) });
}

export function legal() {
  const g = game();
  return g && Array.isArray(g.legal) ? g.legal : [];
}

export function myTurn() {
  return legal().length > 0;
}

/** Piles the selection may go to, taken only from the server's legal list. */
export function targets() {
  if (!S.sel) return new Set();
  const prefix = S.sel.kind === "card" ? `${S.sel.card}>` : `${S.sel.pile}>`;
  return new Set(
    legal()
      .filter((a) => a.startsWith(prefix))
      .map((a) => a.slice(prefix.length)),
  );
}

export function playableCards() {
  const cards = new Set();
  for (const action of legal()) {
    const [left] = action.split(">");
    if (action.includes(">") && !(left in (game()?.piles || {}))) cards.add(left);
  }
  return cards;
}

export function movablePiles() {
  const piles = new Set();
  const names = game()?.piles || {};
  for (const action of legal()) {
    const [left] = action.split(">");
    if (left in names) piles.add(left);
  }
  return piles;
}
