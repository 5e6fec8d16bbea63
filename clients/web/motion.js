// Motion at the table: every move is seen. A played card flies from the player's plate (or
// your hand) to its pile, a moved pile slides whole onto its destination, a drawn card goes
// from the stock to the drawer (face down for the others). FLIP with the Web Animations
// API: where things are is measured when a patch arrives (the page still shows the state
// before it), where they land once the table is drawn again; a ghost flies between the two.
// With "reduce motion" nothing travels. At a table of fast bots (the room's pace) every
// flight is shorter, so each move is still seen before the next one comes.
//
// It also keeps the last turn: who moved and which piles it touched, until the next player
// acts (the table outlines those piles and names the mover on their plate).

import { cardBack, cardFace } from "./cards.js";
import { el } from "./dom.js";

export const FLIGHT_MS = 420;
const STAGGER_MS = 140;
const MAX_FLIGHTS = 6;
/** The share of a flight's time at each pace: fast bots wait a quarter of the normal delay
 * (about 0.18 s between their moves), and a fast flight (about 0.17 s) fits in it. */
export const PACE_MOTION = { normal: 1, fast: 0.4 };
let speed = 1;

let queued = []; // flights measured before the render, flown after it
let last = null; // {room, seat, piles: Set, over}

export function reducedMotion() {
  return window.matchMedia("(prefers-reduced-motion: reduce)").matches;
}

function rectOf(node) {
  if (!node) return null;
  const rect = node.getBoundingClientRect();
  return rect.width || rect.height ? rect : null;
}

/** A card-sized box centred on ``rect`` (a plate is wider than a card). */
function cardBox(rect, width) {
  const height = width * 1.4;
  return {
    left: rect.left + rect.width / 2 - width / 2,
    top: rect.top + rect.height / 2 - height / 2,
    width,
    height,
  };
}

function plateOf(seat) {
  return document.querySelector(`#felt .plate[data-seat="${seat}"]`);
}

function handCodes() {
  return [...document.querySelectorAll("#hand [data-card]")].map((node) => node.dataset.card);
}

// --- the last turn --------------------------------------------------------------------------

function markLast(room, event) {
  if (event.ev === "dealt" || event.ev === "started") {
    last = null;
    return;
  }
  if (!["played", "moved", "drew", "took", "ended"].includes(event.ev)) return;
  if (!last || last.room !== room || last.seat !== event.seat || last.over) {
    last = { room, seat: event.seat, piles: new Set(), over: false };
  }
  if (event.ev === "played") last.piles.add(event.pile);
  if (event.ev === "moved") {
    last.piles.add(event.from);
    last.piles.add(event.to);
  }
  if (event.ev === "drew" || event.ev === "ended") last.over = true;
}

/** The last turn in ``room``: {seat, piles}, or null (none yet in this hand). */
export function lastTurn(room) {
  return last && last.room === room ? last : null;
}

// --- flights ---------------------------------------------------------------------------------

function takeOff(event, mySeat) {
  const board = document.getElementById("board");
  if (!rectOf(board)) return null; // the table is not shown
  if (event.ev === "played") {
    const fromHand =
      event.seat === mySeat
        ? document.querySelector(`#hand [data-card="${CSS.escape(event.card)}"] .card`)
        : null;
    const plate = rectOf(plateOf(event.seat));
    const start = rectOf(fromHand) || (plate && { ...cardBox(plate, 30), small: true });
    if (!start) return null;
    return { kind: "played", card: event.card, pile: event.pile, start };
  }
  if (event.ev === "moved") {
    const stack = document.querySelector(`#board [data-pile="${event.from}"] .stack`);
    const start = rectOf(stack);
    if (!start) return null;
    return { kind: "moved", to: event.to, start, visual: stack.cloneNode(true) };
  }
  // "took" (draw until playable) flies like "drew": from the stock into the hand.
  if (event.ev === "drew" || event.ev === "took") {
    const start = rectOf(document.querySelector("#board .stock .card"));
    if (!start) return null;
    return {
      kind: "drew",
      seat: event.seat,
      mine: event.seat === mySeat,
      before: handCodes(),
      start,
    };
  }
  return null;
}

/** A patch's events, before it is drawn: note the last turn, measure where moves start. */
export function noteEvents(room, events, mySeat) {
  for (const event of events) markLast(room, event);
  if (reducedMotion() || document.hidden) return;
  for (const event of events) {
    const flight = takeOff(event, mySeat);
    if (flight) queued.push(flight);
  }
  if (queued.length > MAX_FLIGHTS) queued = trimmed(queued);
}

/** At most MAX_FLIGHTS of ``flights`` (a burst of the bots' moves drawn at once): the oldest
 * give way first, except the viewer's own draws, the cards arriving in their hand. */
function trimmed(flights) {
  let drop = flights.length - MAX_FLIGHTS;
  return flights.filter((flight) => flight.mine || drop-- <= 0);
}

function ghostAt(rect, visual) {
  const ghost = el("div", { class: "flight", "aria-hidden": "true" }, visual);
  Object.assign(ghost.style, {
    left: `${rect.left}px`,
    top: `${rect.top}px`,
    width: `${rect.width}px`,
    height: `${rect.height}px`,
  });
  ghost.style.setProperty("--w", `${rect.width}px`);
  return ghost;
}

/** Whether the result of a hand shows over the table: nothing flies over it. */
function resultShown() {
  const overlay = document.getElementById("overlay");
  return Boolean(overlay && !overlay.hidden);
}

/** Land every card still in flight at once (the result of the hand is coming up over the
 * table: a card drawn over that dialog for a moment looks like a glitch). */
export function groundFlights() {
  for (const ghost of document.querySelectorAll(".flight")) {
    for (const animation of ghost.getAnimations()) animation.cancel();
    ghost.remove();
  }
}

/** Fly ``ghost`` (placed at ``end``) from ``start``; ``hide`` stays invisible meanwhile. */
function fly(ghost, start, end, delay, hide) {
  if (resultShown()) return;
  document.body.append(ghost);
  const dx = start.left - end.left;
  const dy = start.top - end.top;
  const scale = start.width / end.width;
  const animation = ghost.animate(
    [
      { transform: `translate(${dx}px, ${dy}px) scale(${scale})`, opacity: start.small ? 0.6 : 1 },
      { transform: "none", opacity: 1 },
    ],
    {
      duration: FLIGHT_MS * speed,
      delay,
      easing: "cubic-bezier(0.3, 0.7, 0.3, 1)",
      fill: "backwards",
    },
  );
  const hiding = hide
    ? hide.animate([{ opacity: 0 }, { opacity: 0 }], { duration: FLIGHT_MS * speed + delay })
    : null;
  const done = () => {
    ghost.remove();
    if (hiding) hiding.cancel();
  };
  animation.addEventListener("finish", done);
  animation.addEventListener("cancel", done);
}

function landing(flight) {
  if (flight.kind === "played") {
    const top = document.querySelector(`#board [data-pile="${flight.pile}"] .stack .top`);
    // The flight is the card's arrival: no bounce ("land") on top of it.
    if (top) for (const animation of top.getAnimations()) animation.cancel();
    const end = rectOf(top);
    return end && { end, visual: cardFace(flight.card), hide: top };
  }
  if (flight.kind === "moved") {
    const stack = document.querySelector(`#board [data-pile="${flight.to}"] .stack`);
    const end = rectOf(stack);
    return end && { end, visual: flight.visual, hide: stack };
  }
  if (flight.kind === "drew" && flight.mine) {
    const fresh = handCodes().find((code) => !flight.before.includes(code));
    if (!fresh) return null;
    const card = document.querySelector(`#hand [data-card="${CSS.escape(fresh)}"] .card`);
    const end = rectOf(card);
    return end && { end, visual: cardFace(fresh), hide: card };
  }
  if (flight.kind === "drew") {
    const plate = rectOf(plateOf(flight.seat));
    if (!plate) return null;
    return { end: cardBox(plate, 30), visual: cardBack() };
  }
  return null;
}

/** After the table is drawn: fly what the last patches moved, from where it was, at the
 * room's ``pace`` ("normal" or "fast"). */
export function land(pace = "normal") {
  const flights = queued;
  queued = [];
  speed = PACE_MOTION[pace] || 1;
  if (!flights.length || reducedMotion()) return;
  flights.forEach((flight, k) => {
    const target = landing(flight);
    if (!target) return;
    const ghost = ghostAt(target.end, target.visual);
    fly(ghost, flight.start, target.end, k * STAGGER_MS * speed, target.hide);
  });
}
