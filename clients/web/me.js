// You, as the server knows you: name and tag, rating, and the recovery code that takes this
// identity to another browser. The code is shown once and kept nowhere in the page's storage.

import { currentName, send } from "./connection.js";
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

/** A welcome: after a recovery, this browser is now the recovered player. */
export function onWelcomeMe(frame) {
  if (S.recovering && typeof frame.name === "string") {
    S.recovering = false;
    $("name").value = frame.name;
    storage.set(localStorage, NAME, frame.name);
    S.helloName = frame.name;
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
  $("name").addEventListener("change", () => {
    const name = currentName();
    if (S.profile && name !== S.profile.name) send({ type: "rename", name });
  });
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
