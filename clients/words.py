"""The table log and the server's refusals in words, for the Python clients.

The server sends what happened as data (a log event: ``{"ev": "played", "seat": 0, ...}``)
and refuses with a stable code and its parameters; these functions word them in the
player's language. Names come from the caller (the seats of the room, or a replay's record),
cards through a ``card`` function (symbols or plain codes).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from typing import Any

LANGUAGES = ("en", "es")
Names = Callable[[int | None], str]
Card = Callable[[str], str]

_EVENTS: dict[str, dict[str, str]] = {
    "en": {
        "sat": "{name} sat down.",
        "sat_bot": "{name} ({level} bot) sat down.",
        "moved_seat": "{name} moved to seat {n}.",
        "left": "{name} left.",
        "bot_took": "{name} left; a bot plays the seat.",
        "kicked": "{name} was removed by the host.",
        "host": "{name} is now the host.",
        "locked": "The host locked the room.",
        "unlocked": "The host unlocked the room.",
        "configured": "The host changed the room's options.",
        "away": "{name} is away; a bot plays for now.",
        "back": "{name} is back.",
        "timed_out": "{name}'s time ran out; a bot plays the turn.",
        "rematch_vote": "{name} wants a rematch.",
        "started": "The match begins; {name} deals.",
        "rematch": "Rematch! {name} deals.",
        "dealt": "Hand {n}: {name} deals.",
        "played": "{name} played {card} on {pile}.",
        "moved": "{name} moved pile {from} onto {to}.",
        "drew": "{name} drew a card and ended the turn.",
        "ended": "{name} ended the turn.",
        "out": "{name} went out and wins the hand.",
        "blocked": "Nobody can or will move: the hand is blocked.",
        "penalties": "Penalties: {list}.",
        "match_over": "Match over: {names} won.",
        "and": " and ",
        "unknown": "Something happened ({ev}).",
    },
    "es": {
        "sat": "{name} se sentó.",
        "sat_bot": "{name} (bot {level}) se sentó.",
        "moved_seat": "{name} se cambió al asiento {n}.",
        "left": "{name} se fue.",
        "bot_took": "{name} se fue; un bot juega por ese asiento.",
        "kicked": "El anfitrión sacó a {name}.",
        "host": "{name} es ahora el anfitrión.",
        "locked": "El anfitrión cerró la sala.",
        "unlocked": "El anfitrión abrió la sala.",
        "configured": "El anfitrión cambió las opciones de la sala.",
        "away": "{name} está ausente; de momento juega un bot.",
        "back": "{name} ha vuelto.",
        "timed_out": "A {name} se le acabó el tiempo; un bot juega el turno.",
        "rematch_vote": "{name} quiere la revancha.",
        "started": "Empieza la partida; reparte {name}.",
        "rematch": "¡Revancha! Reparte {name}.",
        "dealt": "Mano {n}: reparte {name}.",
        "played": "{name} jugó {card} en {pile}.",
        "moved": "{name} movió el montón {from} sobre {to}.",
        "drew": "{name} robó una carta y terminó su turno.",
        "ended": "{name} terminó su turno.",
        "out": "{name} se quedó sin cartas y gana la mano.",
        "blocked": "Nadie puede o quiere mover: la mano queda bloqueada.",
        "penalties": "Penalizaciones: {list}.",
        "match_over": "Fin de la partida: gana {names}.",
        "and": " y ",
        "unknown": "Pasó algo ({ev}).",
    },
}

_ERRORS: dict[str, dict[str, str]] = {
    "en": {
        "not_your_turn": "It is not your turn.",
        "not_in_hand": "{card} is not in your hand.",
        "does_not_fit": "{card} does not fit on {onto}: one rank lower, opposite colour.",
        "does_not_fit_move": "The base of {from} ({base}) does not fit on {onto}.",
        "does_not_fit_king": "A king-based pile never moves onto another pile.",
        "corner_needs_king": "Only a king may start the empty corner {pile}.",
        "corner_needs_king_move": "Only a king-based pile may move to the empty corner {to}.",
        "no_such_pile": "There is no pile {pile}.",
        "cannot_move_pile": "That pile cannot move there.",
        "must_play_king": "You hold a king and a corner is empty: play the king first.",
        "hand_over": "This hand is over.",
        "match_over": "The match is over.",
        "room_not_found": "There is no room with that code.",
        "room_full": "That room has no free seat.",
        "seat_taken": "That seat is taken.",
        "not_seated": "Spectators cannot do that; take a seat first.",
        "not_host": "Only the host can do that.",
        "not_ready": "Waiting for {names} to be ready.",
        "rate_limited": "Too many messages; slow down.",
        "rate_limited_hints": "At most {limit} hints per turn.",
        "too_many_rooms": "A connection may create {limit} rooms.",
        "bad_token": "That seat token is not valid for this room.",
        "bad_recovery_code": "That recovery code belongs to nobody.",
        "store_unavailable": "The game store is unreachable; try again shortly.",
    },
    "es": {
        "not_your_turn": "No es tu turno.",
        "not_in_hand": "{card} no está en tu mano.",
        "does_not_fit": "{card} no encaja sobre {onto}: un valor menos y del color contrario.",
        "does_not_fit_move": "La base de {from} ({base}) no encaja sobre {onto}.",
        "does_not_fit_king": "Un montón que empieza por rey nunca se mueve sobre otro.",
        "corner_needs_king": "Solo un rey puede empezar la esquina vacía {pile}.",
        "corner_needs_king_move": "Solo un montón con un rey en la base va a la esquina {to}.",
        "no_such_pile": "No existe el montón {pile}.",
        "cannot_move_pile": "Ese montón no se puede mover ahí.",
        "must_play_king": "Tienes un rey y hay una esquina vacía: juega primero el rey.",
        "hand_over": "Esta mano ha terminado.",
        "match_over": "La partida ha terminado.",
        "room_not_found": "No hay ninguna sala con ese código.",
        "room_full": "Esa sala no tiene asientos libres.",
        "seat_taken": "Ese asiento está ocupado.",
        "not_seated": "Los espectadores no pueden hacer eso; siéntate primero.",
        "not_host": "Solo el anfitrión puede hacer eso.",
        "not_ready": "Falta que estén listos: {names}.",
        "rate_limited": "Demasiados mensajes; ve más despacio.",
        "rate_limited_hints": "Como mucho {limit} pistas por turno.",
        "too_many_rooms": "Una conexión puede crear {limit} salas.",
        "bad_token": "Ese asiento ya no es tuyo en esta sala.",
        "bad_recovery_code": "Ese código de recuperación no es de nadie.",
        "store_unavailable": "El servidor no puede guardar la partida; inténtalo enseguida.",
    },
}


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


def describe_event(
    event: Mapping[str, Any], names: Names, lang: str = "en", card: Card = _plain
) -> str:
    """One table-log event in words (``names`` gives a seat's name)."""
    words = _EVENTS.get(lang, _EVENTS["en"])
    ev = str(event.get("ev", ""))
    seat = event.get("seat")
    name = str(event["name"]) if "name" in event else names(seat)
    if ev == "sat" and event.get("bot"):
        return words["sat_bot"].format(name=name, level=event["bot"])
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
        return words["moved"].format_map({"name": name, "from": event["from"], "to": event["to"]})
    if ev == "hand_over":
        out = event.get("out")
        head = words["out"].format(name=names(out)) if out is not None else words["blocked"]
        penalties = ", ".join(f"{names(i)} {p}" for i, p in enumerate(event.get("penalties") or []))
        return f"{head} {words['penalties'].format(list=penalties)}"
    if ev == "match_over":
        winners = words["and"].join(names(i) for i in event.get("winners") or [])
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
