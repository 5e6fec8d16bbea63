// The web client: lobby, waiting room and table over one WebSocket. This entry wires the
// modules together: the frames from the server to the modules that handle them, the
// controls of every screen, then the boot.
//
// The server is the only judge of the rules: the client highlights only what the `legal`
// list of its view says, sends what the player asks for, and shows the server's refusal.
// Every name and chat text goes into the page with textContent, never as HTML.

import { connect, send } from "./connection.js";
import { $, tablistKeys } from "./dom.js";
import { LANGUAGES, lang, onLangChange, setLang, t } from "./i18n.js";
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
import { note, onChat, wirePanel } from "./panel.js";
import { askLeave, wireResult } from "./result.js";
import { render, renderAll } from "./screens.js";
import { LAST, NAME, PLAYER, S, SESSION, setRenderer, storage } from "./state.js";
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

// --- wiring ------------------------------------------------------------------------------

function wire() {
  $("lang").addEventListener("click", () =>
    setLang(LANGUAGES[(LANGUAGES.indexOf(lang()) + 1) % LANGUAGES.length]),
  );
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
  if (!$("name").value) $("name").placeholder = t("lobby.default_name");
  loadCreateForm();
  const params = new URLSearchParams(location.search);
  const code = (params.get("room") || "").toUpperCase();
  const session = storage.get(sessionStorage, SESSION);
  if (CODE_RE.test(code) && !(session && session.room === code)) {
    const last = storage.get(localStorage, LAST);
    if (last && last.room === code && last.token) {
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
