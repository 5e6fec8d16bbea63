// The kings-corner client library for JavaScript: one connection to a server, the viewer's
// document kept in step with its snapshots and patches, and requests as promises. A
// standalone ES module with no build step and no dependency but ./patch.js: it runs in a
// browser and in Node.js (22 and later; 20 with --experimental-websocket). The web client
// takes its protocol versions and its document keeping from here. docs/client-library.md
// documents it, with a bot in 30 lines.

import { applyPatch } from "./patch.js";

/** The protocol versions this library speaks, newest first (docs/protocol-changes.md). */
export const SPOKEN_VERSIONS = [2, 1];

const PILES = new Set(["N", "E", "S", "W", "NE", "SE", "SW", "NW"]);

/** The refusals of a frame the server did not read, so they carry no `seq`: the answer to
 * the request that frame was (`act` included). */
export const UNREAD_REFUSALS = new Set(["rate_limited", "bad_message"]);

/** After ``unsupported_version``: the newest version spoken here among the server's
 * ``supported`` ones, or null when there is none (or it is the one just refused). */
export function fallbackVersion(supported, refused) {
  if (!Array.isArray(supported)) return null;
  const version = SPOKEN_VERSIONS.find((v) => supported.includes(v));
  return version === undefined || version === refused ? null : version;
}

/** An action in text form, as `game.legal` lists them (`7H>N`, `N>E`, `end`), as the
 * wire's action object. */
export function actionFromText(text) {
  if (text === "end") return { type: "end_turn" };
  const [left, right] = text.split(">");
  if (right === undefined) return { type: text };
  return PILES.has(left) ? { type: "move", from: left, to: right } : { type: "play", card: left, pile: right };
}

/** What a patch does to a document at `version`: `{status: "applied", doc, version}`
 * with the new ones; `{status: "stale"}` for a patch the document is past (or no
 * document); `{status: "gap"}` when patches were missed or it does not apply (ask for a
 * `resync`). `doc` itself is never changed. */
export function applyFrame(doc, version, frame) {
  if (!doc) return { status: "stale" };
  if (frame.from !== version) return { status: frame.to > version ? "gap" : "stale" };
  try {
    return { status: "applied", doc: applyPatch(doc, frame.ops), version: frame.to };
  } catch {
    return { status: "gap" };
  }
}

/** One room's document as this viewer sees it: a snapshot replaces it, a patch whose
 * `from` is its version is applied (see applyFrame). */
export class RoomDocument {
  constructor() {
    this.clear();
  }

  clear() {
    this.room = null;
    this.doc = null;
    this.version = 0;
  }

  snapshot(frame) {
    this.room = frame.room;
    this.doc = frame.doc;
    this.version = frame.version;
  }

  /** The patch's status ("applied", "stale" or "gap"), the document moved on if applied. */
  patch(frame) {
    const next = applyFrame(this.doc, this.version, frame);
    if (next.status === "applied") ({ doc: this.doc, version: this.version } = next);
    return next.status;
  }
}

/** A connection to a kings-corner server. `frames` keeps every frame received; `doc` is
 * the document of the room this connection is in (null outside one). */
export class Client {
  constructor(url, name = "Player") {
    this.url = url;
    this.name = name;
    this.player = null; // the player token of the welcome: set it to come back as the same player
    this.frames = [];
    this.room = new RoomDocument();
    this.waiters = new Set();
    this.seq = 0;
    this.ws = null;
    /** The protocol version the welcome settled (`welcome.version`; 0 before). */
    this.protocol = 0;
    /** The close code once the connection is closed (null while open). */
    this.closeCode = null;
  }

  get doc() {
    return this.room.doc;
  }

  get game() {
    return this.doc ? this.doc.game : null;
  }

  get myTurn() {
    const game = this.game;
    return Boolean(game && game.phase === "playing" && game.legal && game.legal.length);
  }

  /** Open the connection and say hello; resolves with the `welcome` (its `version`, the
   * protocol version this connection is served in, is kept as `protocol`). */
  async connect() {
    if (typeof WebSocket !== "function") {
      throw new Error("no WebSocket here: use Node.js 22 or later, or Node.js 20 with --experimental-websocket");
    }
    this.ws = new WebSocket(this.url);
    this.closeCode = null;
    this.ws.addEventListener("message", (event) => this.take(JSON.parse(event.data)));
    this.ws.addEventListener("close", (event) => {
      this.closeCode = event.code || 1006;
      for (const waiter of [...this.waiters]) waiter(null);
    });
    await new Promise((resolve, reject) => {
      this.ws.addEventListener("open", resolve, { once: true });
      this.ws.addEventListener("error", reject, { once: true });
    });
    let version = SPOKEN_VERSIONS[0];
    for (;;) {
      const hello = { type: "hello", version, name: this.name };
      if (this.player) hello.player = this.player;
      this.send(hello);
      const frame = await this.next((f) => f.type === "welcome" || f.type === "error");
      if (frame.type === "welcome") {
        this.player = frame.player;
        this.protocol = frame.version;
        return frame;
      }
      const older = frame.code === "unsupported_version" && fallbackVersion(frame.params.supported, version);
      if (!older) throw new Error(`${frame.code}: ${frame.message}`);
      version = older;
    }
  }

  send(message) {
    this.ws.send(JSON.stringify(message));
  }

  take(frame) {
    this.frames.push(frame);
    if (frame.type === "snapshot") this.room.snapshot(frame);
    else if (frame.type === "patch" && this.room.patch(frame) === "gap") this.send({ type: "resync" });
    else if (frame.type === "left" || frame.type === "kicked") this.room.clear();
    for (const waiter of [...this.waiters]) waiter(frame);
  }

  /** The next frame for which `match(frame)` holds. `timeout` is in milliseconds: it
   * rejects after that, and at once when the connection closes. */
  next(match, timeout = 10000) {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => done(null, "no such frame in time"), timeout);
      const done = (frame, why) => {
        clearTimeout(timer);
        this.waiters.delete(waiter);
        if (frame) resolve(frame);
        else reject(new Error(why));
      };
      // null: the connection closed (see connect).
      const waiter = (frame) =>
        frame === null ? done(null, `connection closed (${this.closeCode})`) : match(frame) && done(frame);
      if (this.closeCode !== null && this.ws) return done(null, `connection closed (${this.closeCode})`);
      this.waiters.add(waiter);
    });
  }

  /** Resolves once `check(this)` holds, checked after every frame (rejects after `timeout`). */
  async until(check, timeout = 10000) {
    if (!check(this)) await this.next(() => check(this), timeout);
  }

  /** Create a room and sit in it; resolves with its code. */
  async create(options = {}) {
    this.send({ type: "create", options });
    return (await this.next((f) => f.type === "snapshot" || f.type === "error")).room;
  }

  async join(room, seat = null) {
    const message = { type: "join", room, spectate: false };
    if (seat !== null) message.seat = seat;
    this.send(message);
    return this.next((f) => f.type === "snapshot" || f.type === "error");
  }

  /** Host only: start the match (`fill`: a bot level for the empty seats). */
  async start(fill = null) {
    this.send({ type: "start", fill });
    await this.until((c) => c.game !== null);
  }

  /** Send an action (text such as `7H>N`, or the wire object); resolves with its answer:
   * the `patch` that carries it or the `error` that refuses it, whatever the code (never
   * rejects for a refusal). The answer is the frame with this action's `seq`, or an `error`
   * without `seq` of a code in UNREAD_REFUSALS (`rate_limited`, `bad_message`: the frame
   * was refused unread). Rejects after `timeout` milliseconds, or when the connection
   * closes first. */
  act(action, timeout = 10000) {
    this.seq += 1;
    const seq = this.seq;
    const wire = typeof action === "string" ? actionFromText(action) : action;
    this.send({ type: "act", seq, action: wire });
    const unread = (f) => f.type === "error" && (f.seq === null || f.seq === undefined) && UNREAD_REFUSALS.has(f.code);
    return this.next((f) => (f.seq === seq && (f.type === "patch" || f.type === "error")) || unread(f), timeout);
  }

  close() {
    this.ws.close();
  }
}
