// Ratings in words, the way the server decides them: a rating with its provisional mark, one
// person's change in a rated match (their place among the seats counted for them, or why
// none), why a match is not rated, how many rated matches so far. The sentences are the
// "rating.*" texts of the catalogues, which the terminal clients word the same way
// (clients/words.py).

import { lang, t } from "./i18n.js";

/** Rated matches until a rating settles, when the server has not said (its `min_matches`). */
export const SETTLES_AFTER = 10;

/** A whole number as this language writes it ("1,034", "1034", "1 034"). */
export function number(value) {
  return new Intl.NumberFormat(lang(), { maximumFractionDigits: 0 }).format(value);
}

/** A rating change as people read it: "+34", "−12", "±0". */
export function signed(delta) {
  if (delta > 0) return `+${number(delta)}`;
  if (delta < 0) return `\u2212${number(-delta)}`;
  return "\u00b10";
}

/** A rating, followed by the provisional mark ("1,034?") while it is not settled. */
export function ratingText(value, provisional) {
  const shown = number(value);
  return provisional ? t("rating.mark", { rating: shown }) : shown;
}

/** "provisional — settles after 10 rated matches (3 so far)". */
export function provisionalText(matches, least = SETTLES_AFTER) {
  return t("rating.provisional", { min: number(least), n: number(matches) });
}

/** "1 rated match", "3 rated matches" (each language's plural forms). */
export function matchesText(n) {
  const form = new Intl.PluralRules(lang()).select(n);
  const key = ["one", "few"].includes(form) ? `rating.matches_${form}` : "rating.matches_other";
  return t(key, { n: number(n) });
}

/** "2nd", "3.º", "4.": a place in this language. */
export function nth(place) {
  const key = `rating.nth_${place}`;
  const text = t(key, { n: place });
  return text === key ? t("rating.nth", { n: place }) : text;
}

/** Why a change is what it is, in short: "2nd of 4", "Left the match: last of 4",
 * "No opponent counted"; "" for a change without a reason (an older match). */
export function whyText(change) {
  if (!change) return "";
  if (change.reason === "no_opponents") return t("rating.no_opponents");
  if (change.reason === "abandoned") return t("rating.abandoned", { of: number(change.of) });
  if (change.reason === "placed") {
    return t("rating.place", { nth: nth(change.place), of: number(change.of) });
  }
  return "";
}

/** One person's change, whole: "2nd of 4: +12 (1,034 → 1,046)", "No opponent counted: ±0". */
export function changeText(change) {
  if (!change) return "";
  const values = {
    why: whyText(change),
    delta: signed(change.after - change.before),
    before: number(change.before),
    after: ratingText(change.after, Boolean(change.provisional)),
  };
  if (change.reason === "no_opponents") return t("rating.change_none", values);
  return t(values.why ? "rating.change" : "rating.moved", values);
}

/** A result table's cell: "1,046? (+12)". */
export function cellText(change) {
  if (!change) return "";
  return t("rating.cell", {
    after: ratingText(change.after, Boolean(change.provisional)),
    delta: signed(change.after - change.before),
  });
}

/** Why a match changes no rating, from the server's reason ("casual", "chosen_deal",
 * "daily", "aborted"); an unknown one says just that. */
export function unratedText(reason) {
  const key = `rating.unrated_${reason}`;
  const text = t(key);
  return text === key ? t("rating.unrated") : text;
}

/** A person as the boards show them, in one string: "Ana#4F7K", or "Ana" with no tag yet. */
export function whoText(name, tag) {
  return typeof tag === "string" && tag ? `${name}#${tag}` : String(name);
}

/** The names of a room's seats as the page shows them (null for a free seat): a person's
 * name, with their tag ("Player#4F7K") when another seat goes by the same name (ignoring
 * case), so two people of one name can tell each other apart on the plates, in the log,
 * the waiting room and the results; "Player (seat 2)" while the server has no tag for them. */
export function shownNames(seats) {
  const list = Array.isArray(seats) ? seats : [];
  const key = (seat) => String(seat.name).normalize("NFKC").toLowerCase();
  const count = new Map();
  for (const seat of list) if (seat && seat.name) count.set(key(seat), (count.get(key(seat)) || 0) + 1);
  return list.map((seat, i) => {
    if (!seat || !seat.name) return null;
    if (count.get(key(seat)) < 2) return String(seat.name);
    if (typeof seat.tag === "string" && seat.tag) return whoText(seat.name, seat.tag);
    return t("seat.same_name", { name: seat.name, n: i + 1 });
  });
}

/** You in one line, from a `profile` reply: "Ana#4F7K · rating 1,034? · provisional — …" or
 * "Ana#4F7K · rating 1,234 · 12 rated matches". */
export function profileText(me) {
  const provisional = "provisional" in me ? Boolean(me.provisional) : !me.listed;
  const parts = [
    t("rating.profile", {
      who: whoText(me.name, me.tag),
      rating: ratingText(me.rating, provisional),
    }),
    provisional ? provisionalText(me.matches, me.min_matches) : matchesText(me.matches),
  ];
  return parts.join(" · ");
}
