// The side panel of a room: the score, the table log (the server's English lines rebuilt in
// the chosen language) and the chat, under three tabs. Names and lines go in as text.

import { localPile } from "./board.js";
import { cardText } from "./cards.js";
import { send } from "./connection.js";
import { game, seatName } from "./doc.js";
import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { S } from "./state.js";

const MAX_LOG = 300;

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
export function logText(line) {
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
  return el("li", { class: `log-${line.kind || "note"}`, text: logText(line) });
}

export function renderLog() {
  S.logPending = [];
  const list = $("log");
  list.replaceChildren(...S.log.map(logItem));
  list.scrollTop = list.scrollHeight;
}

// --- the chat ----------------------------------------------------------------------------

export function onChat(frame) {
  if (frame.room !== S.room) return;
  S.chat.push({ name: frame.name, seat: frame.seat, text: frame.text });
  if (S.chat.length > MAX_LOG) S.chat.shift();
  if (S.tab !== "chat") S.unread += 1;
  renderChat();
  renderTabs();
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
