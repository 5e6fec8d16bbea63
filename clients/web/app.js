// The web client: lobby, waiting room and table over one WebSocket.
//
// The server is the only judge of the rules: the client highlights only what the `legal`
// list of its view says, sends what the player asks for, and shows the server's refusal.
// Every name and chat text goes into the page with textContent, never as HTML.

import {
  GRID,
  POSITIONS,
  localPile,
  pileClasses,
  pileLabel,
  pileParts,
  stockView,
} from "./board.js";
import { cardFace, cardName, cardText, sortHand } from "./cards.js";
import { $, el, tablistKeys } from "./dom.js";
import { has, lang, onLangChange, setLang, t, translateStatic } from "./i18n.js";
import { leaderboardTable, matchList, standing } from "./lists.js";
import { applyPatch } from "./patch.js";
import { closeReplay, openReplay, renderReplay, replayId, todayUtc, wireReplay } from "./replay.js";

const PROTOCOL_VERSION = 1;
const LEVELS = ["random", "heuristic", "easy", "medium", "hard", "expert"];
const MAX_LOG = 300;
const CODE_RE = /^[A-Za-z0-9]{6}$/;
// The secret player token the server hands out in "welcome" (its own alphabet, 16-64 chars).
const PLAYER_RE = /^[A-Za-z0-9_-]{16,64}$/;
const TIMER_CHOICES = [30, 60, 120];
// Views over the lobby or the room, each at its own address (#leaderboards, #replay/ID…).
const VIEWS = ["boards", "matches", "replay"];

// --- storage: this tab's seat survives a refresh; the browser remembers the last one ----

const storage = {
  get(area, key) {
    try {
      return JSON.parse(area.getItem(key));
    } catch {
      return null;
    }
  },
  set(area, key, value) {
    try {
      area.setItem(key, JSON.stringify(value));
    } catch {
      // Storage unavailable: the game still works, it just will not resume.
    }
  },
  remove(area, key) {
    try {
      area.removeItem(key);
    } catch {
      // Nothing to forget.
    }
  },
};
const SESSION = "kc.session"; // sessionStorage: {room, token, spectate} of this tab
const LAST = "kc.last"; // localStorage: {room, token} of the last seat in this browser
const NAME = "kc.name";
const CREATE = "kc.create";
const PLAYER = "kc.player"; // localStorage: the secret player token (this browser's identity)

// --- state -------------------------------------------------------------------------------

const S = {
  ws: null,
  welcomed: false,
  everWelcomed: false,
  helloName: null,
  helloTries: 0,
  retry: 0,
  outbox: [],
  room: null,
  seat: null,
  role: null,
  token: null,
  doc: null,
  version: 0,
  joining: null,
  invite: null,
  sel: null,
  hint: null,
  seq: 0,
  pending: new Map(),
  queued: null,
  rooms: [],
  log: [],
  logPending: [], // log lines not in the page yet (they go in with the next render)
  chat: [],
  unread: 0,
  tab: "log",
  dismissed: null,
  overlayFor: null,
  afterLeave: null,
  seatChoices: ["medium", "medium", "medium"],
  fill: "medium",
  lastTops: {},
  lastHand: null,
  fresh: new Set(),
  suppressClick: false,
  screen: null,
  resyncing: false,
  player: null, // secret identity token, sent in every hello
  playerId: null, // its public form, as leaderboards and history show it
  view: null, // null (lobby or room) or one of VIEWS
  boardTab: "daily",
  boards: { daily: null, alltime: null },
  matches: null,
  findReplay: null, // {room, totals, tries}: looking for the match that just ended
  replayDaily: {}, // match id -> its daily {day, ranked} or null, to spare refused requests
  notice: null, // {key, vars}: a message kept in the lobby until dismissed
  storeDown: false,
  clock: null, // {key, seat, end}: the countdown of a timed turn
  clockEpoch: 0,
  clockExpired: null,
  configOpen: false,
};

// --- connection --------------------------------------------------------------------------

function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  return `${scheme}://${location.host}/`;
}

function currentName() {
  const typed = $("name").value.trim().slice(0, 24);
  return typed || t("lobby.default_name");
}

function connect() {
  const ws = new WebSocket(wsUrl());
  S.ws = ws;
  S.welcomed = false;
  const slow = setTimeout(() => {
    if (S.ws === ws && !S.welcomed) banner(S.everWelcomed ? t("conn.lost") : t("conn.connecting"));
  }, 600);
  ws.addEventListener("open", () => {
    S.helloTries = 0;
    S.helloName = currentName();
    ws.send(JSON.stringify(hello(S.helloName)));
  });
  ws.addEventListener("message", (event) => {
    let frame;
    try {
      frame = JSON.parse(event.data);
    } catch {
      return;
    }
    onFrame(frame);
  });
  ws.addEventListener("close", () => {
    clearTimeout(slow);
    if (S.ws !== ws) return;
    S.ws = null;
    S.welcomed = false;
    if (S.queued) {
      S.queued = null;
      renderLobby();
    }
    banner(t("conn.lost"));
    const delay = Math.min(5000, 300 * 2 ** S.retry) + Math.random() * 300;
    S.retry += 1;
    setTimeout(connect, delay);
  });
}

/** A hello: with the player token when this browser has one, so it stays the same player. */
function hello(name) {
  const message = { type: "hello", version: PROTOCOL_VERSION, name };
  if (S.player) message.player = S.player;
  return message;
}

function send(message) {
  if (S.ws && S.welcomed && S.ws.readyState === WebSocket.OPEN) {
    // A hello queued before the first welcome gets the token that welcome brought.
    const frame = message.type === "hello" ? hello(message.name) : message;
    S.ws.send(JSON.stringify(frame));
  } else {
    S.outbox.push(message);
  }
}

/** Say hello again when the name changed since the last hello (before create/join). */
function ensureName() {
  const name = currentName();
  storage.set(localStorage, NAME, name);
  if (name !== S.helloName) {
    S.helloName = name;
    send(hello(name));
  }
}

function banner(text) {
  const node = $("conn-banner");
  node.textContent = text || "";
  node.hidden = !text;
}

// --- frames from the server --------------------------------------------------------------

function onFrame(frame) {
  switch (frame.type) {
    case "welcome":
      return onWelcome(frame);
    case "joined":
      return onJoined(frame);
    case "snapshot":
      // The server sends a room's first snapshot just before "joined".
      if (frame.room !== S.room) enterRoom(frame.room);
      S.doc = frame.doc;
      S.version = frame.version;
      S.resyncing = false;
      return render();
    case "patch":
      return onPatch(frame);
    case "error":
      return onError(frame);
    case "chat":
      return onChat(frame);
    case "rooms":
      S.rooms = frame.rooms;
      return renderRooms();
    case "queued":
      S.queued = frame.seats;
      return renderLobby();
    case "hint":
      return onHint(frame);
    case "left":
      return onLeft();
    case "kicked":
      return onKicked(frame);
    case "rewound":
      // A snapshot of the store's earlier state follows at once.
      return note("note.rewound");
    case "closing":
      return banner(t("conn.lost"));
    case "status":
      S.storeDown = frame.store === "down";
      return renderBanners();
    case "leaderboard":
      return onLeaderboard(frame);
    case "matches":
      return onMatches(frame);
    default:
      return undefined;
  }
}

function onWelcome(frame) {
  if (typeof frame.player === "string" && PLAYER_RE.test(frame.player)) {
    S.player = frame.player;
    storage.set(localStorage, PLAYER, frame.player);
  }
  if (typeof frame.player_id === "string") S.playerId = frame.player_id;
  if (S.welcomed) {
    // A second hello (new name) is answered again; the views may show "you" now.
    if (S.view) render();
    return;
  }
  S.welcomed = true;
  S.everWelcomed = true;
  S.resyncing = false;
  S.retry = 0;
  // The server refuses connections while its store is down: a welcome means it is up.
  S.storeDown = false;
  banner("");
  const session = storage.get(sessionStorage, SESSION);
  if (session && session.room) {
    resume(session);
  } else if (S.room) {
    // Reconnected without a saved session: the room is gone for this tab.
    clearRoom();
  }
  const queued = S.outbox.splice(0);
  for (const message of queued) send(message);
  // A view opened while the connection was down asks again.
  if (S.view === "boards") requestBoards();
  if (S.view === "matches") send({ type: "my_matches" });
  render();
}

function resume(session) {
  S.joining = { room: session.room, resume: true };
  if (session.token) {
    send({ type: "join", room: session.room, token: session.token });
  } else {
    send({ type: "join", room: session.room, spectate: true });
  }
}

/** Start showing room ``code``: forget what belonged to the previous one. */
function enterRoom(code) {
  S.room = code;
  S.seat = null;
  S.role = null;
  S.doc = null;
  S.version = 0;
  S.log = [];
  S.chat = [];
  S.unread = 0;
  S.sel = null;
  S.hint = null;
  S.dismissed = null;
  S.overlayFor = null;
  S.lastTops = {};
  S.lastHand = null;
  S.pending.clear();
  renderLog();
  renderChat();
}

function onJoined(frame) {
  if (frame.room !== S.room) enterRoom(frame.room);
  const announce = S.role === null;
  S.seat = frame.seat;
  S.role = frame.role;
  if (frame.role === "spectator") S.token = null;
  else if (frame.token) S.token = frame.token;
  S.joining = null;
  S.queued = null;
  S.invite = null;
  storage.set(sessionStorage, SESSION, {
    room: S.room,
    token: S.token,
    spectate: frame.role === "spectator",
  });
  if (S.token) storage.set(localStorage, LAST, { room: S.room, token: S.token });
  const url = new URL(location.href);
  url.searchParams.set("room", S.room);
  history.replaceState(history.state, "", url);
  if (announce) {
    note(frame.role === "spectator" ? "note.watching" : "note.joined", { code: S.room });
  }
  render();
}

function onPatch(frame) {
  if (!S.doc || frame.room !== S.room) return;
  if (frame.from !== S.version) {
    if (frame.to > S.version) resync();
    return;
  }
  try {
    S.doc = applyPatch(S.doc, frame.ops);
  } catch {
    resync();
    return;
  }
  S.version = frame.to;
  if (frame.seq !== null && frame.seq !== undefined) S.pending.delete(frame.seq);
  for (const line of frame.log || []) {
    addLog({ kind: line.kind, seat: line.seat, text: line.text });
    onLogLine(line);
  }
  renderSoon();
}

// Bots without a delay (or a slow phone catching up) can bring many patches at once: they
// are all applied as they come, and the page is drawn once per frame.
let renderQueued = false;

function renderSoon() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}

/** What a log line means beyond the log: a new host, the end of a turn. */
function onLogLine(line) {
  if (line.kind === "host") {
    toast(line.seat === S.seat ? t("host.you") : logText(line), "info");
  } else if (["end", "draw", "deal", "start"].includes(line.kind)) {
    S.clockEpoch += 1; // a new turn starts its countdown afresh
  } else if (line.kind === "timeout" && S.clock) {
    S.clockExpired = S.clock.key; // a bot finishes this turn: no countdown any more
  }
}

/** Ask for a fresh snapshot, once until it comes. */
function resync() {
  if (S.resyncing) return;
  S.resyncing = true;
  send({ type: "resync" });
}

function errorText(frame) {
  const key = `err.${frame.code}`;
  return lang() !== "en" && has(key) ? t(key) : frame.message;
}

function onError(frame) {
  const text = errorText(frame);
  if (!S.welcomed && frame.code === "bad_message" && S.ws && S.helloTries < 2) {
    // The hello was refused: try the default name, then (only then) a new identity, rather
    // than stay stuck on "Connecting…".
    S.helloTries += 1;
    if (S.helloTries === 2) {
      S.player = null;
      storage.remove(localStorage, PLAYER);
    }
    S.helloName = t("lobby.default_name");
    S.ws.send(JSON.stringify(hello(S.helloName)));
    return;
  }
  if (frame.seq !== null && frame.seq !== undefined) S.pending.delete(frame.seq);
  if (S.joining) {
    const joining = S.joining;
    S.joining = null;
    if (joining.resume) {
      storage.remove(sessionStorage, SESSION);
      const last = storage.get(localStorage, LAST);
      if (last && last.room === joining.room) storage.remove(localStorage, LAST);
      clearRoom();
      toast(t("note.rejoin_failed", { code: joining.room, reason: text }));
      render();
      return;
    }
  }
  toast(text);
  render();
}

function onChat(frame) {
  if (frame.room !== S.room) return;
  S.chat.push({ name: frame.name, seat: frame.seat, text: frame.text });
  if (S.chat.length > MAX_LOG) S.chat.shift();
  if (S.tab !== "chat") S.unread += 1;
  renderChat();
  renderTabs();
}

function onHint(frame) {
  const action = frame.action || {};
  if (action.type === "play") S.sel = { kind: "card", card: action.card };
  else if (action.type === "move") S.sel = { kind: "pile", pile: action.from };
  else S.sel = null;
  S.hint = action;
  render();
}

function onLeft() {
  const after = S.afterLeave;
  S.afterLeave = null;
  storage.remove(sessionStorage, SESSION);
  const last = storage.get(localStorage, LAST);
  if (!last || !S.room || last.room === S.room) storage.remove(localStorage, LAST);
  S.configOpen = false;
  clearRoom();
  render();
  if (after) after();
}

function onKicked(frame) {
  S.afterLeave = null;
  S.configOpen = false;
  // The token no longer opens that room: onLeft forgets it (this tab's seat and the last one).
  S.notice = { key: "note.kicked", vars: { code: frame.room } };
  if (S.view) leaveView();
  onLeft();
}

function clearRoom() {
  S.room = null;
  S.seat = null;
  S.role = null;
  S.token = null;
  S.doc = null;
  S.version = 0;
  S.sel = null;
  S.hint = null;
  S.pending.clear();
  const url = new URL(location.href);
  url.searchParams.delete("room");
  history.replaceState(history.state, "", url);
  send({ type: "list_rooms" });
}

// --- the table log -----------------------------------------------------------------------

const HAND_OVER_RE =
  /^(?:(.*) went out and wins the hand\.|Nobody can or will move: the hand is blocked\.) Penalties: (.*)\.$/;

const LOG_PATTERNS = [
  [/^(.*) played (\S+) on (\S+)\.$/, (m) => ["log.play", { name: m[1], card: m[2], pile: m[3] }]],
  [
    /^(.*) moved pile (\S+) onto (\S+)\.$/,
    (m) => ["log.move", { name: m[1], from: m[2], to: m[3] }],
  ],
  [/^(.*) drew a card and ended the turn\.$/, (m) => ["log.draw", { name: m[1] }]],
  [/^(.*) ended the turn\.$/, (m) => ["log.end", { name: m[1] }]],
  [/^(.*) sat down\.$/, (m) => ["log.sit", { name: m[1] }]],
  [/^(.*) moved to seat (\d+)\.$/, (m) => ["log.moved_seat", { name: m[1], n: m[2] }]],
  [/^(.*) left; a bot plays the seat\.$/, (m) => ["log.left_bot", { name: m[1] }]],
  [/^(.*) left\.$/, (m) => ["log.left", { name: m[1] }]],
  [/^(.*) is away; a bot plays for now\.$/, (m) => ["log.away", { name: m[1] }]],
  [/^(.*) is back\.$/, (m) => ["log.back", { name: m[1] }]],
  [/^The match begins; (.*) deals\.$/, (m) => ["log.start", { name: m[1] }]],
  [/^Hand (\d+): (.*) deals\.$/, (m) => ["log.deal", { n: m[1], name: m[2] }]],
  [/^Rematch! (.*) deals\.$/, (m) => ["log.rematch", { name: m[1] }]],
  [/^(.*) wants a rematch\.$/, (m) => ["log.rematch_vote", { name: m[1] }]],
  [/^(.*) was removed by the host\.$/, (m) => ["log.kicked", { name: m[1] }]],
  [/^(.*) is now the host\.$/, (m) => ["log.host", { name: m[1] }]],
  [/^The host locked the room\.$/, () => ["log.locked", {}]],
  [/^The host unlocked the room\.$/, () => ["log.unlocked", {}]],
  [/^The host changed the room's options\.$/, () => ["log.configure", {}]],
  [/^(.*)'s time ran out; a bot plays the turn\.$/, (m) => ["log.timeout", { name: m[1] }]],
];

/** A log line in the current language (the server writes English); unknown lines as sent. */
function logText(line) {
  if (line.key) return t(line.key, line.vars);
  const text = line.text;
  for (const [re, make] of LOG_PATTERNS) {
    const m = re.exec(text);
    if (!m) continue;
    const [key, vars] = make(m);
    if (vars.card) vars.card = cardText(vars.card);
    for (const name of ["pile", "from", "to"]) if (vars[name]) vars[name] = localPile(vars[name]);
    return t(key, vars);
  }
  const over = HAND_OVER_RE.exec(text);
  if (over) {
    const first = over[1] !== undefined ? t("log.out", { name: over[1] }) : t("log.blocked");
    return `${first} ${t("log.penalties", { list: over[2] })}`;
  }
  const won = /^Match over: (.*) won\.$/.exec(text);
  if (won) {
    const many = won[1].includes(" and ");
    return t("log.match_over", {
      names: won[1].split(" and ").join(t("result.and")),
      verb: t(many ? "log.won_many" : "log.won_one"),
    });
  }
  return text;
}

/** Keep a log line; it goes into the page with the next render, with the rest of its
 * change (so the log never tells of a move the table does not show yet). */
function addLog(line) {
  S.log.push(line);
  if (S.log.length > MAX_LOG) S.log.shift();
  S.logPending.push(line);
}

function flushLog() {
  if (!S.logPending.length) return;
  const list = $("log");
  list.append(...S.logPending.map(logItem));
  S.logPending = [];
  while (list.children.length > MAX_LOG) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}

function note(key, vars) {
  addLog({ kind: "note", seat: null, key, vars });
}

function logItem(line) {
  return el("li", { class: `log-${line.kind || "note"}`, text: logText(line) });
}

function renderLog() {
  S.logPending = [];
  const list = $("log");
  list.replaceChildren(...S.log.map(logItem));
  list.scrollTop = list.scrollHeight;
}

function renderChat() {
  const list = $("chat");
  list.replaceChildren(
    ...S.chat.map((line) =>
      el(
        "li",
        {},
        el("span", { class: "who", text: line.name }),
        line.seat === null ? el("span", { class: "tag", text: t("chat.spectator") }) : null,
        el("span", { class: "said", text: line.text }),
      ),
    ),
  );
  list.scrollTop = list.scrollHeight;
}

// --- toasts ------------------------------------------------------------------------------

function toast(text, kind = "error") {
  const node = el("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status" });
  node.textContent = text;
  $("toasts").append(node);
  setTimeout(() => node.classList.add("going"), 3800);
  setTimeout(() => node.remove(), 4300);
}

// --- helpers on the document ---------------------------------------------------------------

function game() {
  return S.doc ? S.doc.game : null;
}

function seatInfo(i) {
  return S.doc && S.doc.room.seats[i] ? S.doc.room.seats[i] : null;
}

function seatName(i) {
  const seat = seatInfo(i);
  return seat ? seat.name : t("lobby.seat_n", { n: i + 1 });
}

function legal() {
  const g = game();
  return g && Array.isArray(g.legal) ? g.legal : [];
}

function myTurn() {
  return legal().length > 0;
}

/** Piles the selection may go to, taken only from the server's legal list. */
function targets() {
  if (!S.sel) return new Set();
  const prefix = S.sel.kind === "card" ? `${S.sel.card}>` : `${S.sel.pile}>`;
  return new Set(
    legal()
      .filter((a) => a.startsWith(prefix))
      .map((a) => a.slice(prefix.length)),
  );
}

function playableCards() {
  const cards = new Set();
  for (const action of legal()) {
    const [left] = action.split(">");
    if (action.includes(">") && !(left in (game()?.piles || {}))) cards.add(left);
  }
  return cards;
}

function movablePiles() {
  const piles = new Set();
  const names = game()?.piles || {};
  for (const action of legal()) {
    const [left] = action.split(">");
    if (left in names) piles.add(left);
  }
  return piles;
}

function optionsSummary(options, isPublic) {
  const parts = [
    t("opt.target", { target: options.target }),
    t(options.draw === "start" ? "opt.draw_start" : "opt.draw_end"),
  ];
  if (options.kings_first) parts.push(t("opt.kings_first"));
  if (options.turn_timer) parts.push(t("opt.timer", { s: options.turn_timer }));
  if (isPublic !== undefined) parts.push(t(isPublic ? "opt.public" : "opt.private"));
  return parts.join(" · ");
}

// --- actions -----------------------------------------------------------------------------

function act(action) {
  S.seq += 1;
  S.pending.set(S.seq, action);
  send({ type: "act", seq: S.seq, action });
  S.sel = null;
  S.hint = null;
  render();
}

function selectCard(card) {
  if (S.role !== "player") return;
  S.hint = null;
  S.sel = S.sel && S.sel.kind === "card" && S.sel.card === card ? null : { kind: "card", card };
  render();
}

function choosePile(pile) {
  const g = game();
  if (!g || S.role !== "player") return;
  if (S.sel && S.sel.kind === "card") {
    act({ type: "play", card: S.sel.card, pile });
  } else if (S.sel && S.sel.kind === "pile") {
    if (S.sel.pile === pile) {
      S.sel = null;
      render();
    } else {
      act({ type: "move", from: S.sel.pile, to: pile });
    }
  } else if (g.piles[pile] && g.piles[pile].length) {
    S.hint = null;
    S.sel = { kind: "pile", pile };
    render();
  }
}

function endTurn() {
  act({ type: "end_turn" });
}

// --- drag and drop (pointer events: mouse, pen and touch) ----------------------------------

let drag = null;

function startDrag(event, source, visual) {
  if (event.button !== 0 || S.role !== "player") return;
  drag = { source, visual, x: event.clientX, y: event.clientY, id: event.pointerId, ghost: null };
}

function findPile(x, y) {
  const hit = document.elementFromPoint(x, y);
  return hit ? hit.closest("[data-pile]") : null;
}

window.addEventListener("pointermove", (event) => {
  if (!drag || event.pointerId !== drag.id) return;
  if (!drag.ghost) {
    if (Math.hypot(event.clientX - drag.x, event.clientY - drag.y) < 8) return;
    S.sel = drag.source;
    S.hint = null;
    render();
    drag.ghost = el("div", { class: "drag-ghost" }, drag.visual());
    document.body.append(drag.ghost);
  }
  drag.ghost.style.transform = `translate(${event.clientX}px, ${event.clientY}px)`;
  for (const node of document.querySelectorAll(".drop-over")) node.classList.remove("drop-over");
  const over = findPile(event.clientX, event.clientY);
  if (over) over.classList.add("drop-over");
});

function endDrag(event, cancelled) {
  if (!drag || event.pointerId !== drag.id) return;
  const dragged = drag;
  drag = null;
  if (!dragged.ghost) return;
  dragged.ghost.remove();
  S.suppressClick = true;
  setTimeout(() => {
    S.suppressClick = false;
  }, 0);
  for (const node of document.querySelectorAll(".drop-over")) node.classList.remove("drop-over");
  const over = cancelled ? null : findPile(event.clientX, event.clientY);
  const pile = over ? over.dataset.pile : null;
  if (pile && !(dragged.source.kind === "pile" && dragged.source.pile === pile)) choosePile(pile);
}

window.addEventListener("pointerup", (event) => endDrag(event, false));
window.addEventListener("pointercancel", (event) => endDrag(event, true));

// --- rendering ---------------------------------------------------------------------------

function render() {
  flushLog();
  const inRoom = Boolean(S.room && S.doc && S.role);
  const view = S.view;
  const roomShown = inRoom && !view;
  for (const name of VIEWS) $(name).hidden = view !== name;
  $("lobby").hidden = inRoom || Boolean(view);
  $("room").hidden = !roomShown;
  $("room-bar").hidden = !roomShown;
  $("leave").hidden = !roomShown;
  $("panel-jump").hidden = !roomShown;
  document.body.classList.toggle("in-room", roomShown);
  const screen = view || (!inRoom ? "lobby" : game() ? "table" : "waiting");
  if (screen !== S.screen) {
    S.screen = screen;
    window.scrollTo(0, 0);
  }
  renderBanners();
  if (view === "boards") renderBoards();
  else if (view === "matches") renderMatches();
  else if (view === "replay") renderReplay();
  if (view) return;
  if (!inRoom) {
    renderLobby();
    return;
  }
  const g = game();
  $("waiting").hidden = Boolean(g);
  $("table").hidden = !g;
  $("bar-code").textContent = S.room;
  $("bar-hand").textContent = g ? t("bar.hand", { n: g.hand_no, target: g.target }) : "";
  const daily = S.doc.room.daily;
  $("bar-daily").hidden = !daily;
  $("bar-daily").textContent = daily ? t(daily.ranked ? "daily.ranked" : "daily.practice") : "";
  $("bar-daily").classList.toggle("ranked", Boolean(daily && daily.ranked));
  // Phones have no room for it in the top bar: the same words head the table there.
  $("daily-line").hidden = !daily;
  $("daily-line").textContent = $("bar-daily").textContent;
  $("daily-line").classList.toggle("ranked", Boolean(daily && daily.ranked));
  if (g) renderTable(g);
  else renderWaiting();
  renderScore();
  renderTabs();
  renderOverlay();
  renderAway(g);
}

/** "A bot is playing for you": shown while this seat is away and the server takes "back". */
function renderAway(g) {
  const mine = S.seat !== null && S.doc ? S.doc.room.seats[S.seat] : null;
  const phase = g ? g.phase : null;
  $("away-bar").hidden = !(mine && mine.away && (phase === "playing" || phase === "hand_over"));
}

function renderBanners() {
  $("store-banner").hidden = !S.storeDown;
  $("store-banner").textContent = S.storeDown ? t("store.down") : "";
}

// The lobby --------------------------------------------------------------------------------

function renderLobby() {
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
  renderSeatOptions();
  renderRooms();
}

function levelOptions(select, chosen, extra) {
  const options = extra ? [extra] : [];
  for (const level of LEVELS) options.push([level, t("lobby.bot", { level: t(`level.${level}`) })]);
  select.replaceChildren(
    ...options.map(([value, label]) =>
      el("option", { value, selected: value === chosen, text: label }),
    ),
  );
  select.value = chosen;
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

function formOptions() {
  const seats = Number($("opt-seats").value);
  const bots = [null];
  for (let i = 1; i < seats; i += 1) {
    const choice = S.seatChoices[i - 1];
    bots.push(choice === "open" ? null : choice);
  }
  const target = Math.min(500, Math.max(1, Math.round(Number($("opt-target").value) || 25)));
  const timer = $("opt-timer").value;
  return {
    seats,
    target,
    draw: $("opt-draw").value === "start" ? "start" : "end",
    kings_first: $("opt-kings").checked,
    public: $("opt-public").checked,
    bots,
    turn_timer: timer ? Number(timer) : null,
  };
}

function loadCreateForm() {
  const saved = storage.get(localStorage, CREATE);
  if (!saved) return;
  if ([2, 3, 4].includes(saved.seats)) $("opt-seats").value = String(saved.seats);
  if (saved.target) $("opt-target").value = String(saved.target);
  if (saved.draw) $("opt-draw").value = saved.draw;
  $("opt-kings").checked = Boolean(saved.kings_first);
  $("opt-public").checked = saved.public !== false;
  $("opt-timer").value = saved.turn_timer ? String(saved.turn_timer) : "";
  if (Array.isArray(saved.bots)) {
    saved.bots.slice(1).forEach((level, i) => {
      S.seatChoices[i] = level === null ? "open" : level;
    });
  }
}

// The waiting room -------------------------------------------------------------------------

function shareLink() {
  const url = new URL(location.href);
  url.search = "";
  url.hash = "";
  url.searchParams.set("room", S.room);
  return url.toString();
}

function botLabel(seat) {
  return t("seat.bot", { level: t(`level.${seat.level}`) });
}

function seatButton(text, onclick, label) {
  return el("button", { type: "button", class: "small", text, "aria-label": label, onclick });
}

function renderWaiting() {
  const room = S.doc.room;
  const isHost = S.seat !== null && S.seat === room.host;
  const botLevel = S.fill === "none" ? "medium" : S.fill;
  $("share-code").textContent = room.code;
  $("share-link").value = shareLink();
  const list = $("wait-seats");
  list.replaceChildren(
    ...room.seats.map((seat, i) => {
      const tags = [];
      if (seat && room.host === i) tags.push(t("wait.host"));
      if (i === S.seat) tags.push(t("seat.you"));
      if (seat && seat.kind === "bot") tags.push(botLabel(seat));
      if (seat && seat.kind === "human") {
        if (!seat.connected) tags.push(t("seat.offline"));
        if (room.host !== i) tags.push(t(seat.ready ? "wait.ready" : "wait.not_ready"));
      }
      let control = null;
      if (!seat && isHost) {
        control = seatButton(t("wait.add_bot"), () =>
          send({ type: "add_bot", seat: i, level: botLevel }),
        );
      } else if (!seat && S.seat !== i) {
        control = seatButton(t("wait.sit"), () => {
          ensureName();
          send({ type: "sit", seat: i });
        });
      } else if (seat && isHost && seat.kind === "bot") {
        control = seatButton(t("wait.remove_bot"), () => send({ type: "remove_bot", seat: i }));
      } else if (seat && isHost && seat.kind === "human" && i !== S.seat) {
        control = seatButton(
          t("wait.kick"),
          () => send({ type: "kick", seat: i }),
          t("wait.kick_label", { name: seat.name }),
        );
      }
      const ready = seat && (seat.kind === "bot" || seat.ready || room.host === i);
      return el(
        "li",
        {
          class: [
            "wait-seat",
            seat ? "" : "empty",
            i === S.seat ? "mine" : "",
            ready ? "ready" : "",
          ]
            .filter(Boolean)
            .join(" "),
          dataset: { seat: String(i) },
        },
        el("span", { class: "seat-no", text: String(i + 1) }),
        el("span", { class: "seat-name", text: seat ? seat.name : t("wait.empty") }),
        tags.length ? el("span", { class: "tags", text: tags.join(" · ") }) : null,
        control,
      );
    }),
  );
  $("wait-options").textContent = optionsSummary(room.options, room.public);
  const unready = room.seats
    .map((seat, i) => ({ seat, i }))
    .filter(({ seat, i }) => seat && seat.kind === "human" && i !== room.host && !seat.ready)
    .map(({ seat }) => seat.name);
  $("wait-ready").textContent = unready.length
    ? t("wait.waiting_for", { names: unready.join(", ") })
    : t("wait.all_ready");

  const mine = S.seat !== null ? room.seats[S.seat] : null;
  $("ready-box").hidden = !mine || isHost;
  if (mine) {
    $("ready-btn").setAttribute("aria-pressed", String(Boolean(mine.ready)));
    $("ready-btn").classList.toggle("on", Boolean(mine.ready));
  }
  $("host-box").hidden = !isHost;
  if (!isHost) S.configOpen = false;
  $("config-open").setAttribute("aria-expanded", String(S.configOpen));
  $("config-form").hidden = !S.configOpen;
  levelOptions($("start-fill"), S.fill, ["none", t("fill.none")]);
  for (const option of $("start-fill").options) {
    if (option.value !== "none") {
      option.textContent = t("fill.bot", { level: t(`level.${option.value}`) });
    }
  }
  $("lock-box").checked = Boolean(room.locked);
  let noteText = "";
  if (room.locked) noteText = t("wait.locked");
  if (S.role === "spectator") noteText = `${noteText} ${t("wait.spectating")}`.trim();
  else if (!isHost) noteText = `${noteText} ${t("wait.host_only")}`.trim();
  $("wait-note").textContent = noteText;
}

/** Fill the host's options form from the room as it is now. */
function fillConfig() {
  const room = S.doc.room;
  const options = room.options;
  $("cfg-seats").value = String(options.seats);
  $("cfg-target").value = String(options.target);
  $("cfg-draw").value = options.draw === "start" ? "start" : "end";
  $("cfg-kings").checked = Boolean(options.kings_first);
  $("cfg-public").checked = Boolean(room.public);
  const choices = [...TIMER_CHOICES];
  if (options.turn_timer && !choices.includes(options.turn_timer)) {
    choices.push(options.turn_timer);
    choices.sort((a, b) => a - b);
  }
  $("cfg-timer").replaceChildren(
    el("option", { value: "", text: t("lobby.timer_none") }),
    ...choices.map((s) => el("option", { value: String(s), text: `${s} s` })),
  );
  $("cfg-timer").value = options.turn_timer ? String(options.turn_timer) : "";
}

function configOptions() {
  const target = Math.min(500, Math.max(1, Math.round(Number($("cfg-target").value) || 25)));
  const timer = $("cfg-timer").value;
  return {
    seats: Number($("cfg-seats").value),
    target,
    draw: $("cfg-draw").value === "start" ? "start" : "end",
    kings_first: $("cfg-kings").checked,
    public: $("cfg-public").checked,
    turn_timer: timer ? Number(timer) : null,
  };
}

// The table --------------------------------------------------------------------------------

/** The countdown of the turn being played, when the room has a turn timer. It runs from
 * when this client saw the turn start; the server's own timer decides. */
function updateClock(g) {
  const seconds = S.doc.room.options.turn_timer;
  const seat = seatInfo(g.turn);
  const key = `${S.room}:${g.hand_no}:${g.turn}:${S.clockEpoch}`;
  const timed =
    seconds &&
    g.phase === "playing" &&
    !g.result &&
    seat &&
    seat.kind === "human" &&
    !seat.away &&
    S.clockExpired !== key;
  if (!timed) {
    S.clock = null;
  } else if (!S.clock || S.clock.key !== key) {
    S.clock = { key, seat: g.turn, end: performance.now() + seconds * 1000 };
  }
}

function clockText() {
  const left = Math.max(0, Math.ceil((S.clock.end - performance.now()) / 1000));
  return { left, text: `${Math.floor(left / 60)}:${String(left % 60).padStart(2, "0")}` };
}

function tickClocks() {
  const shown = document.querySelectorAll("[data-clock]");
  if (!S.clock || !shown.length) return;
  const { left, text } = clockText();
  for (const node of shown) {
    node.textContent = text;
    node.classList.toggle("low", left <= 10);
  }
}

function plate(i, g, position) {
  const seat = seatInfo(i);
  const count = g.counts[i];
  const turn = g.phase === "playing" && g.turn === i;
  const classes = ["plate", `pos-${position}`];
  if (turn) classes.push("turn");
  if (seat && seat.away) classes.push("away");
  if (seat && seat.kind === "human" && !seat.connected) classes.push("offline");
  if (g.winners && g.winners.includes(i)) classes.push("winner");
  let kind = t("seat.empty");
  if (seat && seat.kind === "bot") kind = botLabel(seat);
  else if (seat && seat.away) kind = t("seat.away");
  else if (seat) {
    kind = `${t("seat.human")} · ${t(seat.connected ? "seat.online" : "seat.offline")}`;
  }
  const countText = count === 1 ? t("seat.card_one") : t("seat.cards", { n: count });
  const backs = el("span", { class: "mini-backs", "aria-hidden": "true" });
  for (let k = 0; k < Math.min(count, 12); k += 1) backs.append(el("span", { class: "mini-back" }));
  const name = seatName(i);
  const label = [name, i === S.seat ? t("seat.you") : null, kind, countText]
    .concat(g.dealer === i ? [t("seat.dealer")] : [])
    .concat(turn ? [t("seat.turn")] : [])
    .filter(Boolean)
    .join(", ");
  return el(
    "div",
    { class: classes.join(" "), dataset: { seat: String(i) }, role: "group", "aria-label": label },
    el(
      "div",
      { class: "plate-head" },
      el("span", { class: "dot", "aria-hidden": "true" }),
      el("span", { class: "pname", text: name }),
      g.dealer === i
        ? el("span", {
            class: "dealer-chip",
            title: t("seat.dealer"),
            text: "D",
            "aria-hidden": "true",
          })
        : null,
      S.clock && S.clock.seat === i
        ? el("span", {
            class: "clock",
            role: "timer",
            "aria-label": t("clock.label"),
            dataset: { clock: "" },
          })
        : null,
    ),
    el("div", { class: "plate-sub", text: kind }),
    el("div", { class: "plate-cards" }, backs, el("span", { class: "pcount", text: countText })),
  );
}

function pileButton(name, g, goals, movable) {
  const cards = g.piles[name] || [];
  const fits = goals.has(name);
  const selected = S.sel && S.sel.kind === "pile" && S.sel.pile === name;
  const hinted = S.hint && (S.hint.pile === name || S.hint.to === name);
  const classes = pileClasses(name, cards);
  if (fits) classes.push("legal");
  if (selected) classes.push("selected");
  if (hinted) classes.push("hinted");
  if (movable.has(name)) classes.push("movable");
  const button = el(
    "button",
    {
      type: "button",
      class: classes.join(" "),
      dataset: { pile: name, focusKey: `pile:${name}` },
      "aria-label": pileLabel(name, cards, fits, selected, movable.has(name)),
      "aria-pressed": S.role === "player" ? String(Boolean(selected)) : null,
      disabled: S.role !== "player",
    },
    ...pileParts(name, cards, S.fresh.has(name)),
  );
  if (cards.length && S.role === "player") {
    button.addEventListener("pointerdown", (event) =>
      startDrag(event, { kind: "pile", pile: name }, () => cardFace(cards[cards.length - 1])),
    );
  }
  return button;
}

function handButtons(g) {
  const hand = sortHand(g.hand || []);
  const playable = playableCards();
  const buttons = hand.map((card) => {
    const selected = S.sel && S.sel.kind === "card" && S.sel.card === card;
    const fits = playable.has(card);
    const classes = ["card-btn"];
    if (selected) classes.push("selected");
    if (fits) classes.push("playable");
    if (S.fresh.has(card)) classes.push("drawn");
    const label =
      cardName(card) + (fits ? t("hand.playable") : "") + (selected ? t("hand.selected") : "");
    const button = el(
      "button",
      {
        type: "button",
        class: classes.join(" "),
        dataset: { card, focusKey: `card:${card}` },
        "aria-label": label,
        "aria-pressed": String(Boolean(selected)),
      },
      cardFace(card),
    );
    button.addEventListener("pointerdown", (event) =>
      startDrag(event, { kind: "card", card }, () => cardFace(card)),
    );
    return button;
  });
  return buttons;
}

/** Note which piles got a new top card and which cards just came into the hand. */
function trackChanges(g) {
  S.fresh = new Set();
  const tops = {};
  for (const [name, cards] of Object.entries(g.piles)) {
    tops[name] = cards.length ? cards[cards.length - 1] : null;
    if (S.lastTops[name] !== undefined && S.lastTops[name] !== tops[name] && tops[name]) {
      S.fresh.add(name);
    }
  }
  S.lastTops = tops;
  const hand = g.hand || [];
  if (S.lastHand) for (const card of hand) if (!S.lastHand.includes(card)) S.fresh.add(card);
  S.lastHand = [...hand];
}

function statusText(g) {
  if (g.phase === "finished") return t("status.finished");
  if (g.phase === "hand_over") return t("status.hand_over");
  const playing = t("status.turn_of", { name: seatName(g.turn) });
  if (S.role !== "player") return `${t("status.watching")} ${playing}`;
  if (!myTurn()) return playing;
  if (S.hint && S.hint.type === "end_turn") return t("status.hint_end");
  if (S.hint && S.hint.type === "play") {
    return t("status.hint_play", { card: cardText(S.hint.card), pile: t(`pile.${S.hint.pile}`) });
  }
  if (S.hint && S.hint.type === "move") {
    return t("status.hint_move", { from: t(`pile.${S.hint.from}`), to: t(`pile.${S.hint.to}`) });
  }
  if (S.sel && S.sel.kind === "card") {
    const key = targets().size ? "status.card_selected" : "status.no_fit";
    return t(key, { card: cardText(S.sel.card) });
  }
  if (S.sel && S.sel.kind === "pile") {
    return t("status.pile_selected", { pile: t(`pile.${S.sel.pile}`) });
  }
  if (!legal().includes("end") && S.doc.room.options.kings_first) return t("status.kings_first");
  return t("status.your_turn");
}

function renderTable(g) {
  // Forget a selection the new state made stale.
  if (S.sel && S.sel.kind === "card" && !(g.hand || []).includes(S.sel.card)) S.sel = null;
  if (S.sel && S.sel.kind === "pile" && !(g.piles[S.sel.pile] || []).length) S.sel = null;
  trackChanges(g);
  updateClock(g);
  const focusKey = document.activeElement ? document.activeElement.dataset.focusKey : undefined;
  const n = g.seats;
  const base = S.seat === null ? 0 : S.seat;
  const positions = POSITIONS[n] || [];
  const plates = positions.map((position, k) => plate((base + 1 + k) % n, g, position));
  $("opponents").replaceChildren(...plates);
  $("opponents").dataset.count = String(plates.length);
  $("me-plate").replaceChildren(plate(base, g, "bottom"));

  const goals = targets();
  const movable = movablePiles();
  const board = $("board");
  board.replaceChildren(
    ...GRID.map((name) =>
      name === "stock" ? stockView(g.stock) : pileButton(name, g, goals, movable),
    ),
  );
  board.classList.toggle("choosing", S.sel !== null);

  const hand = $("hand");
  if (S.role === "player") {
    const buttons = handButtons(g);
    const empty = el("span", { class: "muted", text: t("hand.empty") });
    hand.replaceChildren(...(buttons.length ? buttons : [empty]));
    hand.hidden = false;
  } else {
    hand.replaceChildren();
    hand.hidden = true;
  }
  $("status").textContent = statusText(g);
  $("felt").classList.toggle("my-turn", myTurn());

  const seated = S.role === "player";
  $("actions").hidden = !seated;
  const endButton = $("end-turn");
  const draws = g.stock > 0 && S.doc.room.options.draw !== "start";
  endButton.textContent = t(draws ? "act.draw_end" : "act.end");
  endButton.disabled = !legal().includes("end");
  // With "kings first" the server leaves "end" out while a king must still go to a corner.
  const kingFirst = myTurn() && endButton.disabled && S.doc.room.options.kings_first;
  endButton.title = kingFirst ? t("status.kings_first") : "";
  endButton.classList.toggle("hinted", Boolean(S.hint && S.hint.type === "end_turn"));
  $("hint").disabled = !myTurn();
  tickClocks();

  if (focusKey) {
    const again = document.querySelector(`[data-focus-key="${CSS.escape(focusKey)}"]`);
    if (again && !again.disabled) again.focus();
    else if (focusKey.startsWith("card:")) {
      const first = hand.querySelector("button");
      if (first) first.focus();
    }
  }
}

// Score, tabs and the result ---------------------------------------------------------------

function renderScore() {
  const pane = $("pane-score");
  const g = game();
  if (!g) {
    pane.replaceChildren(el("p", { class: "muted", text: t("score.none") }));
    return;
  }
  const head = el("tr", {}, el("th", { scope: "col", text: t("score.player") }));
  g.scores.forEach((_, k) => {
    head.append(el("th", { scope: "col", text: t("score.hand", { n: k + 1 }) }));
  });
  head.append(el("th", { scope: "col", text: t("score.total") }));
  const rows = g.totals.map((total, i) => {
    const row = el(
      "tr",
      { class: g.winners && g.winners.includes(i) ? "winner" : null },
      el("th", { scope: "row", text: seatName(i) }),
    );
    for (const penalties of g.scores) row.append(el("td", { text: String(penalties[i]) }));
    const share = Math.min(100, Math.round((100 * total) / Math.max(1, g.target)));
    row.append(
      el(
        "td",
        { class: "total" },
        el("span", { text: String(total) }),
        el(
          "span",
          { class: "bar", "aria-hidden": "true" },
          el("span", { style: `width:${share}%` }),
        ),
      ),
    );
    return row;
  });
  pane.replaceChildren(
    el("table", { class: "score" }, el("thead", {}, head), el("tbody", {}, ...rows)),
    el("p", { class: "muted", text: t("score.target", { target: g.target }) }),
  );
}

function renderTabs() {
  for (const tab of document.querySelectorAll("[data-tab]")) {
    const on = tab.dataset.tab === S.tab;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
    tab.classList.toggle("on", on);
    $(`pane-${tab.dataset.tab}`).hidden = !on;
  }
  const chatTab = $("tab-chat");
  chatTab.textContent = t("panel.chat");
  if (S.unread) chatTab.append(el("span", { class: "badge", text: String(S.unread) }));
}

function renderOverlay() {
  const g = game();
  const overlay = $("overlay");
  const result = g ? g.result : null;
  const key = g ? `${S.room}:${g.hand_no}` : null;
  if (!result) {
    overlay.hidden = true;
    $("show-result").hidden = true;
    S.dismissed = null;
    S.overlayFor = null;
    return;
  }
  const show = S.dismissed !== key;
  overlay.hidden = !show;
  $("show-result").hidden = show;
  const finished = g.phase === "finished";
  $("result-title").textContent = finished
    ? t("result.match_title")
    : t("result.hand_title", { n: g.hand_no });
  $("result-reason").textContent =
    result.reason === "emptied"
      ? t("result.out", { name: seatName(result.out) })
      : t("result.blocked");
  let winners = "";
  if (finished && g.winners) {
    const names = g.winners.map(seatName).join(t("result.and"));
    winners = t(g.winners.length > 1 ? "result.winners" : "result.winner", { names });
    if (S.seat !== null && g.winners.includes(S.seat)) winners += ` ${t("result.you_won")}`;
  }
  $("result-winners").textContent = winners;
  $("result-winners").hidden = !winners;
  const head = el(
    "tr",
    {},
    el("th", { scope: "col", text: t("score.player") }),
    el("th", { scope: "col", text: t("result.left") }),
    el("th", { scope: "col", text: t("result.penalty") }),
    el("th", { scope: "col", text: t("result.total") }),
  );
  const rows = result.left.map((cards, i) => {
    const names = cards.map(cardName).join(", ");
    const faces = el(
      "div",
      { class: "left-cards", role: "img", "aria-label": names || t("result.none") },
      ...cards.map((card) => {
        const face = cardFace(card);
        face.classList.add("mini");
        return face;
      }),
    );
    if (!cards.length) faces.append(el("span", { class: "muted", text: t("result.none") }));
    return el(
      "tr",
      {
        class: [g.winners && g.winners.includes(i) ? "winner" : "", i === S.seat ? "mine" : ""]
          .join(" ")
          .trim(),
        dataset: { seat: String(i) },
      },
      el("th", { scope: "row", text: seatName(i) }),
      el("td", { class: "left-cell" }, faces),
      el("td", { class: "num", text: `+${result.penalties[i]}` }),
      el("td", { class: "num total", text: String(g.totals[i]) }),
    );
  });
  $("result-table").replaceChildren(el("thead", {}, head), el("tbody", {}, ...rows));
  const seated = S.role === "player";
  const votes = S.doc.room.rematch || [];
  const voted = seated && votes.includes(S.seat);
  const isHost = seated && S.doc.room.host === S.seat;
  // A daily room plays the day's deal once: no rematch there (it would deal something else).
  const daily = Boolean(S.doc.room.daily);
  $("next-hand").hidden = finished || !seated;
  $("play-again").hidden = !finished || !seated || daily;
  $("play-again").disabled = voted;
  $("play-again").textContent = t(voted ? "result.again_wait" : "result.again");
  $("force-again").hidden = !(finished && isHost && votes.length > 0) || daily;
  $("new-game").hidden = !finished;
  $("result-replay").hidden = !finished || !seated;
  $("result-boards").hidden = !finished;
  let noteText = finished ? "" : t("result.auto");
  if (finished && votes.length) {
    noteText = t("result.votes", { names: votes.map(seatName).join(", ") });
  }
  $("result-note").textContent = noteText;
  if (show && S.overlayFor !== key) {
    S.overlayFor = key;
    let primary = $("view-table");
    if (seated && !finished) primary = $("next-hand");
    else if (seated) primary = daily ? $("result-boards") : $("play-again");
    primary.focus();
  }
}

function renderAll() {
  translateStatic();
  document.title = t("app.title");
  $("lang").textContent = t("lang.button");
  $("lang").setAttribute("aria-label", t("lang.switch"));
  renderLog();
  renderChat();
  render();
}

// --- views: leaderboards, my matches, replays ---------------------------------------------

const ROUTES = { leaderboards: "boards", matches: "matches" };
const REPLAY_RE = /^replay\/([A-Za-z0-9-]{1,40})$/;

function parseHash() {
  let hash = "";
  try {
    hash = decodeURIComponent(location.hash.replace(/^#/, ""));
  } catch {
    hash = "";
  }
  if (ROUTES[hash]) return { view: ROUTES[hash], arg: null };
  const replay = REPLAY_RE.exec(hash);
  if (replay) return { view: "replay", arg: replay[1] };
  return { view: null, arg: null };
}

/** Keep ?room= in the address in step with the room this tab is in. */
function syncRoomParam() {
  const url = new URL(location.href);
  if (S.room) url.searchParams.set("room", S.room);
  else url.searchParams.delete("room");
  if (url.href !== location.href) history.replaceState(history.state, "", url);
}

/** Show what the address asks for; views ask the server for their rows when they open. */
function route() {
  const { view, arg } = parseHash();
  const before = S.view;
  S.view = view;
  syncRoomParam();
  if (view === "boards" && before !== "boards") requestBoards();
  if (view === "matches" && before !== "matches") {
    S.matches = null;
    send({ type: "my_matches" });
  }
  if (view === "replay" && replayId() !== arg) openReplay(arg, S.replayDaily[arg] || null);
  if (view !== "replay" && replayId() !== null) closeReplay();
  render();
  if (view && view !== before) {
    const heading = $(view).querySelector("h1");
    heading.tabIndex = -1;
    heading.focus();
  }
}

function go(hash) {
  const url = new URL(location.href);
  url.hash = hash;
  history.pushState({ kc: true }, "", url);
  route();
}

/** Back from a view: to where the player came from in this app, else to the lobby or room. */
function leaveView() {
  if (history.state && history.state.kc) {
    history.back(); // "popstate" routes
    return;
  }
  const url = new URL(location.href);
  url.hash = "";
  history.replaceState(null, "", url.href.replace(/#$/, ""));
  route();
}

function requestBoards() {
  S.boards = { daily: null, alltime: null };
  send({ type: "leaderboard", board: "daily", day: null });
  send({ type: "leaderboard", board: "alltime", day: null });
}

function onLeaderboard(frame) {
  if (frame.board !== "daily" && frame.board !== "alltime") return;
  S.boards[frame.board] = {
    day: frame.day,
    entries: Array.isArray(frame.entries) ? frame.entries : [],
  };
  if (S.view === "boards") renderBoards();
}

function sameTotals(a, b) {
  return JSON.stringify(a || []) === JSON.stringify(b || []);
}

function onMatches(frame) {
  S.matches = Array.isArray(frame.matches) ? frame.matches : [];
  for (const match of S.matches) S.replayDaily[match.id] = match.daily || null;
  const wanted = S.findReplay;
  if (wanted) {
    // Newest first: the match that just ended in this room, with the totals it ended on.
    const found = S.matches.find(
      (m) => m.room === wanted.room && sameTotals(m.totals, wanted.totals),
    );
    if (found) {
      S.findReplay = null;
      go(`replay/${found.id}`);
    } else if (wanted.tries < 8) {
      // History is written just after the last move: ask again in a moment.
      wanted.tries += 1;
      setTimeout(() => send({ type: "my_matches" }), 300);
    } else {
      S.findReplay = null;
      toast(t("result.not_saved"));
    }
  }
  if (S.view === "matches") renderMatches();
}

function renderBoards() {
  for (const tab of document.querySelectorAll("[data-board]")) {
    const on = tab.dataset.board === S.boardTab;
    tab.setAttribute("aria-selected", String(on));
    tab.tabIndex = on ? 0 : -1;
    tab.classList.toggle("on", on);
    if (on) $("board-pane").setAttribute("aria-labelledby", tab.id);
  }
  const board = S.boardTab;
  const data = S.boards[board];
  const daily = board === "daily";
  $("board-caption").textContent = daily
    ? t("boards.daily_caption", { day: data && data.day ? data.day : todayUtc() })
    : t("boards.alltime_caption");
  const rank = $("board-rank");
  if (!data) {
    rank.textContent = "";
    $("board-body").replaceChildren(el("p", { class: "muted", text: t("boards.loading") }));
    return;
  }
  const mine = S.playerId ? standing(board, data.entries, S.playerId) : null;
  if (mine) {
    rank.textContent = t(daily ? "boards.your_rank" : "boards.your_place", {
      rank: mine.rank,
      n: mine.of,
    });
  } else {
    rank.textContent = t(daily ? "boards.not_ranked" : "boards.not_listed");
  }
  rank.classList.toggle("ranked", Boolean(mine));
  $("board-body").replaceChildren(
    data.entries.length
      ? leaderboardTable(board, data.entries, S.playerId)
      : el("p", { class: "muted", text: t(daily ? "boards.empty_daily" : "boards.empty_alltime") }),
  );
}

function renderMatches() {
  const list = $("match-list");
  const empty = $("matches-empty");
  if (S.matches === null) {
    empty.hidden = false;
    empty.textContent = t("boards.loading");
    list.replaceChildren();
    return;
  }
  empty.hidden = S.matches.length > 0;
  empty.textContent = t("matches.empty");
  list.replaceChildren(...matchList(S.matches, (match) => go(`replay/${match.id}`)));
}

// --- wiring ------------------------------------------------------------------------------

function leave(after) {
  S.afterLeave = after || null;
  if (S.room && S.welcomed) {
    send({ type: "leave" });
  } else {
    onLeft();
  }
}

function wire() {
  $("lang").addEventListener("click", () => setLang(lang() === "es" ? "en" : "es"));
  onLangChange(renderAll);

  $("name").addEventListener("change", () => storage.set(localStorage, NAME, currentName()));
  $("opt-seats").addEventListener("change", renderSeatOptions);

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

  $("leave").addEventListener("click", () => leave());
  $("panel-jump").addEventListener("click", () => {
    $("panel").scrollIntoView({ behavior: "smooth", block: "start" });
  });
  $("copy-link").addEventListener("click", async () => {
    const link = shareLink();
    try {
      await navigator.clipboard.writeText(link);
      toast(t("wait.copied"), "info");
    } catch {
      $("share-link").select();
      toast(t("wait.copy_failed"), "info");
    }
  });
  $("start-fill").addEventListener("change", () => {
    S.fill = $("start-fill").value;
  });
  $("start-go").addEventListener("click", () => {
    const free = S.doc.room.seats.some((seat) => seat === null);
    send({ type: "start", fill: free && S.fill !== "none" ? S.fill : null });
  });

  $("board").addEventListener("click", (event) => {
    const pile = event.target.closest("[data-pile]");
    if (!pile || S.suppressClick) return;
    choosePile(pile.dataset.pile);
  });
  $("hand").addEventListener("click", (event) => {
    const card = event.target.closest("[data-card]");
    if (!card || S.suppressClick) return;
    selectCard(card.dataset.card);
  });
  $("end-turn").addEventListener("click", endTurn);
  $("hint").addEventListener("click", () => send({ type: "hint" }));
  document.addEventListener("keydown", (event) => {
    if (S.view) {
      if (event.key === "Escape") leaveView();
      return;
    }
    if (event.key === "Escape" && !$("overlay").hidden) {
      $("view-table").click();
    } else if (event.key === "Escape" && S.sel) {
      S.sel = null;
      S.hint = null;
      render();
    }
  });

  for (const tab of document.querySelectorAll("[data-tab]")) {
    tab.addEventListener("click", () => {
      S.tab = tab.dataset.tab;
      if (S.tab === "chat") S.unread = 0;
      renderTabs();
    });
  }
  $("chat-form").addEventListener("submit", (event) => {
    event.preventDefault();
    const text = $("chat-text").value.trim();
    if (!text) return;
    send({ type: "chat", text: text.slice(0, 500) });
    $("chat-text").value = "";
  });

  $("next-hand").addEventListener("click", () => send({ type: "next_hand" }));
  $("view-table").addEventListener("click", () => {
    const g = game();
    S.dismissed = g ? `${S.room}:${g.hand_no}` : null;
    renderOverlay();
    $("show-result").focus();
  });
  $("show-result").addEventListener("click", () => {
    S.dismissed = null;
    S.overlayFor = null;
    renderOverlay();
  });
  $("new-game").addEventListener("click", () => leave());
  $("play-again").addEventListener("click", () => send({ type: "rematch", force: false }));
  $("force-again").addEventListener("click", () => send({ type: "rematch", force: true }));
  $("back").addEventListener("click", () => send({ type: "back" }));
  $("ready-btn").addEventListener("click", () => {
    const mine = S.doc && S.seat !== null ? S.doc.room.seats[S.seat] : null;
    send({ type: "ready", ready: !(mine && mine.ready) });
  });
  $("lock-box").addEventListener("change", () => {
    send({ type: "lock", locked: $("lock-box").checked });
  });

  // The host's options form in the waiting room.
  $("config-open").addEventListener("click", () => {
    S.configOpen = !S.configOpen;
    if (S.configOpen) fillConfig();
    render();
    if (S.configOpen) $("cfg-seats").focus();
  });
  $("config-cancel").addEventListener("click", () => {
    S.configOpen = false;
    render();
    $("config-open").focus();
  });
  $("config-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "configure", options: configOptions() });
    S.configOpen = false;
    render();
    $("config-open").focus();
  });

  // The daily deal, leaderboards, history and replays.
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
  $("result-boards").addEventListener("click", () => {
    S.boardTab = S.doc && S.doc.room.daily ? "daily" : "alltime";
    go("leaderboards");
  });
  $("result-replay").addEventListener("click", () => {
    const g = game();
    S.findReplay = { room: S.room, totals: g ? g.totals : null, tries: 0 };
    send({ type: "my_matches" });
  });
  for (const back of document.querySelectorAll(".view-back")) {
    back.addEventListener("click", () => leaveView());
  }
  for (const tab of document.querySelectorAll("[data-board]")) {
    tab.addEventListener("click", () => {
      S.boardTab = tab.dataset.board;
      renderBoards();
    });
  }
  $("board-refresh").addEventListener("click", () => {
    requestBoards();
    renderBoards();
  });
  for (const list of document.querySelectorAll('[role="tablist"]')) tablistKeys(list);
  window.addEventListener("popstate", route);
  window.addEventListener("hashchange", route);
  wireReplay();
}

function heroFan() {
  const fan = $("hero-fan");
  ["KS", "KH", "KC", "KD"].forEach((code, i) => {
    const card = cardFace(code);
    card.style.transform = `rotate(${(i - 1.5) * 14}deg)`;
    fan.append(card);
  });
}

function boot() {
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
  connect();
  send({ type: "list_rooms" });
  route();
  setInterval(tickClocks, 250);
}

boot();
