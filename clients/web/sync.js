// This tab's room, kept in step with the server: the welcome (and resuming a saved seat),
// joining and leaving, the room's document from a snapshot and then patches (a gap or a
// patch that does not apply asks for a fresh snapshot), and the server's refusals.

import { fallbackVersion, hello, moveToRoom, send } from "./connection.js";
import { localPile } from "./board.js";
import { cardText } from "./cards.js";
import { seatName } from "./doc.js";
import { $ } from "./dom.js";
import { has, t } from "./i18n.js";
import { noticeEvent, noticeTurn } from "./notify.js";
import { addLog, logText, note, renderChat, renderLog } from "./panel.js";
import { noteEvents } from "./motion.js";
import { applyFrame } from "./client.js";
import { shownNames } from "./rating.js";
import { KICKED, LAST, PLAYER, S, SESSION, render, renderSoon, storage } from "./state.js";
import { banner, toast } from "./toasts.js";
import { leaveView, reopenView } from "./views.js";

// The secret player token the server hands out in "welcome" (its own alphabet, 16-64 chars).
export const PLAYER_RE = /^[A-Za-z0-9_-]{16,64}$/;

// --- one seat, one tab -----------------------------------------------------------------------

// Tabs of this browser say which seat they take: a tab whose seat another one takes (the same
// room and seat token: "Resume", or the room's link opened again) stops showing a live table
// and says so, until "Play here" takes the seat back.
const TAB = Math.random().toString(36).slice(2);
const seats = typeof BroadcastChannel === "function" ? new BroadcastChannel("kc.seat") : null;

function claimSeat() {
  if (seats && S.room && S.token) seats.postMessage({ room: S.room, token: S.token, tab: TAB });
}

if (seats) {
  seats.addEventListener("message", (event) => {
    const { room, token, tab } = event.data || {};
    if (tab === TAB || !S.room || room !== S.room || !S.token || token !== S.token) return;
    if (S.elsewhere) return;
    S.elsewhere = true;
    S.sel = null;
    S.hint = null;
    render();
  });
}

/** "Play here": this tab takes its seat back from the other one. */
export function playHere() {
  S.elsewhere = false;
  claimSeat();
  render();
}

/** Keep the player token a frame brings (`welcome`, and `recovery_code`: making a code
 * signs every other device out, this one goes on with the new token). */
export function keepPlayer(frame) {
  if (typeof frame.player === "string" && PLAYER_RE.test(frame.player)) {
    S.player = frame.player;
    storage.set(localStorage, PLAYER, frame.player);
  }
}

export function onWelcome(frame) {
  keepPlayer(frame);
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
  reopenView();
  render();
}

export function resume(session) {
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
  S.turnWasMine = false;
  S.pending.clear();
  renderLog();
  renderChat();
}

export function onJoined(frame) {
  if (frame.room !== S.room) enterRoom(frame.room);
  const announce = S.role === null;
  S.seat = frame.seat;
  S.role = frame.role;
  if (frame.role === "spectator") S.token = null;
  else if (frame.token) S.token = frame.token;
  S.joining = null;
  S.queued = null;
  S.invite = null;
  // "Play vs 3 bots": the room is ours and full of bots; deal at once.
  if (S.dealing && frame.role === "player") send({ type: "start", fill: null });
  storage.set(sessionStorage, SESSION, {
    room: S.room,
    token: S.token,
    spectate: frame.role === "spectator",
  });
  if (S.token) storage.set(localStorage, LAST, { room: S.room, token: S.token });
  if (announce) {
    // This tab just took the seat: another tab of this browser holding it stops.
    S.elsewhere = false;
    claimSeat();
  }
  const url = new URL(location.href);
  url.searchParams.set("room", S.room);
  history.replaceState(history.state, "", url);
  if (announce) {
    note(frame.role === "spectator" ? "note.watching" : "note.joined", { code: S.room });
  }
  render();
  moveToRoom(); // onto a socket whose address names the room, unless this one does
}

/** The last seat of this browser says whether its match is over: opening the site again
 * later (a new tab, or the bare address in this one) goes to the lobby, not back into a
 * finished room (app.js, boot); a rematch there makes it a seat to come back to again. */
function markFinished() {
  if (!S.doc || !S.room) return;
  const finished = S.doc.room.phase === "finished";
  const last = storage.get(localStorage, LAST);
  if (last && last.room === S.room && Boolean(last.finished) !== finished) {
    storage.set(localStorage, LAST, { ...last, finished });
  }
}

/** The whole document of the room; the server sends a room's first one just before
 * "joined". */
export function onSnapshot(frame) {
  if (frame.room !== S.room) enterRoom(frame.room);
  S.doc = frame.doc;
  S.version = frame.version;
  S.resyncing = false;
  markFinished();
  render();
  noticeTurn();
}

export function onPatch(frame) {
  // A patch is for the room this connection is in; a missed one asks for a snapshot.
  const next = applyFrame(S.doc, S.version, frame);
  if (next.status === "gap") resync();
  if (next.status !== "applied") return;
  S.doc = next.doc;
  S.version = next.version;
  markFinished();
  if (frame.seq !== null && frame.seq !== undefined) S.pending.delete(frame.seq);
  const names = shownNames(S.doc.room.seats);
  const said = [];
  for (const event of frame.log || []) {
    const line = { ...event, names };
    addLog(line);
    said.push(logText(line));
    onLogEvent(event);
    noticeEvent(event);
  }
  // Screen readers hear every move, whichever tab the panel shows.
  if (said.length) $("announce").textContent = said.join(" ");
  noteEvents(S.room, frame.log || [], S.seat); // the table's motion and its last turn
  renderSoon();
  noticeTurn();
}

/** What a log event means beyond the log: a new host, the end of a turn. */
function onLogEvent(event) {
  if (event.ev === "host") {
    toast(event.seat === S.seat ? t("host.you") : logText(S.log[S.log.length - 1]), "info");
  } else if (["ended", "drew", "dealt", "started"].includes(event.ev)) {
    S.clockEpoch += 1; // a new turn starts its countdown afresh
  } else if (event.ev === "timed_out" && S.clock) {
    S.clockExpired = S.clock.key; // a bot finishes this turn: no countdown any more
  }
}

/** Ask for a fresh snapshot, once until it comes. */
function resync() {
  if (S.resyncing) return;
  S.resyncing = true;
  send({ type: "resync" });
}

/** The words for a refusal, from its code and parameters (docs/protocol.md); the server's
 * English message only for a code this client does not know. */
export function errorText(frame) {
  const params = { ...(frame.params || {}) };
  for (const name of ["card", "onto", "base"]) {
    if (typeof params[name] === "string") params[name] = cardText(params[name]);
  }
  for (const name of ["pile", "from", "to"]) {
    if (typeof params[name] === "string") params[name] = localPile(params[name]);
  }
  if (Array.isArray(params.seats)) {
    params.names = params.seats.map((i) => seatName(i)).join(", ");
  }
  const variants = [];
  if (params.reason && params.retry_after !== undefined) {
    variants.push(`err.${frame.code}_${params.reason}_wait`);
  }
  if (params.reason) variants.push(`err.${frame.code}_${params.reason}`);
  if (frame.code === "does_not_fit" && params.base) variants.push("err.does_not_fit_move");
  if (frame.code === "corner_needs_king" && params.to) variants.push("err.corner_needs_king_move");
  if (frame.code === "does_not_fit" && params.reason === "king_pile") {
    variants.unshift("err.does_not_fit_king");
  }
  for (const key of [...variants, `err.${frame.code}`]) {
    if (!has(key)) continue;
    const text = t(key, params);
    if (!/\{\w+\}/.test(text)) return text; // every placeholder filled
  }
  return frame.message;
}

export function onError(frame) {
  const text = errorText(frame);
  if (!S.welcomed && frame.code === "unsupported_version" && S.ws) {
    // An older server (during its upgrade) speaks an older version this client speaks too.
    const version = fallbackVersion(frame.params && frame.params.supported);
    if (version !== null) {
      S.helloVersion = version;
      S.ws.send(JSON.stringify(hello(S.helloName)));
      return;
    }
  }
  S.dealing = false; // a refused create or start: the lobby (or the waiting room) shows
  const refusedHello = ["bad_message", "bad_name", "identity_revoked"].includes(frame.code);
  if (!S.welcomed && refusedHello && S.ws && S.helloTries < 2) {
    // The hello was refused: try the default name, then (only then) a new identity, rather
    // than stay stuck on "Connecting…". A token signed out elsewhere is dropped at once.
    S.helloTries += 1;
    if (S.helloTries === 2 || frame.code === "identity_revoked") {
      S.player = null;
      storage.remove(localStorage, PLAYER);
    }
    if (frame.code === "identity_revoked") toast(text);
    else S.helloName = t("lobby.default_name");
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

export function onLeft() {
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

export function onKicked(frame) {
  S.afterLeave = null;
  S.configOpen = false;
  // The token no longer opens that room: onLeft forgets it (this tab's seat and the last one).
  S.notice = { key: "note.kicked", vars: { code: frame.room } };
  // Its link opened again says so rather than offer a seat the server refuses (app.js).
  const kicked = storage.get(localStorage, KICKED);
  const rooms = Array.isArray(kicked) ? kicked.filter((code) => code !== frame.room) : [];
  storage.set(localStorage, KICKED, [...rooms.slice(-19), frame.room]);
  if (S.view) leaveView();
  onLeft();
}

function clearRoom() {
  S.dealing = false;
  S.elsewhere = false;
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

export function leave(after) {
  S.afterLeave = after || null;
  if (S.room && S.welcomed) {
    send({ type: "leave" });
  } else {
    onLeft();
  }
}
