// The interface language: chosen from a saved choice, else from navigator.language;
// setLang() switches it and listeners re-render. The texts themselves are the catalogues
// shared with the terminal clients (clients/i18n/<code>.json), which the server serves as
// one module, /texts.js: every language present, in the order the language menu lists them.

import STRINGS from "./texts.js";

const KEY = "kc.lang";
const listeners = new Set();

function initial() {
  try {
    const saved = localStorage.getItem(KEY);
    if (saved && STRINGS[saved]) return saved;
  } catch {
    // Storage may be unavailable (private mode); fall back to the browser's language.
  }
  const wanted = [...(navigator.languages || []), navigator.language || "en"];
  for (const tag of wanted) {
    const base = String(tag).toLowerCase().split("-")[0];
    if (STRINGS[base]) return base;
  }
  return "en";
}

let current = initial();

export function lang() {
  return current;
}

export function has(key) {
  return key in STRINGS[current];
}

export function t(key, vars = {}) {
  const text = STRINGS[current][key] ?? STRINGS.en[key] ?? key;
  return text.replace(/\{(\w+)\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole));
}

export function setLang(next) {
  if (!STRINGS[next] || next === current) return;
  current = next;
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

export const LANGUAGES = Object.keys(STRINGS);

/** A language's name in its own words ("Español"), for the language menu. */
export function languageName(code) {
  return STRINGS[code]["lang.name"];
}

/** Every text key of a language, as the page has it. */
export function keysOf(code) {
  return Object.keys(STRINGS[code] || {});
}
