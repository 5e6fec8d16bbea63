// The side panel of a room: the score, the table log (the server's events worded in the
// chosen language) and the chat, under three tabs. Names and lines go in as text.

import { localPile } from "./board.js";
import { cardText } from "./cards.js";
import { send } from "./connection.js";
import { game, seatName } from "./doc.js";
import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { S } from "./state.js";

const MAX_LOG = 300;

// --- the table log -----------------------------------------------------------------------

/** A log event ({ev, seat, ...}: docs/protocol.md) in the current language. ``names`` holds
 * the seats' names when it arrived, so a later seat change does not rename the past. */
export function logText(line) {
  if (line.key) return t(line.key, line.vars);
  const names = line.names || [];
  const who = (i) =>
    i === null || i === undefined ? "?" : (names[i] ?? t("lobby.seat_n", { n: i + 1 }));
  const name = line.name ?? who(line.seat);
  switch (line.ev) {
    case "played":
      return t("log.played", { name, card: cardText(line.card), pile: localPile(line.pile) });
    case "moved": {
      const words = { name, from: localPile(line.from), to: localPile(line.to) };
      // opening_refill: the stock's top card now lies where the moved pile was.
      if (line.refill) return t("log.moved_refill", { ...words, card: cardText(line.refill) });
      return t("log.moved", words);
    }
    case "collected": // scoring "corners": a corner completed king to ace, collected
      return t("log.collected", { name, corner: localPile(line.corner), n: line.total });
    case "drew":
      return t("log.drew", { name });
    case "ended":
      return t("log.ended", { name });
    case "took":
      return line.count > 1 ? t("log.took_many", { name, n: line.count }) : t("log.took", { name });
    case "sat":
      return t("log.sat", { name });
    case "moved_seat":
      return t("log.moved_seat", { name, n: line.seat + 1 });
    case "left":
      return t("log.left", { name });
    case "bot_took":
      return t("log.bot_took", { name });
    case "kicked":
      return t("log.kicked", { name });
    case "host":
      return t("log.host", { name });
    case "locked":
      return t(line.locked ? "log.locked" : "log.unlocked");
    case "configured":
      return t("log.configured");
    case "away":
      return t(line.away ? "log.away" : "log.back", { name });
    case "timed_out":
      return t("log.timed_out", { name });
    case "rematch_vote":
      return t("log.rematch_vote", { name });
    case "started":
      return t(line.rematch ? "log.rematch" : "log.started", { name: who(line.dealer) });
    case "dealt":
      return t("log.dealt", { n: line.hand, name: who(line.dealer) });
    case "hand_over": {
      const first =
        line.out !== null && line.out !== undefined
          ? t("log.out", { name: who(line.out) })
          : t("log.blocked");
      const list = (line.penalties || []).map((p, i) => `${who(i)} ${p}`).join(", ");
      return `${first} ${t("log.penalties", { list })}`;
    }
    case "match_over": {
      const winners = line.winners || [];
      return t("log.match_over", {
        names: winners.map(who).join(t("result.and")),
        verb: t(winners.length > 1 ? "log.won_many" : "log.won_one"),
      });
    }
    default:
      return t("log.unknown", { ev: String(line.ev) });
  }
}

/** Keep a log line; it goes into the page with the next render, with the rest of its
 * change (so the log never tells of a move the table does not show yet). */
export function addLog(line) {
  S.log.push(line);
  if (S.log.length > MAX_LOG) S.log.shift();
  S.logPending.push(line);
}

export function flushLog() {
  if (!S.logPending.length) return;
  const list = $("log");
  list.append(...S.logPending.map(logItem));
  S.logPending = [];
  while (list.children.length > MAX_LOG) list.firstChild.remove();
  list.scrollTop = list.scrollHeight;
}

export function note(key, vars) {
  addLog({ kind: "note", seat: null, key, vars });
}

function logItem(line) {
  return el("li", { class: `log-${line.ev || "note"}`, text: logText(line) });
}

export function renderLog() {
  S.logPending = [];
  const list = $("log");
  list.replaceChildren(...S.log.map(logItem));
  list.scrollTop = list.scrollHeight;
}

// --- the chat ----------------------------------------------------------------------------

/** Whether a line with this id is shown already (it came live and in a history). */
function shown(id) {
  return Boolean(id) && S.chat.some((line) => line.id === id);
}

export function onChat(frame) {
  if (frame.room !== S.room || shown(frame.id)) return;
  S.chat.push({ id: frame.id, name: frame.name, seat: frame.seat, text: frame.text });
  if (S.chat.length > MAX_LOG) S.chat.shift();
  if (S.tab !== "chat") S.unread += 1;
  renderChat();
  renderTabs();
}

/** The chat lines the room kept, sent after "joined": a page that just came in shows them; a
 * page that was here adds only those it missed while it was away (the history repeats the
 * lines it heard). Earlier lines do not count as unread. */
export function onChatHistory(frame) {
  if (frame.room !== S.room) return;
  if (frame.lines.every((line) => line.id)) {
    // Named lines: those not shown yet, whichever way they came first.
    for (const line of frame.lines) {
      if (shown(line.id)) continue;
      S.chat.push({ id: line.id, name: line.name, seat: line.seat, text: line.text });
    }
    while (S.chat.length > MAX_LOG) S.chat.shift();
    renderChat();
    return;
  }
  const said = (line) => JSON.stringify([line.seat, line.name, line.text]);
  const heard = S.chat.slice(-frame.lines.length).map(said);
  const told = frame.lines.map(said);
  let overlap = Math.min(heard.length, told.length);
  while (overlap > 0 && heard.slice(-overlap).join("\n") !== told.slice(0, overlap).join("\n")) {
    overlap -= 1;
  }
  for (const line of frame.lines.slice(overlap)) {
    S.chat.push({ name: line.name, seat: line.seat, text: line.text });
  }
  while (S.chat.length > MAX_LOG) S.chat.shift();
  renderChat();
}

export function renderChat() {
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

// --- the score and the tabs ----------------------------------------------------------------

export function renderScore() {
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

export function renderTabs() {
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

// --- wiring ------------------------------------------------------------------------------

export function wirePanel() {
  $("panel-jump").addEventListener("click", () => {
    $("panel").scrollIntoView({ behavior: "smooth", block: "start" });
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
}
