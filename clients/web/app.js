// The web client: lobby, waiting room and table over one WebSocket. This entry wires the
// modules together: the frames from the server to the modules that handle them, the
// controls of every screen, then the boot.
//
// The server is the only judge of the rules: the client highlights only what the `legal`
// list of its view says, sends what the player asks for, and shows the server's refusal.
// Every name and chat text goes into the page with textContent, never as HTML.

import { connect, defaultName, send } from "./connection.js";
import { $, el, tablistKeys } from "./dom.js";
import { LANGUAGES, lang, languageName, onLangChange, setLang, t } from "./i18n.js";
import { focusHand } from "./keys.js";
import { onHint, wireInput } from "./input.js";
import {
  CODE_RE,
  heroFan,
  loadCreateForm,
  onConnectionLost,
  onQueued,
  onRooms,
  wireLobby,
} from "./lobby.js";
import { askProfile, onProfile, onRecoveryCode, onWelcomeMe, wireMe } from "./me.js";
import { note, onChat, onChatHistory, wirePanel } from "./panel.js";
import { askLeave, wireResult } from "./result.js";
import { render, renderAll } from "./screens.js";
import { KICKED, LAST, NAME, PLAYER, S, SESSION, setRenderer, storage } from "./state.js";
import {
  PLAYER_RE,
  keepPlayer,
  onError,
  onJoined,
  onKicked,
  onLeft,
  onPatch,
  onSnapshot,
  onWelcome,
  playHere,
} from "./sync.js";
import { tickClocks, wireTable } from "./table.js";
import { wireTips } from "./tips.js";
import { banner, onStatus } from "./toasts.js";
import { onLeaderboard, onMatches, route, wireViews } from "./views.js";
import { wireWaiting } from "./waiting.js";

// --- frames from the server --------------------------------------------------------------

function onFrame(frame) {
  switch (frame.type) {
    case "welcome":
      onWelcome(frame);
      return onWelcomeMe(frame);
    case "joined":
      return onJoined(frame);
    case "snapshot":
      // The server sends a room's first snapshot just before "joined".
      return onSnapshot(frame);
    case "patch":
      return onPatch(frame);
    case "error":
      S.recovering = false;
      return onError(frame);
    case "chat":
      return onChat(frame);
    case "chat_history":
      return onChatHistory(frame);
    case "rooms":
      return onRooms(frame);
    case "queued":
      return onQueued(frame);
    case "hint":
      return onHint(frame);
    case "left":
      onLeft();
      return askProfile();
    case "kicked":
      return onKicked(frame);
    case "rewound":
      // A snapshot of the store's earlier state follows at once.
      return note("note.rewound");
    case "closing":
      return banner(t("conn.lost"));
    case "status":
      return onStatus(frame);
    case "leaderboard":
      return onLeaderboard(frame);
    case "matches":
      return onMatches(frame);
    case "profile":
      return onProfile(frame);
    case "recovery_code":
      keepPlayer(frame);
      return onRecoveryCode(frame);
    default:
      return undefined;
  }
}

// --- the language menu and the skip link -------------------------------------------------

/** The language menu: every language, each in its own words; the current one marked. */
function renderLangMenu() {
  $("lang-menu").replaceChildren(
    ...LANGUAGES.map((code) =>
      el(
        "li",
        {},
        el("button", {
          type: "button",
          class: "lang-item",
          lang: code,
          dataset: { lang: code },
          "aria-current": code === lang() ? "true" : null,
          text: languageName(code),
        }),
      ),
    ),
  );
}

function wireLang() {
  const button = $("lang");
  const menu = $("lang-menu");
  const items = () => [...menu.querySelectorAll("button")];
  const close = (refocus) => {
    if (menu.hidden) return;
    menu.hidden = true;
    button.setAttribute("aria-expanded", "false");
    if (refocus) button.focus();
  };
  button.addEventListener("click", () => {
    if (!menu.hidden) {
      close(false);
      return;
    }
    renderLangMenu();
    menu.hidden = false;
    button.setAttribute("aria-expanded", "true");
    (menu.querySelector('[aria-current="true"]') || items()[0]).focus();
  });
  menu.addEventListener("click", (event) => {
    const item = event.target.closest("[data-lang]");
    if (!item) return;
    close(true);
    setLang(item.dataset.lang);
  });
  menu.addEventListener("keydown", (event) => {
    const list = items();
    const at = list.indexOf(document.activeElement);
    let next = null;
    if (event.key === "ArrowDown") next = list[(at + 1) % list.length];
    else if (event.key === "ArrowUp") next = list[(at - 1 + list.length) % list.length];
    else if (event.key === "Home") next = list[0];
    else if (event.key === "End") next = list[list.length - 1];
    else if (event.key === "Escape") {
      event.stopPropagation();
      close(true);
    }
    if (!next) return;
    event.preventDefault();
    next.focus();
  });
  document.addEventListener("pointerdown", (event) => {
    if (!event.target.closest(".lang-pick")) close(false);
  });
  menu.parentElement.addEventListener("focusout", (event) => {
    if (!event.relatedTarget || !event.currentTarget.contains(event.relatedTarget)) close(false);
  });
}

/** "Skip to the table": past the top bar, to your hand (or the piles when you watch). */
function wireSkip() {
  $("skip").addEventListener("click", (event) => {
    event.preventDefault();
    const table = $("table");
    if (table.hidden) return;
    if ($("hand").querySelector("button")) {
      focusHand();
      return;
    }
    const pile = $("board").querySelector("button:not([disabled])");
    if (pile) pile.focus();
    else table.focus();
  });
}

// --- wiring ------------------------------------------------------------------------------

function wire() {
  wireLang();
  wireSkip();
  $("elsewhere-here").addEventListener("click", playHere);
  wireTips();
  onLangChange(renderAll);
  $("leave").addEventListener("click", () => askLeave());
  wireLobby();
  wireMe();
  wireWaiting();
  wireInput();
  wirePanel();
  wireResult();
  wireTable();
  for (const list of document.querySelectorAll('[role="tablist"]')) tablistKeys(list);
  wireViews();
}

function boot() {
  setRenderer(render);
  heroFan();
  const saved = storage.get(localStorage, NAME);
  $("name").value = typeof saved === "string" && saved ? saved : "";
  if (!$("name").value) $("name").placeholder = defaultName();
  loadCreateForm();
  const params = new URLSearchParams(location.search);
  let code = (params.get("room") || "").toUpperCase();
  let session = storage.get(sessionStorage, SESSION);
  const last = storage.get(localStorage, LAST);
  const kicked = storage.get(localStorage, KICKED);
  const lobby = () => {
    // The address names no room any more: the lobby, as for a first visit.
    const url = new URL(location.href);
    url.searchParams.delete("room");
    history.replaceState(history.state, "", url);
    code = "";
  };
  if (last && last.finished && session && session.room === last.room && code !== last.room) {
    // The site opened again in this tab after its match ended: the lobby, not that room.
    storage.remove(sessionStorage, SESSION);
    session = null;
  }
  if (CODE_RE.test(code) && Array.isArray(kicked) && kicked.includes(code)) {
    // The host removed this browser from that room: say so, and offer no seat there.
    S.notice = { key: "note.kicked", vars: { code } };
    if (session && session.room === code) storage.remove(sessionStorage, SESSION);
    session = null;
    lobby();
  }
  if (CODE_RE.test(code) && !(session && session.room === code)) {
    if (last && last.room === code && last.token && last.finished) {
      // A finished match's room opened again in a new tab: the lobby.
      storage.remove(localStorage, LAST);
      lobby();
    } else if (last && last.room === code && last.token) {
      // This browser holds a seat in that room: take it back.
      storage.set(sessionStorage, SESSION, { room: code, token: last.token, spectate: false });
    } else {
      if (session) storage.remove(sessionStorage, SESSION);
      S.invite = code;
      $("join-code").value = code;
    }
  }
  const player = storage.get(localStorage, PLAYER);
  if (typeof player === "string" && PLAYER_RE.test(player)) S.player = player;
  wire();
  renderAll();
  connect(onFrame, onConnectionLost);
  send({ type: "list_rooms" });
  route();
  setInterval(tickClocks, 250);
}

boot();
