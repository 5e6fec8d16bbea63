// Messages over the page: toasts (a refusal, "link copied"…) and the banners at the top
// (connecting or lost, the server's store down). Texts go in with textContent.
//
// At the table a toast goes over the status line (it says what the table would say there):
// never over a control, a plate or the side panel's tabs; the newest over the older ones.
// Elsewhere toasts go under the top bar.

import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { S } from "./state.js";

export function toast(text, kind = "error") {
  const node = el("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" });
  node.textContent = text;
  placeToasts();
  $("toasts").append(node);
  setTimeout(() => node.classList.add("going"), 3800);
  setTimeout(() => node.remove(), 4300);
}

function seen(node) {
  return Boolean(node) && node.getClientRects().length > 0;
}

/** Put the toasts over the table's status line while the table shows (and no result covers
 * it), else back under the top bar. After every render and resize. */
export function placeToasts() {
  const box = $("toasts");
  const status = $("status");
  const over = seen($("table")) && seen(status) && $("overlay").hidden;
  box.classList.toggle("over-status", over);
  if (!over) {
    box.removeAttribute("style");
    return;
  }
  const line = status.getBoundingClientRect();
  const style = getComputedStyle(status);
  const right = parseFloat(style.paddingRight) || 0; // the tips button's room, on a phone
  const width = Math.min(560, line.width - right);
  // Down to the hand's first cards at most (their top padding is free felt).
  const hand = $("hand");
  const cards = seen(hand) ? hand.getBoundingClientRect().top + parseFloat(hand.style.paddingTop || "0") : line.bottom;
  Object.assign(box.style, {
    left: `${line.left + (line.width - right - width) / 2}px`,
    top: `${line.top}px`,
    width: `${width}px`,
    maxHeight: `${Math.max(line.height, cards - line.top - 2)}px`,
  });
}

export function banner(text) {
  const node = $("conn-banner");
  node.textContent = text || "";
  node.hidden = !text;
}

export function renderBanners() {
  $("store-banner").hidden = !S.storeDown;
  $("store-banner").textContent = S.storeDown ? t("store.down") : "";
}

/** The server says whether its store answers ("status"). */
export function onStatus(frame) {
  S.storeDown = frame.store === "down";
  renderBanners();
}
