// The strategy tips: a dialog opened by the "Tips" buttons (lobby and table), closed with
// Escape, its close button or a click outside; focus goes back to the button that opened
// it. It also lists the table's keys and holds a sound switch, like the top bar's (notify.js).
// Texts go in with textContent only.

import { $, el } from "./dom.js";
import { onLangChange, t } from "./i18n.js";
import { setSound, soundOn } from "./notify.js";

export const TIPS = ["tips.1", "tips.2", "tips.3", "tips.4", "tips.5", "tips.6"];
/** The keys at the table (input.js and keys.js), as the dialog lists them. */
export const KEYS = [
  "keys.tab",
  "keys.choose",
  "keys.draw",
  "keys.draw_card",
  "keys.hint",
  "keys.escape",
];

let opener = null;

function fill() {
  $("tips-title").textContent = t("tips.title");
  $("tips-close").textContent = t("tips.close");
  $("tips-sound-label").textContent = t("sound.label");
  $("tips-list").replaceChildren(...TIPS.map((key) => el("li", { text: t(key) })));
  $("keys-title").textContent = t("keys.title");
  $("keys-list").replaceChildren(...KEYS.map((key) => el("li", { text: t(key) })));
  $("tips-sound").checked = soundOn();
}

/** The sound switches (the top bar's, the table's): pressed while the sounds are on. */
export function renderSound() {
  for (const button of document.querySelectorAll(".sound-switch")) {
    button.setAttribute("aria-pressed", String(soundOn()));
    button.setAttribute("aria-label", t("sound.switch"));
    button.title = t("sound.label");
  }
}

export function openTips(from = document.activeElement) {
  const dialog = $("tips-dialog");
  if (dialog.open) return;
  opener = from instanceof HTMLElement ? from : null;
  fill();
  // A phone has no keyboard at the table: no key list there.
  const touch = window.matchMedia("(pointer: coarse)").matches;
  $("keys-title").hidden = touch;
  $("keys-list").hidden = touch;
  dialog.showModal();
  // Focus on Close (at the end) without scrolling there: the tips open at their top.
  $("tips-close").focus({ preventScroll: true });
  dialog.scrollTop = 0;
  for (const box of dialog.querySelectorAll(".tips-box")) box.scrollTop = 0;
}

export function wireTips() {
  const dialog = $("tips-dialog");
  for (const button of document.querySelectorAll(".tips-open")) {
    button.addEventListener("click", () => openTips(button));
  }
  $("tips-close").addEventListener("click", () => dialog.close());
  // A click on the backdrop (the dialog itself, outside its box) closes it too.
  dialog.addEventListener("click", (event) => {
    if (event.target === dialog) dialog.close();
  });
  dialog.addEventListener("close", () => {
    if (opener && opener.isConnected && !opener.closest("[hidden]")) opener.focus();
    opener = null;
  });
  $("tips-sound").addEventListener("change", (event) => {
    setSound(event.target.checked);
    renderSound();
  });
  for (const button of document.querySelectorAll(".sound-switch")) {
    button.addEventListener("click", () => {
      setSound(!soundOn());
      renderSound();
    });
  }
  renderSound();
  onLangChange(() => {
    if (dialog.open) fill();
    renderSound();
  });
}
