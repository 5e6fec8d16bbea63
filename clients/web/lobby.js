// The lobby: "Play vs 3 bots" (one tap deals a table: the level, seats and pace of last
// time), your name, the daily deal, quick play, joining by code or invitation, resuming the
// last seat, the "New room" form and the public rooms list.

import { cardFace } from "./cards.js";
import { currentName, ensureName, send } from "./connection.js";
import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { renderMe } from "./me.js";
import {
  levelOptions,
  optionNames,
  optionsSummary,
  readFields,
  renderFields,
  writeFields,
} from "./options.js";
import { BOTS, CREATE, DEFAULT_LEVEL, LAST, NAME, S, storage } from "./state.js";
import { resume } from "./sync.js";
import { reducedMotion } from "./motion.js";
import { toast } from "./toasts.js";
import { go } from "./views.js";

export const CODE_RE = /^[A-Za-z0-9]{6}$/;

// Quick play: the server fills the table with bots ``queue_wait`` seconds after you queued
// (the "queued" frame says how long: "wait"; 15 s, the default, when it does not).
const QUEUE_WAIT = 15;
const quick = { at: 0, wait: QUEUE_WAIT, timer: null };

function quickCountdown() {
  if (!S.queued) {
    clearInterval(quick.timer);
    quick.timer = null;
    return;
  }
  const left = Math.ceil(quick.wait - (Date.now() - quick.at) / 1000);
  $("quick-count").textContent =
    left > 0 ? t("lobby.quick_count", { s: left }) : t("lobby.quick_filling");
}

export function renderLobby() {
  // A "Leave the match?" left open when the room went (kicked, say) is not asked again later.
  $("leave-ask").hidden = true;
  $("notice").hidden = !S.notice;
  if (S.notice) $("notice-text").textContent = t(S.notice.key, S.notice.vars);
  const code = S.invite;
  $("invite").hidden = !code;
  if (code) $("invite-title").textContent = t("lobby.invite", { code });
  const last = storage.get(localStorage, LAST);
  const showResume = Boolean(last && last.room && !code && !S.room);
  $("resume").hidden = !showResume;
  if (showResume) $("resume-text").textContent = t("lobby.resume_text", { code: last.room });
  $("quick-form").hidden = Boolean(S.queued);
  $("quick-wait").hidden = !S.queued;
  if (S.queued) $("quick-wait-text").textContent = t("lobby.quick_wait", { n: S.queued });
  quickCountdown();
  renderMe();
  renderPlay();
  renderSeatOptions();
  renderRooms();
}

// --- "Play vs 3 bots" ------------------------------------------------------------------------

const PACES = ["normal", "fast"];

/** The last "Play vs 3 bots" choices: the calibrated level, four seats, the normal pace
 * until someone chooses otherwise. */
function botsChoice() {
  const saved = storage.get(localStorage, BOTS) || {};
  return {
    seats: [2, 3, 4].includes(saved.seats) ? saved.seats : 4,
    level: typeof saved.level === "string" && saved.level ? saved.level : DEFAULT_LEVEL,
    pace: PACES.includes(saved.pace) ? saved.pace : "normal",
  };
}

function renderPlay() {
  const choice = botsChoice();
  levelOptions($("bots-level"), choice.level, null, "play.level_choice");
  $("bots-seats").value = String(choice.seats);
  $("bots-pace").value = choice.pace;
  const bots = choice.seats - 1;
  const go = $("bots-go");
  go.textContent = S.dealing
    ? t("play.dealing")
    : t(bots === 1 ? "play.go_one" : "play.go", { n: bots });
  go.disabled = Boolean(S.dealing);
}

/** One tap: a private room with bots in every other seat, started as soon as it exists
 * (sync.js sends the start when the server says we sit in it). */
function playBots() {
  if (S.dealing) return;
  const choice = {
    seats: Number($("bots-seats").value),
    level: $("bots-level").value,
    pace: $("bots-pace").value === "fast" ? "fast" : "normal",
  };
  storage.set(localStorage, BOTS, choice);
  S.dealing = true;
  renderPlay();
  const bots = [null];
  for (let i = 1; i < choice.seats; i += 1) bots.push(choice.level);
  createRoom({ seats: choice.seats, public: false, bots, pace: choice.pace });
}

function saveBotsChoice() {
  storage.set(localStorage, BOTS, {
    seats: Number($("bots-seats").value),
    level: $("bots-level").value,
    pace: $("bots-pace").value === "fast" ? "fast" : "normal",
  });
  renderPlay();
}

function renderSeatOptions() {
  const seats = Number($("opt-seats").value);
  const box = $("seat-opts");
  const rows = [el("div", { class: "seat-row you", text: t("lobby.seat_you") })];
  for (let i = 1; i < seats; i += 1) {
    const id = `seat-opt-${i}`;
    const select = el("select", { id, dataset: { seat: String(i) } });
    levelOptions(select, S.seatChoices[i - 1], ["open", t("lobby.open")]);
    select.addEventListener("change", () => {
      S.seatChoices[i - 1] = select.value;
    });
    rows.push(
      el(
        "div",
        { class: "seat-row" },
        el("label", { for: id, text: t("lobby.seat_n", { n: i + 1 }) }),
        select,
      ),
    );
  }
  box.replaceChildren(...rows);
}

function renderRooms() {
  const list = $("rooms");
  $("rooms-empty").hidden = S.rooms.length > 0;
  list.replaceChildren(
    ...S.rooms.map((room) => {
      const canJoin = room.phase === "lobby" && room.taken < room.seats;
      const bits = [
        t("lobby.room_players", { taken: room.taken, seats: room.seats }),
        room.bots === 1 ? t("lobby.room_bot") : null,
        room.bots > 1 ? t("lobby.room_bots", { n: room.bots }) : null,
        t(`phase.${room.phase}`),
        room.spectators ? t("lobby.room_watching", { n: room.spectators }) : null,
      ].filter(Boolean);
      return el(
        "li",
        { class: "room-row", dataset: { room: room.room } },
        el(
          "div",
          { class: "room-info" },
          el("strong", { class: "code", text: room.room }),
          el("span", { text: bits.join(" · ") }),
          el("span", { class: "muted small", text: optionsSummary(room.options) }),
        ),
        el(
          "div",
          { class: "room-buttons" },
          canJoin
            ? el("button", {
                type: "button",
                class: "primary small",
                text: t("lobby.join_room"),
                onclick: () => joinRoom(room.room, false),
              })
            : null,
          el("button", {
            type: "button",
            class: "small",
            text: t("lobby.watch"),
            onclick: () => joinRoom(room.room, true),
          }),
        ),
      );
    }),
  );
}

/** The public rooms ("rooms"), or the quick-play queue this tab waits in ("queued"). */
export function onRooms(frame) {
  S.rooms = frame.rooms;
  renderRooms();
}

export function onQueued(frame) {
  if (frame.seats && !S.queued) {
    quick.at = Date.now();
    quick.wait = typeof frame.wait === "number" && frame.wait >= 0 ? frame.wait : QUEUE_WAIT;
  }
  S.queued = frame.seats;
  if (S.queued && !quick.timer) quick.timer = setInterval(quickCountdown, 250);
  renderLobby();
}

/** The server forgets the quick-play queue of a connection that drops. */
export function onConnectionLost() {
  if (S.queued) {
    S.queued = null;
    renderLobby();
  }
}

function joinRoom(code, spectate) {
  const room = String(code || "")
    .trim()
    .toUpperCase();
  if (!CODE_RE.test(room)) {
    toast(t("lobby.need_code"));
    return;
  }
  ensureName();
  S.joining = { room, resume: false };
  send({ type: "join", room, spectate });
}

function createRoom(options) {
  ensureName();
  S.joining = { room: null, resume: false };
  send({ type: "create", options, spectate: false });
}

// The "New room" form: every declared option but the bots (the seat pickers choose them).
const COUNT = ["seats"];
const FIELDS = optionNames(COUNT);
// A room made in this form is listed unless its maker says otherwise.
const FORM_DEFAULTS = { public: true };

function formOptions() {
  const { seats } = readFields("opt", COUNT);
  const bots = [null];
  for (let i = 1; i < seats; i += 1) {
    const choice = S.seatChoices[i - 1];
    bots.push(choice === "open" ? null : choice);
  }
  return { seats, ...readFields("opt", FIELDS), bots };
}

/** Build the form's fields and fill them with the choices of last time. */
export function loadCreateForm() {
  renderFields($("opt-count"), "opt", COUNT);
  renderFields($("opt-fields"), "opt", FIELDS);
  const saved = storage.get(localStorage, CREATE) || {};
  writeFields("opt", [...COUNT, ...FIELDS], { ...FORM_DEFAULTS, ...saved });
  if (Array.isArray(saved.bots)) {
    saved.bots.slice(1).forEach((level, i) => {
      S.seatChoices[i] = level === null ? "open" : level;
    });
  }
}

export function heroFan() {
  const fan = $("hero-fan");
  ["KS", "KH", "KC", "KD"].forEach((code, i) => {
    const card = cardFace(code);
    card.style.transform = `rotate(${(i - 1.5) * 14}deg)`;
    fan.append(card);
  });
}

// --- wiring ------------------------------------------------------------------------------

export function wireLobby() {
  $("name").addEventListener("change", () => storage.set(localStorage, NAME, currentName()));
  $("opt-seats").addEventListener("change", renderSeatOptions);
  $("bots-go").addEventListener("click", playBots);
  for (const id of ["bots-level", "bots-seats", "bots-pace"]) {
    $(id).addEventListener("change", saveBotsChoice);
  }
  // "More ways to play": to the control each one starts with, a few Tabs from the top.
  for (const jump of document.querySelectorAll("[data-jump]")) {
    jump.addEventListener("click", () => {
      const target = $(jump.dataset.jump);
      target.scrollIntoView({ block: "center", behavior: reducedMotion() ? "auto" : "smooth" });
      target.focus({ preventScroll: true });
    });
  }

  $("create-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const options = formOptions();
    storage.set(localStorage, CREATE, options);
    createRoom(options);
  });
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    joinRoom($("join-code").value, false);
  });
  $("join-watch").addEventListener("click", () => joinRoom($("join-code").value, true));
  $("invite-join").addEventListener("click", () => joinRoom(S.invite, false));
  $("invite-watch").addEventListener("click", () => joinRoom(S.invite, true));
  $("resume-go").addEventListener("click", () => {
    const last = storage.get(localStorage, LAST);
    if (last) {
      ensureName();
      resume(last);
    }
  });
  $("resume-forget").addEventListener("click", () => {
    storage.remove(localStorage, LAST);
    renderLobby();
  });
  $("quick-go").addEventListener("click", () => {
    ensureName();
    send({ type: "quick_play", seats: Number($("quick-seats").value) });
  });
  $("quick-cancel").addEventListener("click", () => {
    send({ type: "cancel_quick_play" });
    S.queued = null;
    renderLobby();
  });
  $("rooms-refresh").addEventListener("click", () => send({ type: "list_rooms" }));
  $("daily-go").addEventListener("click", () => {
    ensureName();
    S.notice = null;
    S.joining = { room: null, resume: false };
    send({ type: "daily" });
  });
  $("notice-ok").addEventListener("click", () => {
    S.notice = null;
    renderLobby();
    $("daily-go").focus();
  });
  $("boards-go").addEventListener("click", () => {
    S.boardTab = "daily";
    go("leaderboards");
  });
  $("matches-go").addEventListener("click", () => go("matches"));
}
