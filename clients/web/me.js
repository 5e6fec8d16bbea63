// You, as the server knows you: name and tag, rating, and the recovery code that takes this
// identity to another browser. The code is shown once and kept nowhere in the page's storage.

import { defaultName, ensureName, send } from "./connection.js";
import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { profileText } from "./rating.js";
import { NAME, S, storage } from "./state.js";
import { toast } from "./toasts.js";

/** The lobby's line about you: "Ana#4F7K · rating 1,034? · provisional — settles after 10
 * rated matches (3 so far)", or "… · rating 1,234 · 12 rated matches" once it settled. */
export function renderMe() {
  const me = S.profile;
  $("me-line").textContent = me ? profileText(me) : "";
}

export function askProfile() {
  send({ type: "profile" });
}

export function onProfile(frame) {
  S.profile = frame;
  renderMe();
}

/** A welcome: the name this identity goes by (kept on another device, or recovered) fills
 * the name field, unless the player typed another there meanwhile (kept by the next
 * create or join: see ensureName). */
export function onWelcomeMe(frame) {
  const recovered = S.recovering;
  S.recovering = false;
  if (typeof frame.name === "string") {
    S.helloName = frame.name;
    if (recovered) S.nameTyped = false;
    const field = $("name");
    const unnamed = !field.value && frame.name === defaultName();
    if (!S.nameTyped && !unnamed) {
      field.value = frame.name;
      storage.set(localStorage, NAME, frame.name);
    }
  }
  if (recovered) {
    $("me-recover").hidden = true;
    $("me-recover-code").value = "";
    toast(t("me.recovered", { name: frame.name }), "info");
  }
  askProfile();
}

let shownCode = ""; // the code on screen now, for "Copy the code" (kept nowhere else)

export function onRecoveryCode(frame) {
  shownCode = String(frame.code);
  $("me-code-text").textContent = t("me.code_shown", { code: shownCode });
  $("me-code-box").hidden = false;
}

async function copyCode() {
  try {
    await navigator.clipboard.writeText(shownCode);
    toast(t("me.copied"), "info");
  } catch {
    const range = document.createRange();
    range.selectNodeContents($("me-code-text"));
    const selection = window.getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    toast(t("me.copy_failed"), "info");
  }
}

export function wireMe() {
  $("name").addEventListener("input", () => {
    S.nameTyped = true;
  });
  $("name").addEventListener("change", ensureName);
  $("me-code").addEventListener("click", () => send({ type: "recovery_code" }));
  $("me-code-copy").addEventListener("click", copyCode);
  $("me-use").addEventListener("click", () => {
    const form = $("me-recover");
    form.hidden = !form.hidden;
    if (!form.hidden) $("me-recover-code").focus();
  });
  $("me-recover").addEventListener("submit", (event) => {
    event.preventDefault();
    const code = $("me-recover-code").value.trim();
    if (!code) return;
    S.recovering = true;
    $("me-code-box").hidden = true;
    shownCode = "";
    send({ type: "recover", code });
  });
}
