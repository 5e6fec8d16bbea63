// The waiting room: the room's code and link, the seats (sit, add or remove a bot, kick),
// "ready", and the host's controls (start, lock, the room's options).

import { ensureName, send } from "./connection.js";
import { botLabel } from "./doc.js";
import { $, el } from "./dom.js";
import { t } from "./i18n.js";
import { shownNames } from "./rating.js";
import {
  levelOptions,
  optionNames,
  optionsSummary,
  readFields,
  renderFields,
  writeFields,
} from "./options.js";
import { DEFAULT_LEVEL, S, render } from "./state.js";
import { toast } from "./toasts.js";

function shareLink() {
  const url = new URL(location.href);
  url.search = "";
  url.hash = "";
  url.searchParams.set("room", S.room);
  return url.toString();
}

function seatButton(text, onclick, label) {
  return el("button", { type: "button", class: "small", text, "aria-label": label, onclick });
}

export function renderWaiting() {
  const room = S.doc.room;
  const isHost = S.seat !== null && S.seat === room.host;
  const botLevel = S.fill === "none" ? DEFAULT_LEVEL : S.fill;
  $("share-code").textContent = room.code;
  $("share-link").value = shareLink();
  const list = $("wait-seats");
  const names = shownNames(room.seats);
  list.replaceChildren(
    ...room.seats.map((seat, i) => {
      const tags = [];
      if (seat && room.host === i) tags.push(t("wait.host"));
      if (i === S.seat) tags.push(t("seat.you"));
      if (seat && seat.kind === "bot") tags.push(botLabel(seat));
      if (seat && seat.kind === "human") {
        if (!seat.connected) tags.push(t("seat.offline"));
        if (room.host !== i) tags.push(t(seat.ready ? "wait.ready" : "wait.not_ready"));
      }
      let control = null;
      if (!seat && isHost) {
        control = seatButton(t("wait.add_bot"), () =>
          send({ type: "add_bot", seat: i, level: botLevel }),
        );
      } else if (!seat && S.seat !== i) {
        control = seatButton(t("wait.sit"), () => {
          ensureName();
          send({ type: "sit", seat: i });
        });
      } else if (seat && isHost && seat.kind === "bot") {
        control = seatButton(t("wait.remove_bot"), () => send({ type: "remove_bot", seat: i }));
      } else if (seat && isHost && seat.kind === "human" && i !== S.seat) {
        control = seatButton(
          t("wait.kick"),
          () => send({ type: "kick", seat: i }),
          t("wait.kick_label", { name: names[i] }),
        );
      }
      const ready = seat && (seat.kind === "bot" || seat.ready || room.host === i);
      return el(
        "li",
        {
          class: [
            "wait-seat",
            seat ? "" : "empty",
            i === S.seat ? "mine" : "",
            ready ? "ready" : "",
          ]
            .filter(Boolean)
            .join(" "),
          dataset: { seat: String(i) },
        },
        el("span", { class: "seat-no", text: String(i + 1) }),
        el("span", { class: "seat-name", text: seat ? names[i] : t("wait.empty") }),
        tags.length ? el("span", { class: "tags", text: tags.join(" · ") }) : null,
        control,
      );
    }),
  );
  $("wait-options").textContent = optionsSummary(room.options, room.public);
  const unready = room.seats
    .map((seat, i) => ({ seat, i }))
    .filter(({ seat, i }) => seat && seat.kind === "human" && i !== room.host && !seat.ready)
    .map(({ i }) => names[i]);
  $("wait-ready").textContent = unready.length
    ? t("wait.waiting_for", { names: unready.join(", ") })
    : t("wait.all_ready");

  const mine = S.seat !== null ? room.seats[S.seat] : null;
  $("ready-box").hidden = !mine || isHost;
  if (mine) {
    $("ready-btn").setAttribute("aria-pressed", String(Boolean(mine.ready)));
    $("ready-btn").classList.toggle("on", Boolean(mine.ready));
  }
  $("host-box").hidden = !isHost;
  // The server starts only once every seated person but the host is ready (decide_start).
  const waitingFor =
    unready.length > 1
      ? unready.slice(0, -1).join(", ") + t("result.and") + unready.at(-1)
      : (unready[0] ?? "");
  $("start-go").disabled = unready.length > 0;
  $("start-why").textContent = unready.length
    ? t(unready.length > 1 ? "wait.start_wait_many" : "wait.start_wait", { names: waitingFor })
    : "";
  $("start-why").hidden = !unready.length;
  // The host reads whom the start waits for under the button: not twice.
  $("wait-ready").hidden = isHost && unready.length > 0;
  if (!isHost) S.configOpen = false;
  $("config-open").setAttribute("aria-expanded", String(S.configOpen));
  $("config-form").hidden = !S.configOpen;
  levelOptions($("start-fill"), S.fill, ["none", t("fill.none")], "fill.bot");
  // "Empty seats" only while a seat is empty: with every seat taken there is nothing to fill.
  $("fill-field").hidden = !room.seats.some((seat) => seat === null);
  $("lock-box").checked = Boolean(room.locked);
  let noteText = "";
  if (room.locked) noteText = t("wait.locked");
  if (S.role === "spectator") noteText = `${noteText} ${t("wait.spectating")}`.trim();
  else if (!isHost) noteText = `${noteText} ${t("wait.host_only")}`.trim();
  $("wait-note").textContent = noteText;
}

// The host's options form: every declared option but casual (a casual room stays casual, a
// rated one rated: nobody learns after joining that the match will not count).
const FIELDS = optionNames(["casual"]);

/** Fill the host's options form from the room as it is now. */
function fillConfig() {
  const room = S.doc.room;
  writeFields("cfg", FIELDS, { ...room.options, public: room.public });
}

function configOptions() {
  return { ...readFields("cfg", FIELDS), casual: Boolean(S.doc && S.doc.room.options.casual) };
}

// --- wiring ------------------------------------------------------------------------------

export function wireWaiting() {
  renderFields($("cfg-fields"), "cfg", FIELDS);
  $("copy-link").addEventListener("click", async () => {
    const link = shareLink();
    try {
      await navigator.clipboard.writeText(link);
      toast(t("wait.copied"), "info");
    } catch {
      $("share-link").select();
      toast(t("wait.copy_failed"), "info");
    }
  });
  $("start-fill").addEventListener("change", () => {
    S.fill = $("start-fill").value;
  });
  $("start-go").addEventListener("click", () => {
    const free = S.doc.room.seats.some((seat) => seat === null);
    send({ type: "start", fill: free && S.fill !== "none" ? S.fill : null });
  });
  $("ready-btn").addEventListener("click", () => {
    const mine = S.doc && S.seat !== null ? S.doc.room.seats[S.seat] : null;
    send({ type: "ready", ready: !(mine && mine.ready) });
  });
  $("lock-box").addEventListener("change", () => {
    send({ type: "lock", locked: $("lock-box").checked });
  });

  // The host's options form in the waiting room.
  $("config-open").addEventListener("click", () => {
    S.configOpen = !S.configOpen;
    if (S.configOpen) fillConfig();
    render();
    if (S.configOpen) $("cfg-seats").focus();
  });
  $("config-cancel").addEventListener("click", () => {
    S.configOpen = false;
    render();
    $("config-open").focus();
  });
  $("config-form").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "configure", options: configOptions() });
    S.configOpen = false;
    render();
    $("config-open").focus();
  });
}
