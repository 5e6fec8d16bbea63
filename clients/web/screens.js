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
import { renderAway, renderTable } from "./table.js";
import { renderBanners } from "./toasts.js";
import { VIEWS, renderBoards, renderMatches } from "./views.js";
import { renderWaiting } from "./waiting.js";

export function render() {
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

/** Everything again, in the language just chosen. */
export function renderAll() {
  translateStatic();
  document.title = t("app.title");
  $("lang").textContent = t("lang.button");
  $("lang").setAttribute("aria-label", t("lang.switch"));
  renderLog();
  renderChat();
  render();
}
