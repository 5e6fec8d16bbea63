// Room options shared by the lobby's "New room" form, the public rooms list and the
// waiting room: the bot levels as choices of a <select>, the option fields of both forms,
// and a room's options in one line. The options themselves are the server's declaration
// (protocol/options_table.py, served as /room-options.js); their words are the catalogues'
// option.<name>[.<choice>] and summary.<name>[.<value>] keys.

import { $, el } from "./dom.js";
import { has, t } from "./i18n.js";
import OPTIONS from "./room-options.js";

const BY_NAME = Object.fromEntries(OPTIONS.map((spec) => [spec.name, spec]));

/** The declared options' names but ``except``, fields first and check boxes last. */
export function optionNames(except = []) {
  const kept = OPTIONS.filter((spec) => !except.includes(spec.name));
  const flags = kept.filter((spec) => spec.kind === "flag");
  return [...kept.filter((spec) => spec.kind !== "flag"), ...flags].map((spec) => spec.name);
}

function numberChoices(spec, current) {
  const values = [...(spec.presets || [])];
  if (current && !values.includes(current)) values.push(current);
  values.sort((a, b) => a - b);
  const choices = values.map((s) => el("option", { value: String(s), text: `${s} s` }));
  if (!spec.nullable) return choices;
  const off = `option.${spec.name}.off`;
  return [el("option", { value: "", "data-i18n": off, text: t(off) }), ...choices];
}

function field(spec, id) {
  const words = `option.${spec.name}`;
  if (spec.kind === "flag") {
    return el(
      "label",
      { class: "check" },
      el("input", { id, type: "checkbox" }),
      el("span", { "data-i18n": words, text: t(words) }),
    );
  }
  let control;
  if (spec.kind === "count" && spec.high - spec.low <= 4) {
    control = el("select", { id });
    for (let n = spec.low; n <= spec.high; n += 1) control.append(el("option", { text: n }));
  } else if (spec.kind === "count") {
    control = el("input", { id, type: "number", min: spec.low, max: spec.high });
  } else if (spec.kind === "choice") {
    control = el(
      "select",
      { id },
      ...spec.choices.map((choice) => {
        const key = `${words}.${choice}`;
        return el("option", { value: choice, "data-i18n": key, text: t(key) });
      }),
    );
  } else {
    control = el("select", { id }, ...numberChoices(spec, null));
  }
  return el("div", { class: "field" }, el("label", { for: id, "data-i18n": words, text: t(words) }), control);
}

/** Put the fields of options ``names`` in ``container``, each with the id ``prefix-name``. */
export function renderFields(container, prefix, names) {
  container.replaceChildren(...names.map((name) => field(BY_NAME[name], `${prefix}-${name}`)));
}

/** Show ``values`` (by option name; a missing one shows its default) in the fields. */
export function writeFields(prefix, names, values) {
  for (const name of names) {
    const spec = BY_NAME[name];
    const value = name in values ? values[name] : spec.default;
    const node = $(`${prefix}-${name}`);
    if (spec.kind === "flag") node.checked = Boolean(value);
    else if (spec.kind === "number") {
      node.replaceChildren(...numberChoices(spec, value));
      node.value = value ? String(value) : "";
    } else node.value = String(value);
  }
}

/** What the fields of ``names`` say, each made a value its option takes. */
export function readFields(prefix, names) {
  const out = {};
  for (const name of names) {
    const spec = BY_NAME[name];
    const node = $(`${prefix}-${name}`);
    if (spec.kind === "flag") out[name] = node.checked;
    else if (spec.kind === "choice") {
      out[name] = spec.choices.includes(node.value) ? node.value : spec.default;
    } else if (spec.kind === "count") {
      const n = Math.round(Number(node.value));
      out[name] = Number.isFinite(n) && node.value !== "" ? Math.min(spec.high, Math.max(spec.low, n)) : spec.default;
    } else out[name] = node.value ? Number(node.value) : null;
  }
  return out;
}

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

/** A room's options in one line (``isPublic`` is the room's own; undefined leaves it out). */
export function optionsSummary(options, isPublic) {
  const values = { ...options };
  if (isPublic !== undefined) values.public = isPublic;
  const parts = [];
  for (const spec of OPTIONS) {
    if (!(spec.name in values)) continue;
    const value = values[spec.name];
    const named = spec.summary_when.includes(value) || (spec.summary_when.includes("*") && value);
    if (!named) continue;
    // Meaningless beside another option's value (the target of a one-hand corners match).
    if ((spec.unused_when || []).some(([name, other]) => values[name] === other)) continue;
    if (spec.kind === "choice") parts.push(t(`summary.${spec.name}.${value}`));
    else if (spec.kind === "flag") parts.push(t(value ? `summary.${spec.name}` : `summary.${spec.name}.off`));
    else parts.push(t(`summary.${spec.name}`, { value }));
  }
  return parts.join(" · ");
}
