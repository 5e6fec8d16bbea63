// What the client's modules share: the one mutable state `S` (the connection, the room and
// its document, the selection, the open view…), the browser's storage, and render().
//
// render() draws the page from `S`; app.js hands it the function that does (screens.js), so
// any module can ask for a redraw without importing the screens that import it.

// --- storage: this tab's seat survives a refresh; the browser remembers the last one ----

export const storage = {
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

/** The bot level "play against the computer" starts with: a regular player is challenged
 * (docs/bots.md: the calibration behind it). */
export const DEFAULT_LEVEL = "hard";

export const SESSION = "kc.session"; // sessionStorage: {room, token, spectate} of this tab
export const LAST = "kc.last"; // localStorage: {room, token, finished} of the last seat here
export const KICKED = "kc.kicked"; // localStorage: the rooms whose host removed this browser
export const NAME = "kc.name";
export const CREATE = "kc.create";
// localStorage: {seats, level, pace} of the last "Play vs 3 bots"
export const BOTS = "kc.bots";
// localStorage: the secret player token (this browser's identity)
export const PLAYER = "kc.player";

// --- state -------------------------------------------------------------------------------

export const S = {
  ws: null,
  welcomed: false,
  everWelcomed: false,
  helloName: null, // the name the server knows this connection by (its hello, welcome, rename)
  nameTyped: false, // the player typed in the name field: a create or join keeps that name
  helloTries: 0,
  helloVersion: 2, // the protocol version of this connection's hello (connection.js)
  retry: 0,
  outbox: [],
  moving: null, // the socket this page is moving to, naming its room (connection.js)
  leaving: null, // the socket being left by that move: what it still brings is not read
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
  seatChoices: [DEFAULT_LEVEL, DEFAULT_LEVEL, DEFAULT_LEVEL],
  fill: DEFAULT_LEVEL,
  lastTops: {},
  lastHand: null,
  fresh: new Set(),
  suppressClick: false,
  screen: null,
  resyncing: false,
  player: null, // secret identity token, sent in every hello
  playerId: null, // its public form, as leaderboards and history show it
  view: null, // null (lobby or room) or one of VIEWS (views.js)
  boardTab: "daily",
  boards: { daily: null, alltime: null, rating: null },
  matches: null,
  findCoach: null, // {room, totals, tries}: looking for the match the coach reviews
  findReplay: null, // {room, totals, tries}: looking for the match that just ended
  replaySeat: {}, // match id -> the seat this player played in it (null: not theirs)
  replayDaily: {}, // match id -> its daily {day, ranked} or null, to spare refused requests
  notice: null, // {key, vars}: a message kept in the lobby until dismissed
  storeDown: false,
  clock: null, // {key, seat, end}: the countdown of a timed turn
  clockEpoch: 0,
  clockExpired: null,
  configOpen: false,
  profile: null, // the server's "profile": {name, tag, rating, matches, listed, min_matches}
  recovering: false, // a "recover" was sent: its welcome makes this browser that player
  dealing: false, // "Play vs 3 bots" was tapped: the room it creates starts at once
  elsewhere: false, // this seat is played in another tab of this browser (sync.js)
  turnWasMine: false, // the last render was on this seat's turn (the turn's focus, once)
};

// --- drawing -----------------------------------------------------------------------------

let renderer = () => {};

/** Set the function that draws the page (app.js does, once, with screens.js's render). */
export function setRenderer(draw) {
  renderer = draw;
}

/** Draw the page from the state now. */
export function render() {
  renderer();
}

// Bots without a delay (or a slow phone catching up) can bring many patches at once: they
// are all applied as they come, and the page is drawn once per frame.
let renderQueued = false;

export function renderSoon() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}
