// Room options shared by the lobby's "New room" form, the public rooms list and the
// waiting room: the bot levels as choices of a <select>, and a room's options in one line.

import { el } from "./dom.js";
import { has, t } from "./i18n.js";

const LEVELS = ["random", "heuristic", "easy", "medium", "hard", "expert"];
/** A level's name with what kind of player it plays like, where the calibration says. */
export function levelWithAbout(level) {
  const about = `level_about.${level}`;
  return has(about) ? `${t(`level.${level}`)} (${t(about)})` : t(`level.${level}`);
}

export function levelOptions(select, chosen, extra, word = "lobby.bot") {
  const options = extra ? [extra] : [];
  for (const level of LEVELS) options.push([level, t(word, { level: levelWithAbout(level) })]);
  select.replaceChildren(
    ...options.map(([value, label]) =>
      el("option", { value, selected: value === chosen, text: label }),
    ),
  );
  select.value = chosen;
}

export function optionsSummary(options, isPublic) {
  const parts = [
    t("opt.target", { target: options.target }),
    t(options.draw === "start" ? "opt.draw_start" : "opt.draw_end"),
  ];
  if (options.kings_first) parts.push(t("opt.kings_first"));
  if (options.turn_timer) parts.push(t("opt.timer", { s: options.turn_timer }));
  if (options.casual) parts.push(t("opt.casual"));
  if (options.pace === "fast") parts.push(t("opt.fast"));
  if (isPublic !== undefined) parts.push(t(isPublic ? "opt.public" : "opt.private"));
  return parts.join(" · ");
}
