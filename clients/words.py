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

LANGUAGES = ("en", "es", "cs")
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
        "took": "{name} drew a card.",
        "took_many": "{name} drew {n} cards and plays on.",
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
        "took": "{name} robó una carta.",
        "took_many": "{name} robó {n} cartas y sigue jugando.",
        "ended": "{name} terminó su turno.",
        "out": "{name} se quedó sin cartas y gana la mano.",
        "blocked": "Nadie puede o quiere mover: la mano queda bloqueada.",
        "penalties": "Penalizaciones: {list}.",
        "match_over": "Fin de la partida: gana {names}.",
        "and": " y ",
        "unknown": "Pasó algo ({ev}).",
    },
    "cs": {
        "sat": "{name} si sedl(a).",
        "sat_bot": "{name} (bot {level}) si sedl(a).",
        "moved_seat": "{name} se přesadil(a) na místo {n}.",
        "left": "{name} odešel/odešla.",
        "bot_took": "{name} odešel/odešla; místo hraje bot.",
        "kicked": "Hostitel odebral hráče {name}.",
        "host": "Hostitelem je teď {name}.",
        "locked": "Hostitel zamkl místnost.",
        "unlocked": "Hostitel odemkl místnost.",
        "configured": "Hostitel změnil nastavení místnosti.",
        "away": "{name} je pryč; zatím hraje bot.",
        "back": "{name} je zpět.",
        "timed_out": "{name}: čas vypršel; tah dohraje bot.",
        "rematch_vote": "{name} chce odvetu.",
        "started": "Zápas začíná; rozdává {name}.",
        "rematch": "Odveta! Rozdává {name}.",
        "dealt": "Kolo {n}: rozdává {name}.",
        "played": "{name} zahrál(a) {card} na {pile}.",
        "moved": "{name} přesunul(a) hromádku {from} na {to}.",
        "drew": "{name} dobral(a) kartu a ukončil(a) tah.",
        "took": "{name} dobral(a) kartu.",
        "took_many": "{name} dobral(a) {n} karty a hraje dál.",
        "ended": "{name} ukončil(a) tah.",
        "out": "{name} vyložil(a) všechny karty a vyhrává kolo.",
        "blocked": "Nikdo nemůže nebo nechce táhnout: kolo je zablokované.",
        "penalties": "Trestné body: {list}.",
        "match_over": "Konec zápasu: vyhrává {names}.",
        "and": " a ",
        "unknown": "Něco se stalo ({ev}).",
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
        "must_play_card": "Play a card from your hand before ending your turn.",
        "cannot_draw": "You may draw only while no card of your hand can be played.",
        "cannot_draw_rule": "This room draws at the end or the start of a turn, not on request.",
        "cannot_draw_stock_empty": "The stock is empty.",
        "cannot_draw_playable": "{card} can be played on {pile}: no draw while a card fits.",
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
        "store_full": (
            "The game store is full and takes no moves for now; nothing was lost. Try again "
            "shortly."
        ),
        "upgrade_needed": (
            "This room was moved to a newer server; reconnecting will bring you back to it."
        ),
        "bad_name": "That name cannot be used.",
        "bad_name_empty": "A name needs at least one visible character.",
        "bad_name_invisible": "A name needs at least one visible character.",
        "bad_name_control": "A name cannot hold control characters.",
        "bad_name_hash": "A name cannot hold #: the tag after it is given by the server.",
        "bad_name_reserved": "That name is the bots': choose another.",
        "bad_name_too_long": "That name is too long.",
        "identity_revoked": (
            "This device was signed out: a new recovery code was made. Use the code to come back "
            "as yourself."
        ),
        "rate_limited_failed_joins": "Too many failed joins; wait a minute before trying again.",
        "rate_limited_failed_joins_wait": (
            "Too many failed joins from your network; try again in {retry_after} s."
        ),
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
        "must_play_card": "Juega una carta de tu mano antes de terminar el turno.",
        "cannot_draw": "Solo puedes robar mientras ninguna carta de tu mano se pueda jugar.",
        "cannot_draw_rule": "En esta sala se roba al final o al principio del turno, no a pedido.",
        "cannot_draw_stock_empty": "El mazo está vacío.",
        "cannot_draw_playable": "{card} se puede jugar en {pile}: no se roba mientras algo encaje.",
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
        "store_full": (
            "El almacén de partidas está lleno y no acepta jugadas por ahora; no se perdió nada. "
            "Inténtalo enseguida."
        ),
        "upgrade_needed": "Esta sala pasó a un servidor más nuevo; al reconectar volverás a ella.",
        "bad_name": "Ese nombre no se puede usar.",
        "bad_name_empty": "Un nombre necesita al menos un carácter visible.",
        "bad_name_invisible": "Un nombre necesita al menos un carácter visible.",
        "bad_name_control": "Un nombre no puede tener caracteres de control.",
        "bad_name_hash": (
            "Un nombre no puede tener #: la etiqueta que lo sigue la pone el servidor."
        ),
        "bad_name_reserved": "Ese nombre es de los bots: elige otro.",
        "bad_name_too_long": "Ese nombre es demasiado largo.",
        "identity_revoked": (
            "Se cerró la sesión en este dispositivo: se creó un código de recuperación nuevo. "
            "Úsalo para volver a ser tú."
        ),
        "rate_limited_failed_joins": (
            "Demasiados intentos fallidos; espera un minuto antes de volver a probar."
        ),
        "rate_limited_failed_joins_wait": (
            "Demasiados intentos fallidos desde tu red; vuelve a probar en {retry_after} s."
        ),
    },
    "cs": {
        "not_your_turn": "Nejste na tahu.",
        "not_in_hand": "{card} nemáte v ruce.",
        "does_not_fit": "{card} nepasuje na {onto}: o jednu hodnotu nižší a opačné barvy.",
        "does_not_fit_move": "Spodní karta hromádky {from} ({base}) nepasuje na {onto}.",
        "does_not_fit_king": "Hromádka s králem dole se nikdy nepřesouvá na jinou hromádku.",
        "corner_needs_king": "Prázdný roh {pile} smí založit jen král.",
        "corner_needs_king_move": "Do prázdného rohu {to} smí jen hromádka s králem dole.",
        "no_such_pile": "Hromádka {pile} neexistuje.",
        "cannot_move_pile": "Tuto hromádku tam nelze přesunout.",
        "must_play_king": "Máte krále a jeden roh je prázdný: nejdřív zahrajte krále.",
        "must_play_card": "Než ukončíte tah, zahrajte kartu z ruky.",
        "cannot_draw": "Dobírat smíte, jen dokud žádnou kartu z ruky nelze zahrát.",
        "cannot_draw_rule": "Tady se dobírá na konci nebo na začátku tahu, ne na požádání.",
        "cannot_draw_stock_empty": "Balíček je prázdný.",
        "cannot_draw_playable": "{card} lze zahrát na {pile}: dokud něco pasuje, nedobírá se.",
        "hand_over": "Toto kolo skončilo.",
        "match_over": "Zápas skončil.",
        "room_not_found": "Místnost s tímto kódem neexistuje.",
        "room_full": "V této místnosti není volné místo.",
        "seat_taken": "Toto místo je obsazené.",
        "not_seated": "Diváci to nemohou; nejdřív si sedněte.",
        "not_host": "To může jen hostitel.",
        "not_ready": "Čeká se, až budou připraveni: {names}.",
        "rate_limited": "Příliš mnoho zpráv; zpomalte.",
        "rate_limited_hints": "Nejvýš {limit} nápověd za tah.",
        "too_many_rooms": "Jedno spojení smí vytvořit {limit} místností.",
        "bad_token": "Toto místo v místnosti už není vaše.",
        "store_unavailable": "Úložiště hry je nedostupné; zkuste to za chvíli.",
        "store_full": (
            "Úložiště hry je plné a teď nepřijímá tahy; nic se neztratilo. Zkuste to za chvíli."
        ),
        "upgrade_needed": (
            "Tato místnost přešla na novější server; po opětovném připojení se do ní vrátíte."
        ),
        "bad_name": "Toto jméno nelze použít.",
        "bad_name_empty": "Jméno potřebuje aspoň jeden viditelný znak.",
        "bad_name_invisible": "Jméno potřebuje aspoň jeden viditelný znak.",
        "bad_name_control": "Jméno nesmí obsahovat řídicí znaky.",
        "bad_name_hash": "Jméno nesmí obsahovat #: štítek za ním přiděluje server.",
        "bad_name_reserved": "Toto jméno patří botům: zvolte jiné.",
        "bad_name_too_long": "Toto jméno je příliš dlouhé.",
        "identity_revoked": (
            "Toto zařízení bylo odhlášeno: vznikl nový kód pro obnovení. Použijte ho a vrátíte se "
            "jako vy."
        ),
        "rate_limited_failed_joins": (
            "Příliš mnoho neúspěšných připojení; počkejte minutu a zkuste to znovu."
        ),
        "rate_limited_failed_joins_wait": (
            "Příliš mnoho neúspěšných připojení z vaší sítě; zkuste to znovu za {retry_after} s."
        ),
    },
}


#: Why a hint suggests its move (the ``reason`` of a ``hint`` frame), by language.
REASONS: dict[str, dict[str, str]] = {
    "en": {
        "goes_out": "It is your last card: the hand ends and you score 0.",
        "king_to_corner": "Kings to the corners early: {card} starts the {pile} corner.",
        "sheds_king": "A king costs 10 in your hand: {card} goes onto the empty {pile}.",
        "opens_space": "Merging {pile} onto {onto} opens a side space for you.",
        "fills_space": "Fill the empty {pile} before the next player dumps a card there.",
        "sets_up_follow": "Then {next} from your hand fits on {card}.",
        "plays_card": "One card fewer: {card} fits on {top}.",
        "keeps_follow": "Keep {card} for the {target} on {pile}.",
        "end_nothing_fits": "Nothing in your hand fits a pile.",
        "draw_nothing_fits": "Nothing in your hand can be played: draw a card.",
        "refills": "Your last card, with a side space still empty: you draw three and play on.",
    },
    "es": {
        "goes_out": "Es tu última carta: la mano termina y sumas 0.",
        "king_to_corner": "Los reyes, pronto a las esquinas: {card} abre la esquina {pile}.",
        "sheds_king": "Un rey en la mano cuesta 10: {card} va al espacio vacío {pile}.",
        "opens_space": "Juntar {pile} sobre {onto} te deja libre un espacio lateral.",
        "fills_space": (
            "Ocupa el espacio vacío {pile} antes de que el siguiente jugador suelte ahí una carta."
        ),
        "sets_up_follow": "Después, tu {next} encaja sobre {card}.",
        "plays_card": "Una carta menos: {card} encaja sobre {top}.",
        "keeps_follow": "Guarda {card} para el {target} de {pile}.",
        "end_nothing_fits": "Nada de tu mano encaja en ningún montón.",
        "draw_nothing_fits": "No puedes jugar nada de tu mano: roba una carta.",
        "refills": "Tu última carta, con un espacio lateral aún vacío: robas tres y sigues.",
    },
    "cs": {
        "goes_out": "Je to vaše poslední karta: kolo končí a máte 0 bodů.",
        "king_to_corner": "Krále brzy do rohů: {card} zakládá roh {pile}.",
        "sheds_king": "Král v ruce stojí 10 bodů: {card} jde na prázdné místo {pile}.",
        "opens_space": "Přesunutím {pile} na {onto} uvolníte místo po straně.",
        "fills_space": "Obsaďte prázdné místo {pile} dřív, než tam další hráč něco odhodí.",
        "sets_up_follow": "Potom na {card} pasuje vaše {next}.",
        "plays_card": "O kartu méně: {card} pasuje na {top}.",
        "keeps_follow": "Nechte si {card} na {target} v hromádce {pile}.",
        "end_nothing_fits": "Nic z ruky nikam nepasuje.",
        "draw_nothing_fits": "Nic z ruky nelze zahrát: dobrat kartu.",
        "refills": "Poslední karta a místo po straně zůstane prázdné: dobíráte tři a hrajete dál.",
    },
}
#: The parameters of a hint's reason that are cards (the others are piles).
_REASON_CARDS = frozenset(("card", "next", "target", "top"))


#: Ratings in words (see :func:`describe_change`), by language. The web client has the same
#: sentences under the same keys, each prefixed ``rating.`` (clients/web/i18n/).
RATINGS: dict[str, dict[str, str]] = {
    "en": {
        "profile": "{who} · rating {rating}",
        "mark": "{rating}?",
        "provisional": "provisional — settles after {min} rated matches ({n} so far)",
        "matches_one": "{n} rated match",
        "matches_few": "{n} rated matches",
        "matches_other": "{n} rated matches",
        "nth": "{n}th",
        "nth_1": "1st",
        "nth_2": "2nd",
        "nth_3": "3rd",
        "nth_4": "4th",
        "place": "{nth} of {of}",
        "abandoned": "Left the match: last of {of}",
        "no_opponents": "No opponent counted",
        "change": "{why}: {delta} ({before} → {after})",
        "change_none": "{why}: {delta}",
        "moved": "{delta} ({before} → {after})",
        "cell": "{after} ({delta})",
        "you": "Your rating: {change}",
        "wait": "Updating ratings…",
        "unrated": "This match changes no rating.",
        "unrated_casual": "Casual match: no rating changes.",
        "unrated_chosen_deal": "A chosen deal: this match changes no rating.",
        "unrated_daily": "Daily deal: not rated (it has its own board).",
        "unrated_aborted": (
            "Not rated: someone left before the match really began, so it counts for nobody."
        ),
    },
    "es": {
        "profile": "{who} · puntuación {rating}",
        "mark": "{rating}?",
        "provisional": "provisional — se asienta tras {min} partidas puntuadas (llevas {n})",
        "matches_one": "{n} partida puntuada",
        "matches_few": "{n} partidas puntuadas",
        "matches_other": "{n} partidas puntuadas",
        "nth": "{n}.º",
        "nth_1": "1.º",
        "nth_2": "2.º",
        "nth_3": "3.º",
        "nth_4": "4.º",
        "place": "{nth} de {of}",
        "abandoned": "Abandono: último de {of}",
        "no_opponents": "Ningún rival contó",
        "change": "{why}: {delta} ({before} → {after})",
        "change_none": "{why}: {delta}",
        "moved": "{delta} ({before} → {after})",
        "cell": "{after} ({delta})",
        "you": "Tu puntuación: {change}",
        "wait": "Actualizando puntuaciones…",
        "unrated": "Esta partida no cambia ninguna puntuación.",
        "unrated_casual": "Partida informal: no cambia ninguna puntuación.",
        "unrated_chosen_deal": "Un reparto elegido: esta partida no cambia ninguna puntuación.",
        "unrated_daily": "Reparto del día: no puntúa (tiene su propia clasificación).",
        "unrated_aborted": (
            "No puntúa: alguien se fue antes de que la partida empezara de verdad, así que no "
            "cuenta para nadie."
        ),
    },
    "cs": {
        "profile": "{who} · hodnocení {rating}",
        "mark": "{rating}?",
        "provisional": "prozatímní — ustálí se po {min} hodnocených zápasech (zatím {n})",
        "matches_one": "{n} hodnocený zápas",
        "matches_few": "{n} hodnocené zápasy",
        "matches_other": "{n} hodnocených zápasů",
        "nth": "{n}.",
        "nth_1": "1.",
        "nth_2": "2.",
        "nth_3": "3.",
        "nth_4": "4.",
        "place": "{nth} ze {of}",
        "abandoned": "Odchod ze zápasu: poslední ze {of}",
        "no_opponents": "Nezapočítal se žádný soupeř",
        "change": "{why}: {delta} ({before} → {after})",
        "change_none": "{why}: {delta}",
        "moved": "{delta} ({before} → {after})",
        "cell": "{after} ({delta})",
        "you": "Vaše hodnocení: {change}",
        "wait": "Hodnocení se počítá…",
        "unrated": "Tento zápas hodnocení nemění.",
        "unrated_casual": "Neformální zápas: hodnocení se nemění.",
        "unrated_chosen_deal": "Zvolené rozdání: tento zápas hodnocení nemění.",
        "unrated_daily": "Denní rozdání se nehodnotí (má vlastní tabulku).",
        "unrated_aborted": (
            "Nehodnotí se: někdo odešel dřív, než zápas doopravdy začal, takže se nikomu nepočítá."
        ),
    },
}
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
    if ev == "took":
        count = int(event.get("count") or 1)
        return words["took" if count == 1 else "took_many"].format(name=name, n=count)
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


def describe_why(change: Mapping[str, Any] | None, lang: str = "en") -> str:
    """Why a change is what it is, in short: ``2nd of 4``, ``Left the match: last of 4``,
    ``No opponent counted``; "" for a change without a reason (an older match)."""
    if not change:
        return ""
    words = _rating_words(lang)
    reason = change.get("reason")
    if reason == "no_opponents":
        return words["no_opponents"]
    if reason == "abandoned":
        return words["abandoned"].format(of=number(int(change.get("of") or 0), lang))
    if reason == "placed":
        return words["place"].format(
            nth=nth(int(change.get("place") or 0), lang),
            of=number(int(change.get("of") or 0), lang),
        )
    return ""


def describe_change(change: Mapping[str, Any] | None, lang: str = "en") -> str:
    """One person's rating change in a rated match (an entry of ``doc.room.ratings`` or of a
    history row's ``ratings``): ``2nd of 4: +12 (1,034 → 1,046?)``,
    ``Left the match: last of 4`` and the loss, ``No opponent counted: ±0``."""
    if not change:
        return ""
    words = _rating_words(lang)
    before, after = int(change["before"]), int(change["after"])
    values = {
        "why": describe_why(change, lang),
        "delta": signed(after - before, lang),
        "before": number(before, lang),
        "after": rating_text(after, bool(change.get("provisional")), lang),
    }
    if change.get("reason") == "no_opponents":
        return words["change_none"].format_map(values)
    return words["change" if values["why"] else "moved"].format_map(values)


def describe_your_change(change: Mapping[str, Any], lang: str = "en") -> str:
    """``Your rating: 2nd of 4: +12 (1,034 → 1,046)``."""
    return _rating_words(lang)["you"].format(change=describe_change(change, lang))


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
