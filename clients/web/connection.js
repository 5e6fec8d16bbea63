// The WebSocket: opened at boot and again after every loss (with a growing delay), the
// hello that names this player, and send(), which keeps messages until the server has
// welcomed this connection. What the frames mean is for the modules app.js hands them to.
// Each socket names the room it is for in its URL when this page knows it (/?room=CODE):
// a load balancer routing by room then puts the room's players on one server process
// (docs/protocol.md, "Transport").

import { SPOKEN_VERSIONS, fallbackVersion as spokenFallback } from "./client.js";
import { $ } from "./dom.js";
import { t } from "./i18n.js";
import { NAME, S, SESSION, storage } from "./state.js";
import { banner } from "./toasts.js";

// The protocol versions this client speaks are the client library's (client.js): it says
// the first in its hello, and another only to a server that refuses the first.

// What app.js does with each frame, and when the connection drops (see connect()).
const handlers = { frame() {}, lost() {} };

// A room code as the server writes them (the load balancer hashes exactly this).
const ROOM_CODE = /^[A-Z0-9]{6}$/;

/** The room the next socket is for, when this page knows it: the room it is in (also one
 * it created, once the server named it), the seat this tab comes back to, or the room of
 * the link the page was opened with; else null. */
export function roomForUrl() {
  const session = storage.get(sessionStorage, SESSION);
  const saved = session && typeof session.room === "string" ? session.room : null;
  const code = (S.room || saved || S.invite || "").toUpperCase();
  return ROOM_CODE.test(code) ? code : null;
}

export function wsUrl() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const room = roomForUrl();
  return `${scheme}://${location.host}/${room ? `?room=${room}` : ""}`;
}

// localStorage: the name this browser goes by until its player types one.
const DEFAULT_NAME = "kc.default_name";

/** The name of a player who typed none: a friendly one drawn once per browser from the
 * catalogue's list ("Otter", "Lynx"…), so two new friends at one table are not both
 * "Player" (and when the draw matches, their tags tell them apart). */
export function defaultName() {
  const kept = storage.get(localStorage, DEFAULT_NAME);
  if (typeof kept === "string" && kept) return kept;
  const words = t("lobby.default_names")
    .split(",")
    .map((word) => word.trim())
    .filter(Boolean);
  const name = words.length
    ? words[Math.floor(Math.random() * words.length)]
    : t("lobby.default_name");
  storage.set(localStorage, DEFAULT_NAME, name);
  return name;
}

export function currentName() {
  const typed = $("name").value.trim().slice(0, 24);
  return typed || defaultName();
}

/** Open the connection; ``onFrame`` gets every frame from the server, ``onLost`` is told
 * each time the connection drops (it reconnects by itself). */
export function connect(onFrame, onLost) {
  handlers.frame = onFrame;
  handlers.lost = onLost;
  openSocket();
}

function openSocket() {
  const ws = new WebSocket(wsUrl());
  S.ws = ws;
  S.welcomed = false;
  const slow = setTimeout(() => {
    if (S.ws === ws && !S.welcomed) banner(S.everWelcomed ? t("conn.lost") : t("conn.connecting"));
  }, 600);
  ws.addEventListener("open", () => {
    S.helloTries = 0;
    S.helloVersion = SPOKEN_VERSIONS[0];
    S.helloName = currentName();
    ws.send(JSON.stringify(hello(S.helloName)));
  });
  listen(ws, () => clearTimeout(slow));
}

function parse(event) {
  try {
    return JSON.parse(event.data);
  } catch {
    return null;
  }
}

/** Hand ``ws``'s frames to app.js while it is this page's socket (and not being left by
 * a move); when it is lost, reconnect. ``closed`` runs on its close, whatever it was. */
function listen(ws, closed = () => {}) {
  ws.addEventListener("message", (event) => {
    if (S.ws !== ws || S.leaving === ws) return;
    const frame = parse(event);
    if (frame) handlers.frame(frame);
  });
  ws.addEventListener("close", () => {
    closed();
    if (S.ws !== ws) return;
    S.ws = null;
    S.welcomed = false;
    handlers.lost();
    banner(t("conn.lost"));
    const delay = Math.min(5000, 300 * 2 ** S.retry) + Math.random() * 300;
    S.retry += 1;
    setTimeout(openSocket, delay);
  });
}

/** A hello: with the player token when this browser has one, so it stays the same player. */
export function hello(name) {
  const message = { type: "hello", version: S.helloVersion, name };
  if (S.player) message.player = S.player;
  return message;
}

/** Whether the socket opened at ``url`` names room ``code``. */
function namesRoom(url, code) {
  return new URL(url).searchParams.get("room") === code;
}

// How long a move to a socket naming the room may take before this page stays where it is.
const MOVE_WITHIN = 5000;

/** Entered a room on a socket whose address does not name it (a create, quick play, a code
 * typed in the lobby): open one that does, say hello as this player, take the seat with its
 * token (or watch), and only then close the first with 1000 "moved" (the server does not
 * take the seat for gone). A load balancer routing by room so puts this player on the room's
 * process (docs/protocol.md, "Transport"). Messages sent meanwhile wait for the socket they
 * will go on; a move that fails leaves this page on the first socket, resynced. */
export function moveToRoom() {
  const old = S.ws;
  if (!old || S.moving || !S.room || namesRoom(old.url, S.room)) return;
  const join = S.token
    ? { type: "join", room: S.room, token: S.token }
    : { type: "join", room: S.room, spectate: true };
  const ws = new WebSocket(wsUrl());
  S.moving = ws;
  let snapshot = null;
  const finish = (moved) => {
    if (S.moving !== ws) return;
    clearTimeout(timer);
    S.moving = null;
    S.leaving = null;
    if (moved) {
      S.ws = ws;
      listen(ws);
      old.close(1000, "moved");
      if (snapshot) handlers.frame(snapshot);
    } else {
      ws.close();
      send({ type: "resync" });
    }
    for (const message of S.outbox.splice(0)) send(message);
  };
  const timer = setTimeout(() => finish(false), MOVE_WITHIN);
  ws.addEventListener("open", () => ws.send(JSON.stringify(hello(S.helloName))));
  ws.addEventListener("message", (event) => {
    if (S.moving !== ws) return;
    const frame = parse(event);
    if (!frame) return;
    if (frame.type === "welcome") {
      S.leaving = old; // from the join on, a server holding both may tell the first "left"
      ws.send(JSON.stringify(join));
    } else if (frame.type === "snapshot") {
      snapshot = frame;
    } else if (frame.type === "joined") {
      finish(true);
    } else if (frame.type === "error") {
      finish(false);
    }
  });
  ws.addEventListener("close", () => finish(false));
}

export function send(message) {
  if (S.ws && S.welcomed && !S.moving && S.ws.readyState === WebSocket.OPEN) {
    // A hello queued before the first welcome gets the token that welcome brought.
    const frame = message.type === "hello" ? hello(message.name) : message;
    S.ws.send(JSON.stringify(frame));
  } else {
    S.outbox.push(message);
  }
}

/** After ``unsupported_version``: the version to say hello in next, or null. */
export function fallbackVersion(supported) {
  return spokenFallback(supported, S.helloVersion);
}

/** Go by the typed name when the player changed it since the server last said who this
 * is (before create/join): a rename, kept for this identity. A hello would not do: its
 * name gives way to a name the identity keeps already, and the lobby's profile request
 * keeps the first one. */
export function ensureName() {
  const name = currentName();
  storage.set(localStorage, NAME, name);
  if (name === S.helloName) return;
  S.helloName = name;
  send({ type: "rename", name });
}
