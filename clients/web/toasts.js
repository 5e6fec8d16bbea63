// Messages over the page: toasts (a refusal, "link copied"…) and the banners at the top
// (connecting or lost, the server's store down). Texts go in with textContent.

import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { S } from "./state.js";

export function toast(text, kind = "error") {
  const node = el("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" });
  node.textContent = text;
  $("toasts").append(node);
  setTimeout(() => node.classList.add("going"), 3800);
  setTimeout(() => node.remove(), 4300);
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
