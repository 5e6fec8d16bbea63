// Which screen shows (the lobby, the waiting room, the table, or a view over them), and
// render(), which draws it from the state: app.js makes it the state's renderer.

import { $ } from "./dom.js";
import { game } from "./doc.js";
import { t, translateStatic } from "./i18n.js";
import { renderLobby } from "./lobby.js";
import { flushLog, renderChat, renderLog, renderScore, renderTabs } from "./panel.js";
import { renderReplay } from "./replay.js";
import { renderOverlay } from "./result.js";
import { S } from "./state.js";
import { fitTable } from "./fit.js";
import { renderAway, renderTable } from "./table.js";
import { placeToasts, renderBanners } from "./toasts.js";
import { VIEWS, renderBoards, renderMatches } from "./views.js";
import { renderWaiting } from "./waiting.js";

export function render() {
  flushLog();
  if (game()) S.dealing = false;
  // "Play vs 3 bots" goes from the lobby straight to the dealt table: no waiting room.
  const inRoom = Boolean(S.room && S.doc && S.role) && !S.dealing;
  const view = S.view;
  const roomShown = inRoom && !view;
  for (const name of VIEWS) $(name).hidden = view !== name;
  $("lobby").hidden = inRoom || Boolean(view);
  $("skip").hidden = !roomShown;
  $("room").hidden = !roomShown;
  $("room-bar").hidden = !roomShown;
  $("leave").hidden = !roomShown;
  $("panel-jump").hidden = !roomShown;
  document.body.classList.toggle("in-room", roomShown);
  document.body.classList.toggle("at-table", roomShown && Boolean(game()) && !S.elsewhere);
  const screen = view || (!inRoom ? "lobby" : game() ? "table" : "waiting");
  if (screen !== S.screen) {
    S.screen = screen;
    window.scrollTo(0, 0);
  }
  renderBanners();
  if (!roomShown) fitTable(); // no table: the card sizes go back to the styles'
  if (view === "boards") renderBoards();
  else if (view === "matches") renderMatches();
  else if (view === "replay") renderReplay();
  if (view) return;
  if (!inRoom) {
    renderLobby();
    return;
  }
  const g = game();
  // Another tab of this browser plays this seat: this one says so, and shows no live table.
  const elsewhere = S.elsewhere;
  $("elsewhere").hidden = !elsewhere;
  $("panel").hidden = elsewhere;
  $("waiting").hidden = Boolean(g) || elsewhere;
  $("table").hidden = !g || elsewhere;
  $("bar-code").textContent = S.room;
  // scoring "corners": one hand, no target; the bar names what counts instead.
  const corners = g && Array.isArray(g.collected);
  const bar = corners ? t("bar.corners", { n: g.hand_no }) : "";
  $("bar-hand").textContent = g && !corners ? t("bar.hand", { n: g.hand_no, target: g.target }) : bar;
  const daily = S.doc.room.daily;
  $("bar-daily").hidden = !daily;
  $("bar-daily").textContent = daily ? t(daily.ranked ? "daily.ranked" : "daily.practice") : "";
  $("bar-daily").classList.toggle("ranked", Boolean(daily && daily.ranked));
  // Phones have no room for it in the top bar: the same words head the table there.
  $("daily-line").hidden = !daily;
  $("daily-line").textContent = $("bar-daily").textContent;
  $("daily-line").classList.toggle("ranked", Boolean(daily && daily.ranked));
  renderAway(g); // before the table: the away bar is one of its rows
  if (elsewhere) fitTable();
  else if (g) renderTable(g);
  else renderWaiting();
  renderScore();
  renderTabs();
  renderOverlay();
  placeToasts();
}

/** Everything again, in the language just chosen. */
export function renderAll() {
  translateStatic();
  document.title = t("app.title");
  $("lang").textContent = t("lang.button");
  $("lang").setAttribute("aria-label", t("lang.choose", { code: t("lang.button") }));
  renderLog();
  renderChat();
  render();
}
