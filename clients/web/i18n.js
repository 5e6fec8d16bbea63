// The interface language: chosen from a saved choice, else from navigator.language;
// setLang() switches it and listeners re-render. The texts themselves are the catalogues
// shared with the terminal clients (clients/i18n/<code>.json). The server serves each
// language as its own module, /texts/<code>.js, and the languages' menu as /languages.js:
// a page loads only its player's language (another one when the player switches to it).

import NAMES from "./languages.js";

const KEY = "kc.lang";
const listeners = new Set();
const loaded = {}; // code -> its texts, once loaded

/** The texts of ``code``, loaded once. */
async function load(code) {
  if (!loaded[code]) loaded[code] = (await import(`./texts/${code}.js`)).default;
  return loaded[code];
}

function initial() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved && NAMES[saved]) return saved;
  } catch {
    // Storage may be unavailable (private mode); fall back to the browser's language.
  }
  const wanted = [...(navigator.languages || []), navigator.language || "en"];
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (NAMES[base]) return base;
  }
  return "en";
}

let current = initial();
let strings = await load(current);

export function lang() {
  return current;
}

export function has(key) {
  return key in strings;
}

export function t(key, vars = {}) {
  // Every language has every key (a test checks): a missing one shows as its key.
  const text = strings[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

/** Switch to ``next``, once its texts are in; resolves when the page speaks it. */
export async function setLang(next) {
  if (!NAMES[next] || next === current) return;
  const texts = await load(next);
  current = next;
  strings = texts;
  try {
    localStorage.setItem(KEY, next);
  } catch {
    // Not remembered: fine.
  }
  for (const listener of listeners) listener(next);
}

export function onLangChange(listener) {
  listeners.add(listener);
}

/** Fill the static texts marked with data-i18n, data-i18n-aria and data-i18n-placeholder. */
export function translateStatic(root = document) {
  document.documentElement.lang = current;
  for (const el of root.querySelectorAll("[data-i18n]")) el.textContent = t(el.dataset.i18n);
  for (const el of root.querySelectorAll("[data-i18n-aria]")) {
    el.setAttribute("aria-label", t(el.dataset.i18nAria));
  }
  for (const el of root.querySelectorAll("[data-i18n-placeholder]")) {
    el.setAttribute("placeholder", t(el.dataset.i18nPlaceholder));
  }
}

export const LANGUAGES = Object.keys(NAMES);

/** A language's name in its own words ("Español"), for the language menu. */
export function languageName(code) {
  return NAMES[code];
}

/** Every text key of a language, as the page has it (loaded when not yet). */
export async function keysOf(code) {
  return Object.keys(NAMES[code] ? await load(code) : {});
}
