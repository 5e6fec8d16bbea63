"""The table log and the server's refusals in words, for the Python clients.

The server sends what happened as data (a log event: ``{"ev": "played", "seat": 0, ...}``)
and refuses with a stable code and its parameters; these functions word them in the
player's language. Names come from the caller (the seats of the room, or a replay's record),
cards through a ``card`` function (symbols or plain codes). The sentences are the catalogues'
(:mod:`clients.i18n`), the web client's where both say the same.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from clients.i18n import LANGUAGES, section, texts

Names = Callable[[int | None], str]
Card = Callable[[str], str]


_EVENTS = section("log.")
#: Every refusal is worded from the catalogues, never in the server's (English) words of
#: its protocol ("'sit' is not possible while the room is finished"): ``message`` is only
#: for a code this client does not know yet.
_ERRORS = section("err.")
#: Why a hint suggests its move (the ``reason`` of a ``hint`` frame), by language.
REASONS = section("why.")
#: The parameters of a hint's reason that are cards (the others are piles).
_REASON_CARDS = frozenset(("card", "next", "target", "top"))
#: Ratings in words (see :func:`describe_change`), by language: the web client's sentences
#: (the catalogues' ``rating.…`` keys), put together the same way.
RATINGS = section("rating.")
#: Rated matches until a rating settles, when the server has not said (its ``min_matches``).
SETTLES_AFTER = 10


def language(env: Mapping[str, str] | None = None) -> str:
    """The player's language: ``KC_LANG``, else the locale's (``LANG``), else English."""
    env = os.environ if env is None else env
    for name in ("KC_LANG", "LC_ALL", "LANG"):
        value = env.get(name, "")[:2].lower()
        if value in LANGUAGES:
            return value
    return "en"


def _plain(card: str) -> str:
    return card


def level_name(level: str, lang: str = "en") -> str:
    """A bot level in the language (``difícil``), as the server names it when unknown."""
    return texts(lang).get(f"level.{level}", level)


def describe_event(
    event: Mapping[str, Any], names: Names, lang: str = "en", card: Card = _plain
) -> str:
    """One table-log event in words (``names`` gives a seat's name)."""
    words = _EVENTS.get(lang, _EVENTS["en"])
    ev = str(event.get("ev", ""))
    seat = event.get("seat")
    name = str(event["name"]) if "name" in event else names(seat)
    if ev == "sat" and event.get("bot"):
        return words["sat_bot"].format(name=name, level=level_name(str(event["bot"]), lang))
    if ev == "moved_seat":
        return words["moved_seat"].format(name=name, n=int(seat or 0) + 1)
    if ev == "locked":
        return words["locked" if event.get("locked") else "unlocked"]
    if ev == "away":
        return words["away" if event.get("away") else "back"].format(name=name)
    if ev == "started":
        return words["rematch" if event.get("rematch") else "started"].format(
            name=names(event.get("dealer"))
        )
    if ev == "dealt":
        return words["dealt"].format(n=event.get("hand"), name=names(event.get("dealer")))
    if ev == "played":
        return words["played"].format(name=name, card=card(str(event["card"])), pile=event["pile"])
    if ev == "moved":
        moved = {"name": name, "from": event["from"], "to": event["to"]}
        if event.get("refill"):  # opening_refill: the stock's top card now on "from"
            return words["moved_refill"].format_map({**moved, "card": card(str(event["refill"]))})
        return words["moved"].format_map(moved)
    if ev == "collected":  # scoring "corners": a corner completed king to ace, collected
        return words["collected"].format(name=name, corner=event["corner"], n=event["total"])
    if ev == "took":
        count = int(event.get("count") or 1)
        return words["took" if count == 1 else "took_many"].format(name=name, n=count)
    if ev == "hand_over":
        out = event.get("out")
        head = words["out"].format(name=names(out)) if out is not None else words["blocked"]
        penalties = ", ".join(f"{names(i)} {p}" for i, p in enumerate(event.get("penalties") or []))
        return f"{head} {words['penalties'].format(list=penalties)}"
    if ev == "match_over":
        winners = texts(lang)["result.and"].join(names(i) for i in event.get("winners") or [])
        return words["match_over"].format(names=winners)
    template = words.get(ev)
    if template is None:
        return words["unknown"].format(ev=ev)
    return template.format(name=name)


def describe_error(
    error: Mapping[str, Any],
    lang: str = "en",
    names: Names | None = None,
    card: Card = _plain,
) -> str:
    """A refusal in words, from its ``code`` and ``params`` (the server's English
    ``message`` when no wording of ours fits)."""
    words = _ERRORS.get(lang, _ERRORS["en"])
    code = str(error.get("code", ""))
    params: dict[str, Any] = dict(error.get("params") or {})
    for key in ("card", "onto", "base"):
        if isinstance(params.get(key), str):
            params[key] = card(params[key])
    key = code
    if code == "does_not_fit" and params.get("reason") == "king_pile":
        key = "does_not_fit_king"
    elif code == "does_not_fit" and "base" in params:
        key = "does_not_fit_move"
    elif code == "corner_needs_king" and "to" in params:
        key = "corner_needs_king_move"
    elif code == "rate_limited" and params.get("reason") == "hints":
        key = "rate_limited_hints"
    elif code == "rate_limited" and params.get("reason") == "failed_joins":
        key = "rate_limited_failed_joins" + ("_wait" if "retry_after" in params else "")
    elif code == "cannot_draw" and f"cannot_draw_{params.get('reason')}" in words:
        key = f"cannot_draw_{params.get('reason')}"
    elif code == "bad_name" and f"bad_name_{params.get('reason')}" in words:
        key = f"bad_name_{params.get('reason')}"
    elif code == "not_ready":
        seats: Sequence[int] = params.get("seats") or []
        params["names"] = ", ".join(names(s) if names else str(s + 1) for s in seats)
    template = words.get(key)
    if template is None:
        return str(error.get("message") or code)
    try:
        return template.format_map(params)
    except (KeyError, IndexError):
        return words.get(code, str(error.get("message") or code)).format_map(_Missing(params))


class _Missing(dict[str, Any]):
    def __missing__(self, key: str) -> str:
        return "?"


def describe_reason(reason: Mapping[str, Any] | None, lang: str = "en", card: Card = _plain) -> str:
    """Why a hint suggests its move (its frame's ``reason``), or "" when it says nothing
    this client knows."""
    if not isinstance(reason, Mapping):
        return ""
    words = REASONS.get(lang, REASONS["en"])
    text = words.get(str(reason.get("code")))
    if text is None:
        return ""
    params = reason.get("params") or {}
    values = {k: card(str(v)) if k in _REASON_CARDS else str(v) for k, v in params.items()}
    try:
        return text.format_map(values)
    except KeyError:
        return ""


#: What the coach's better line gains (the ``reason`` of a reviewed turn), by language.
GAINS = section("gain.")
#: The parameters of a gain that are cards; ``pile`` is a pile's code (worded by its name),
#: ``count`` a plain number.
_GAIN_CARDS = frozenset(("card", "target"))


def describe_gain(reason: Mapping[str, Any] | None, lang: str = "en", card: Card = _plain) -> str:
    """What the coach's better line gains over the played one (a reviewed turn's
    ``reason``), cards drawn by ``card`` and piles by their names (``North``); "" when it
    says nothing this client knows."""
    if not isinstance(reason, Mapping):
        return ""
    words = GAINS.get(lang, GAINS["en"])
    text = words.get(str(reason.get("code")))
    if text is None:
        return ""
    names = texts(lang)
    values: dict[str, str] = {}
    for key, value in (reason.get("params") or {}).items():
        if key in _GAIN_CARDS:
            values[key] = card(str(value))
        elif key == "pile":
            values[key] = names.get(f"pile.{value}", str(value))
        else:
            values[key] = str(value)
    try:
        return text.format_map(values)
    except KeyError:
        return ""


# --- ratings ----------------------------------------------------------------------------


def _rating_words(lang: str) -> dict[str, str]:
    return RATINGS.get(lang, RATINGS["en"])


def number(value: int, lang: str = "en") -> str:
    """A whole number as the language writes it: ``1,034`` (en), ``1034`` and ``10.034``
    (es), ``1 034`` with a no-break space (cs), as the browsers' ``Intl`` does."""
    grouped = f"{int(value):,}"
    if lang == "es":
        return grouped.replace(",", ".") if abs(int(value)) >= 10_000 else str(int(value))
    if lang == "cs":
        return grouped.replace(",", "\u00a0")
    return grouped


def signed(delta: int, lang: str = "en") -> str:
    """A rating change as people read it: ``+34``, ``±0``, and a minus sign (U+2212) before a
    loss."""
    if delta > 0:
        return f"+{number(delta, lang)}"
    if delta < 0:
        return f"\u2212{number(-delta, lang)}"
    return "\u00b10"


def rating_text(value: int, provisional: bool, lang: str = "en") -> str:
    """A rating, followed by the provisional mark (``1,034?``) while it is not settled."""
    shown = number(value, lang)
    return _rating_words(lang)["mark"].format(rating=shown) if provisional else shown


def plural(n: int, lang: str = "en") -> str:
    """The plural form of ``n`` in ``lang``: ``one``, ``few`` (Czech 2-4) or ``other``."""
    if n == 1:
        return "one"
    if lang == "cs" and 2 <= n <= 4:
        return "few"
    return "other"


def describe_matches(n: int, lang: str = "en") -> str:
    """``1 rated match``, ``3 rated matches`` (each language's plural forms)."""
    return _rating_words(lang)[f"matches_{plural(n, lang)}"].format(n=number(n, lang))


def describe_provisional(matches: int, least: int | None = None, lang: str = "en") -> str:
    """``provisional — settles after 10 rated matches (3 so far)``."""
    least = least or SETTLES_AFTER
    return _rating_words(lang)["provisional"].format(
        min=number(least, lang), n=number(matches, lang)
    )


def nth(place: int, lang: str = "en") -> str:
    """A place in the language: ``2nd``, ``2.º``, ``2.``."""
    words = _rating_words(lang)
    return words.get(f"nth_{place}", words["nth"]).format(n=place)


def describe_why(
    change: Mapping[str, Any] | None, lang: str = "en", seats: int | None = None
) -> str:
    """Why a change is what it is, in short: ``2nd of 4``, ``Left the match: last of 4``,
    ``No opponent counted``; "" for a change without a reason (an older match). A place
    among fewer than the match's ``seats`` (a leaver's seat, say, counts for nobody) says
    so: ``1st of the 2 counted``."""
    if not change:
        return ""
    words = _rating_words(lang)
    reason = change.get("reason")
    if reason == "no_opponents":
        return words["no_opponents"]
    if reason == "abandoned":
        return words["abandoned"].format(of=number(int(change.get("of") or 0), lang))
    if reason == "placed":
        of = int(change.get("of") or 0)
        counted = seats is not None and 0 < of < seats and "place_counted" in words
        return words["place_counted" if counted else "place"].format(
            nth=nth(int(change.get("place") or 0), lang),
            of=number(int(change.get("of") or 0), lang),
        )
    return ""


def describe_change(
    change: Mapping[str, Any] | None, lang: str = "en", seats: int | None = None
) -> str:
    """One person's rating change in a rated match (an entry of ``doc.room.ratings`` or of a
    history row's ``ratings``): ``2nd of 4: +12 (1,034 → 1,046?)``,
    ``Left the match: last of 4`` and the loss, ``No opponent counted: ±0``."""
    if not change:
        return ""
    words = _rating_words(lang)
    before, after = int(change["before"]), int(change["after"])
    values = {
        "why": describe_why(change, lang, seats),
        "delta": signed(after - before, lang),
        "before": number(before, lang),
        "after": rating_text(after, bool(change.get("provisional")), lang),
    }
    if change.get("reason") == "no_opponents":
        return words["change_none"].format_map(values)
    return words["change" if values["why"] else "moved"].format_map(values)


def describe_your_change(
    change: Mapping[str, Any], lang: str = "en", seats: int | None = None
) -> str:
    """``Your rating: 2nd of 4: +12 (1,034 → 1,046)``."""
    return _rating_words(lang)["you"].format(change=describe_change(change, lang, seats))


def describe_unrated(reason: str | None, lang: str = "en") -> str:
    """Why a match changes no rating, from the server's reason (``casual``,
    ``chosen_deal``, ``daily``, ``aborted``); an unknown one says just that."""
    words = _rating_words(lang)
    return words.get(f"unrated_{reason}", words["unrated"])


def rating_wait(lang: str = "en") -> str:
    """What shows while the server is still rating a finished match."""
    return _rating_words(lang)["wait"]


def who(name: object, tag: object) -> str:
    """A person as the boards show them: ``Ana#4F7K``, or ``Ana`` with no tag yet."""
    return f"{name}#{tag}" if isinstance(tag, str) and tag else str(name)


def describe_profile(profile: Mapping[str, Any], lang: str = "en") -> str:
    """You in one line, from a ``profile`` reply: ``Ana#4F7K · rating 1,034? · provisional —
    settles after 10 rated matches (3 so far)``, or ``… · 12 rated matches`` once settled."""
    words = _rating_words(lang)
    if "provisional" in profile:
        provisional = bool(profile["provisional"])
    else:
        provisional = not profile.get("listed")
    matches = int(profile.get("matches") or 0)
    head = words["profile"].format(
        who=who(profile.get("name", "?"), profile.get("tag")),
        rating=rating_text(int(profile.get("rating") or 0), provisional, lang),
    )
    tail = (
        describe_provisional(matches, profile.get("min_matches"), lang)
        if provisional
        else describe_matches(matches, lang)
    )
    return f"{head} · {tail}"


def unrated_reason(room: Mapping[str, Any]) -> str:
    """Why a room's match is not rated: the server's ``unrated``, else (a server from before
    it said) told from the room's options."""
    reason = room.get("unrated")
    if isinstance(reason, str) and reason:
        return reason
    if (room.get("options") or {}).get("casual"):
        return "casual"
    if room.get("daily"):
        return "daily"
    return "chosen_deal"
