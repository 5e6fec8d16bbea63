// Knowing when it is your turn: in a background tab the title gets a marker and the
// favicon changes when the turn comes to you; both come back when the tab is seen again or
// the turn passes. Optional sounds (your turn, a card played, a hand won) are short Web
// Audio blips, off by default; the choice is remembered (localStorage).
//
// sync.js calls noticeTurn() after a snapshot or a patch, and noticeEvent() for each event
// of the table log.

import { myTurn } from "./doc.js";
import { onLangChange, t } from "./i18n.js";
import { S, storage } from "./state.js";

export const SOUND = "kc.sound"; // localStorage: true when the sounds are on

const ICON = "favicon.svg";
const ICON_TURN = "favicon-turn.svg";

let wasMine = false;
let marked = false;
let audio = null;

// --- the title and the favicon ------------------------------------------------------------

function icon(href) {
  const link = document.querySelector('link[rel="icon"]');
  if (link && link.getAttribute("href") !== href) link.setAttribute("href", href);
}

function mark() {
  marked = true;
  document.title = t("turn.title", { title: t("app.title") });
  icon(ICON_TURN);
}

function unmark() {
  if (!marked) return;
  marked = false;
  document.title = t("app.title");
  icon(ICON);
}

/** After the document changed: did the turn just come to this seat, or leave it? */
export function noticeTurn() {
  const mine = Boolean(S.doc) && S.seat !== null && myTurn();
  if (mine && !wasMine) {
    blip("turn");
    if (document.hidden) mark();
  } else if (!mine) {
    unmark();
  }
  wasMine = mine;
}

/** One event of the table log: a card played, a hand won by this seat. */
export function noticeEvent(event) {
  if (event.ev === "played" && event.seat !== S.seat) blip("card");
  else if (event.ev === "hand_over" && event.out !== null && event.out === S.seat) blip("won");
}

document.addEventListener("visibilitychange", () => {
  if (!document.hidden) unmark();
});

// The page's texts are drawn again on a language change (which sets the plain title): the
// marker follows once that is done.
onLangChange(() => {
  if (marked) queueMicrotask(() => marked && mark());
});

// --- sounds -------------------------------------------------------------------------------

export function soundOn() {
  return storage.get(localStorage, SOUND) === true;
}

export function setSound(on) {
  storage.set(localStorage, SOUND, Boolean(on));
  if (on) wake(); // a user's gesture: the audio may start now
}

/** The audio context, made (or resumed) only in a user's gesture, as browsers require. */
function wake() {
  if (!soundOn()) return;
  const Context = window.AudioContext || window.webkitAudioContext;
  if (!Context) return;
  if (!audio) audio = new Context();
  if (audio.state === "suspended") audio.resume().catch(() => {});
}

for (const type of ["pointerdown", "keydown"]) {
  document.addEventListener(type, wake, { capture: true, passive: true });
}

const TUNES = {
  turn: [
    [660, 0, 0.09],
    [880, 0.1, 0.12],
  ],
  card: [[520, 0, 0.05]],
  won: [
    [523, 0, 0.1],
    [659, 0.1, 0.1],
    [784, 0.2, 0.1],
    [1047, 0.3, 0.2],
  ],
};

/** Play a short tune of oscillator notes ([frequency, start, length] in seconds). */
function blip(name) {
  if (!soundOn() || !audio || audio.state !== "running") return;
  const now = audio.currentTime;
  for (const [freq, start, length] of TUNES[name]) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.type = "triangle";
    osc.frequency.value = freq;
    gain.gain.setValueAtTime(0.0001, now + start);
    gain.gain.exponentialRampToValueAtTime(0.15, now + start + 0.01);
    gain.gain.exponentialRampToValueAtTime(0.0001, now + start + length);
    osc.connect(gain).connect(audio.destination);
    osc.start(now + start);
    osc.stop(now + start + length + 0.02);
  }
  // For the tests: which tune was played last.
  document.documentElement.dataset.lastSound = name;
}
