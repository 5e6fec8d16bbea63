"""The full-screen client's own texts in English, Spanish and Czech.

The table log and the server's refusals are worded by :mod:`clients.words`; these are the
labels, prompts and key lists around them. Every language has every key (a test checks).
"""

from __future__ import annotations

from typing import Any

TEXTS: dict[str, dict[str, str]] = {
    "en": {
        "app": "Kings in the Corner",
        "room": "Room {code}",
        "hand_no": "hand {n}",
        "summary.target": "target {value}",
        "summary.draw.end": "draw at end",
        "summary.draw.start": "draw at start",
        "summary.draw.until_playable": "draw until playable",
        "summary.kings_first": "kings first",
        "summary.casual": "casual (unrated)",
        "summary.pace.fast": "fast bots",
        "summary.turn_timer": "{value}s turns",
        "public": "public",
        "locked": "locked",
        "daily_ranked": "Daily deal (ranked)",
        "daily_practice": "Daily deal (practice)",
        "stock": "Stock {n}",
        "empty": "empty",
        "kings_only": "kings only",
        "cards_n": "{n} cards",
        "card_one": "1 card",
        "your_hand": "Your hand ({n})",
        "no_cards": "no cards",
        "watching": "You are watching this table.",
        "seats": "Seats",
        "col_cards": "cards",
        "col_total": "total",
        "log": "Table log",
        "chat": "Chat",
        "chat_hint": "c: chat",
        "you": "you",
        "host": "host",
        "dealer": "dealer",
        "bot": "bot",
        "away": "away",
        "offline": "offline",
        "ready": "ready",
        "not_ready": "not ready",
        "free": "(free seat)",
        "your_turn": "Your turn: choose a card (or m for a pile), then a pile.",
        "your_turn_moved": "Your turn: play on, or e to end it.",
        "your_turn_draw": "Your turn: nothing can be played, d draws.",
        "your_turn_play": "Your turn: play a card before ending it.",
        "turn_of": "{name}'s turn.",
        "chosen_card": "{card} chosen: press a highlighted pile's key, or Esc.",
        "chosen_nowhere": "{card} chosen: it fits nowhere now (Esc).",
        "chosen_pile": "Pile {pile} chosen: press the key of the pile to move it onto.",
        "typing": "Card {typed}…: now its suit (c d h s).",
        "moving": "Move which pile? Press its key.",
        "which_pile": "Press a pile's key: 7 8 9 / 4 6 / 1 2 3.",
        "not_in_hand": "{card} is not in your hand.",
        "empty_pile": "Pile {pile} is empty.",
        "hint_play": "Hint: play {card} on {pile}.",
        "hint_move": "Hint: move pile {from} onto {to}.",
        "hint_end": "Hint: end your turn.",
        "hint_draw": "Hint: draw a card (d).",
        "away_note": "A bot plays your seat: b takes it back.",
        "wait_title": "Waiting room · room code {code}",
        "wait_share": "Friends join with --join {code}",
        "wait_host": (
            "s  start (bots fill the free seats)\n"
            "a N  a bot into (or out of) seat N\n"
            "k N  remove the person in seat N"
        ),
        "wait_host2": ("d  next draw rule · f  kings first\n+ -  target · p  public · x  lock"),
        "wait_guest": "r ready / not ready · waiting for {host} to start",
        "wait_watch": "Waiting for the host to start.",
        "seat_n": "Seat {n}",
        "result_out": "Hand {n} over: {name} went out.",
        "result_blocked": "Hand {n} over: blocked, nobody can or will move.",
        "result_row": "{name}: {p} penalty",
        "totals": "Totals (target {target})",
        "hand_col": "hand {n}",
        "total_col": "total",
        "next_hand": "n deals the next hand now (it comes by itself shortly).",
        "match_over": "Match over: {names} won.",
        "and": " and ",
        "rematch_keys": "r rematch · R (host) forces it",
        "daily_over": "The daily deal is over: l leaves, then b shows the boards.",
        "votes": "Rematch votes: {names}.",
        "keys_play": "←→⏎ or 7c card · 1-9 pile · m move · e end · h hint · c chat · ? help",
        "keys_play_draw": "←→⏎ or 7c card · 1-9 pile · m move · d draw · e end · h hint · ? help",
        "keys_watch": "c chat · ? help · l leave · ^Q quit",
        "keys_wait": "r ready · c chat · ? help · l leave · ^Q quit",
        "keys_host": "s start · a N bot · k N kick · c chat · ? help · l leave · ^Q quit",
        "keys_result": "n next hand · r rematch · c chat · ? help · l leave · ^Q quit",
        "keys_hand_over": "n next hand · c chat · ? help · l leave · ^Q quit",
        "keys_finished": "r rematch · c chat · ? help · l leave · ^Q quit",
        "keys_daily_done": "c chat · ? help · l leave · ^Q quit",
        "lobby_title": "Kings in the Corner · {name}",
        "lobby_keys": "Press a key:",
        "menu_create": "n  new room (bots, variants)",
        "menu_join": "j  join a room by its code",
        "menu_watch": "w  watch a room by its code",
        "menu_quick": "2 3 4  quick play at a table of that size",
        "menu_daily": "d  today's daily deal (ranked once a day)",
        "menu_boards": "b  leaderboards",
        "menu_rename": "e  change your name",
        "menu_matches": "m  your matches (replay them)",
        "menu_replay": "r  replay a match by its id",
        "menu_quit": "q  quit (or Ctrl+Q)",
        "prompt_code": "Room code (Enter to go, Esc to cancel):",
        "prompt_match": "Match id (Enter to go, Esc to cancel):",
        "prompt_name": "Your new name (Enter to keep it, Esc to cancel):",
        "renamed": "You go by {who} now.",
        "menu_identity": "i  you on another device (recovery code)",
        "identity_title": "You on another device",
        "identity_keys": (
            "c  a new recovery code, to be you in a browser or another terminal\nu  use a "
            "recovery code: become the player it belongs to\nEsc  back"
        ),
        "identity_warning": (
            "A new code signs your other devices out; the code before stops working."
        ),
        "code_shown": (
            "Your recovery code: {code}\nWrite it down: it is shown only now. Enter it in a "
            "browser, or with u here (or --recover) in another terminal."
        ),
        "prompt_recover": "Recovery code (Enter to become that player, Esc to cancel):",
        "recovered": "Welcome back, {who}: this terminal plays as you now.",
        "queued": "Looking for a table of {n}; bots fill it shortly… (Esc cancels)",
        "create_title": "New room",
        "opt_seats": "Seats",
        "opt_bot": "Seat {n}",
        "opt_target": "Target",
        "opt_draw": "Draw",
        "opt_kings": "Kings first",
        "opt_public": "Public",
        "opt_casual": "Casual",
        "opt_pace": "Bot pace",
        "pace_normal": "normal",
        "pace_fast": "fast",
        "person": "a person",
        "go_create": "Create",
        "cancel": "Cancel",
        "form_keys": "Tab next field · Enter opens or picks · Esc cancels",
        "board_daily": "Daily deal leaderboard · {day}",
        "board_alltime": "All-time leaderboard",
        "board_rating": "Top players (by rating, established players)",
        "board_keys": "Tab daily / all-time / top players · t top players · Esc back",
        "board_empty": "Nobody on this board yet.",
        "col_name": "name",
        "col_penalty": "penalty",
        "col_hands": "hands",
        "col_won": "won",
        "col_played": "played",
        "col_avg": "avg",
        "col_rating": "rating",
        "col_matches": "matches",
        "matches_title": "Your finished matches",
        "matches_keys": "↑↓ choose · Enter replays · Esc back",
        "matches_none": "You have no finished matches yet.",
        "replay_title": "Replay {id} · step {i}/{n} · hand {h}/{hands}",
        "replay_keys": "←→ step · PgUp PgDn hand · Home End · Esc back",
        "replay_all_open": "Every hand open",
        "lost": "Connection lost; reconnecting…",
        "back_online": "Connected again.",
        "kicked": "The host removed you from the room.",
        "left_room": "You left room {code}.",
        "joined_note": "You are in seat {n} of room {code}.",
        "watch_note": "You are watching room {code}.",
        "stale_token": "The saved seat is no longer yours; you joined as a new player.",
        "leave_again": "Press l again to give up your seat for good (Esc: stay).",
        "help_title": "Keys",
        "help": (
            "Play: ←/→ move along your hand, Enter or Space chooses the card;\n"
            "  or type its code: 7 then c is 7♣, 10 or t is a ten, a j q k.\n"
            "  m then a pile's key chooses a pile to move whole.\n"
            "Piles: their keys are laid out as the table:\n"
            "  7 NW   8 N   9 NE\n"
            "  4 W          6 E\n"
            "  1 SW   2 S   3 SE\n"
            "  Highlighted piles (▸) are where the chosen card may go.\n"
            "  A click on a card or a pile works too.\n"
            "e end turn · d draw · h hint (marks only) · Esc forget the choice\n"
            "c chat (Enter sends, Esc returns) · n next hand · r rematch\n"
            "b take your seat back from a bot · l l leave for good · Ctrl+Q quit\n"
            "(come back to your seat with --join CODE)\n"
            "Waiting room (host): s start · a N bot · k N kick · d f + - p x\n"
            "Esc or ? closes this help."
        ),
    },
    "es": {
        "app": "Reyes en la Esquina",
        "room": "Sala {code}",
        "hand_no": "mano {n}",
        "summary.target": "límite {value}",
        "summary.draw.end": "robo al final",
        "summary.draw.start": "robo al inicio",
        "summary.draw.until_playable": "robo hasta poder jugar",
        "summary.kings_first": "reyes primero",
        "summary.casual": "informal (sin puntuación)",
        "summary.pace.fast": "bots rápidos",
        "summary.turn_timer": "{value}s por turno",
        "public": "pública",
        "locked": "cerrada",
        "daily_ranked": "Reparto del día (puntúa)",
        "daily_practice": "Reparto del día (práctica)",
        "stock": "Mazo {n}",
        "empty": "vacío",
        "kings_only": "solo reyes",
        "cards_n": "{n} cartas",
        "card_one": "1 carta",
        "your_hand": "Tu mano ({n})",
        "no_cards": "sin cartas",
        "watching": "Estás mirando esta mesa.",
        "seats": "Asientos",
        "col_cards": "cartas",
        "col_total": "total",
        "log": "Registro",
        "chat": "Chat",
        "chat_hint": "c: chat",
        "you": "tú",
        "host": "anfitrión",
        "dealer": "reparte",
        "bot": "bot",
        "away": "ausente",
        "offline": "desconectado",
        "ready": "listo",
        "not_ready": "no listo",
        "free": "(asiento libre)",
        "your_turn": "Tu turno: elige una carta (o m para un montón) y luego un montón.",
        "your_turn_moved": "Tu turno: sigue jugando, o e para terminarlo.",
        "your_turn_draw": "Tu turno: no puedes jugar nada, d roba.",
        "your_turn_play": "Tu turno: juega una carta antes de terminar.",
        "turn_of": "Turno de {name}.",
        "chosen_card": "{card} elegida: pulsa la tecla de un montón resaltado, o Esc.",
        "chosen_nowhere": "{card} elegida: ahora no encaja en ningún sitio (Esc).",
        "chosen_pile": "Montón {pile} elegido: pulsa la tecla del montón de destino.",
        "typing": "Carta {typed}…: ahora su palo (c d h s).",
        "moving": "¿Qué montón mueves? Pulsa su tecla.",
        "which_pile": "Pulsa la tecla de un montón: 7 8 9 / 4 6 / 1 2 3.",
        "not_in_hand": "{card} no está en tu mano.",
        "empty_pile": "El montón {pile} está vacío.",
        "hint_play": "Pista: juega {card} en {pile}.",
        "hint_move": "Pista: mueve el montón {from} sobre {to}.",
        "hint_end": "Pista: termina tu turno.",
        "hint_draw": "Pista: roba una carta (d).",
        "away_note": "Un bot juega por ti: b para volver.",
        "wait_title": "Sala de espera · código {code}",
        "wait_share": "Tus amigos entran con --join {code}",
        "wait_host": (
            "s  empezar (los bots ocupan los libres)\n"
            "a N  un bot entra en (o sale de) N\n"
            "k N  echar a la persona del asiento N"
        ),
        "wait_host2": (
            "d  siguiente regla de robo · f  reyes primero\n+ -  límite · p  pública · x  cerrar"
        ),
        "wait_guest": "r listo / no listo · esperando a que {host} empiece",
        "wait_watch": "Esperando a que empiece el anfitrión.",
        "seat_n": "Asiento {n}",
        "result_out": "Fin de la mano {n}: {name} se quedó sin cartas.",
        "result_blocked": "Fin de la mano {n}: bloqueada, nadie puede o quiere mover.",
        "result_row": "{name}: {p} de penalización",
        "totals": "Totales (límite {target})",
        "hand_col": "mano {n}",
        "total_col": "total",
        "next_hand": "n reparte ya la mano siguiente (llega sola enseguida).",
        "match_over": "Fin de la partida: gana {names}.",
        "and": " y ",
        "rematch_keys": "r revancha · R (anfitrión) la fuerza",
        "daily_over": "El reparto del día terminó: l para salir, luego b para las tablas.",
        "votes": "Quieren la revancha: {names}.",
        "keys_play": "←→⏎ o 7c carta · 1-9 montón · m mover · e fin · h pista · c chat · ? ayuda",
        "keys_play_draw": (
            "←→⏎ o 7c carta · 1-9 montón · m mover · d robar · e fin · h pista · ? ayuda"
        ),
        "keys_watch": "c chat · ? ayuda · l salir · ^Q cerrar",
        "keys_wait": "r listo · c chat · ? ayuda · l salir · ^Q cerrar",
        "keys_host": "s empezar · a N bot · k N echar · c chat · ? ayuda · l salir · ^Q cerrar",
        "keys_result": "n mano siguiente · r revancha · c chat · ? ayuda · l salir · ^Q cerrar",
        "keys_hand_over": "n mano siguiente · c chat · ? ayuda · l salir · ^Q cerrar",
        "keys_finished": "r revancha · c chat · ? ayuda · l salir · ^Q cerrar",
        "keys_daily_done": "c chat · ? ayuda · l salir · ^Q cerrar",
        "lobby_title": "Reyes en la Esquina · {name}",
        "lobby_keys": "Pulsa una tecla:",
        "menu_create": "n  sala nueva (bots, variantes)",
        "menu_join": "j  entrar en una sala con su código",
        "menu_watch": "w  mirar una sala con su código",
        "menu_quick": "2 3 4  partida rápida en una mesa de ese tamaño",
        "menu_daily": "d  el reparto del día (puntúa una vez al día)",
        "menu_boards": "b  clasificaciones",
        "menu_rename": "e  cambiar tu nombre",
        "menu_matches": "m  tus partidas (para verlas de nuevo)",
        "menu_replay": "r  ver de nuevo una partida por su id",
        "menu_quit": "q  salir (o Ctrl+Q)",
        "prompt_code": "Código de sala (Enter para ir, Esc para cancelar):",
        "prompt_match": "Id de la partida (Enter para ir, Esc para cancelar):",
        "prompt_name": "Tu nombre nuevo (Enter para guardarlo, Esc para cancelar):",
        "renamed": "Ahora eres {who}.",
        "menu_identity": "i  recuperación: tú en otro dispositivo",
        "identity_title": "Tú en otro dispositivo",
        "identity_keys": (
            "c  un código nuevo, para ser tú en un navegador o en otra terminal\n"
            "u  usar un código de recuperación: ser el jugador al que pertenece\n"
            "Esc  volver"
        ),
        "identity_warning": (
            "Un código nuevo cierra la sesión de tus otros dispositivos; el anterior deja de valer."
        ),
        "code_shown": (
            "Tu código de recuperación: {code}\nApúntalo: solo se muestra ahora. Escríbelo "
            "en un navegador, o con u aquí (o --recover) en otra terminal."
        ),
        "prompt_recover": (
            "Código de recuperación (Enter para ser ese jugador, Esc para cancelar):"
        ),
        "recovered": "Bienvenido de nuevo, {who}: esta terminal juega como tú.",
        "queued": "Buscando una mesa de {n}; los bots la completan enseguida… (Esc cancela)",
        "create_title": "Sala nueva",
        "opt_seats": "Asientos",
        "opt_bot": "Asiento {n}",
        "opt_target": "Límite",
        "opt_draw": "Robo",
        "opt_kings": "Reyes primero",
        "opt_public": "Pública",
        "opt_casual": "Informal",
        "opt_pace": "Ritmo de los bots",
        "pace_normal": "normal",
        "pace_fast": "rápido",
        "person": "una persona",
        "go_create": "Crear",
        "cancel": "Cancelar",
        "form_keys": "Tab campo siguiente · Enter abre o elige · Esc cancela",
        "board_daily": "Clasificación del reparto del día · {day}",
        "board_alltime": "Clasificación histórica",
        "board_rating": "Mejores jugadores (por puntuación, jugadores asentados)",
        "board_keys": "Tab del día / histórica / mejores · t mejores · Esc volver",
        "board_empty": "Nadie en esta tabla todavía.",
        "col_name": "nombre",
        "col_penalty": "penaliz.",
        "col_hands": "manos",
        "col_won": "ganadas",
        "col_played": "jugadas",
        "col_avg": "media",
        "col_rating": "puntos",
        "col_matches": "partidas",
        "matches_title": "Tus partidas terminadas",
        "matches_keys": "↑↓ elegir · Enter ver de nuevo · Esc volver",
        "matches_none": "Aún no tienes partidas terminadas.",
        "replay_title": "Repetición {id} · paso {i}/{n} · mano {h}/{hands}",
        "replay_keys": "←→ paso · RePág AvPág mano · Inicio Fin · Esc volver",
        "replay_all_open": "Todas las manos a la vista",
        "lost": "Se perdió la conexión; reconectando…",
        "back_online": "Conectado de nuevo.",
        "kicked": "El anfitrión te sacó de la sala.",
        "left_room": "Saliste de la sala {code}.",
        "joined_note": "Estás en el asiento {n} de la sala {code}.",
        "watch_note": "Estás mirando la sala {code}.",
        "stale_token": "El asiento guardado ya no es tuyo; entraste como jugador nuevo.",
        "leave_again": "Pulsa l otra vez para dejar tu asiento del todo (Esc: quedarte).",
        "help_title": "Teclas",
        "help": (
            "Jugar: ←/→ recorren tu mano, Enter o Espacio eligen la carta;\n"
            "  o escribe su código: 7 y luego c es 7♣, 10 o t es un diez, a j q k.\n"
            "  m y la tecla de un montón eligen un montón para moverlo entero.\n"
            "Montones: sus teclas están dispuestas como la mesa:\n"
            "  7 NW   8 N   9 NE\n"
            "  4 W          6 E\n"
            "  1 SW   2 S   3 SE\n"
            "  Los montones resaltados (▸) son donde puede ir la carta elegida.\n"
            "  También vale hacer clic en una carta o un montón.\n"
            "e termina · d roba · h pista (solo marca) · Esc olvida la elección\n"
            "c chat (Enter envía, Esc vuelve) · n mano siguiente · r revancha\n"
            "b recupera tu asiento de un bot · l l salir del todo · Ctrl+Q cerrar\n"
            "(vuelve a tu asiento con --join CÓDIGO)\n"
            "Sala de espera (anfitrión): s empezar · a N bot · k N echar · d f + - p x\n"
            "Esc o ? cierran esta ayuda."
        ),
    },
    "cs": {
        "app": "Králové v rohu",
        "room": "Místnost {code}",
        "hand_no": "kolo {n}",
        "summary.target": "limit {value}",
        "summary.draw.end": "dobírání na konci",
        "summary.draw.start": "dobírání na začátku",
        "summary.draw.until_playable": "dobírání, dokud nelze hrát",
        "summary.kings_first": "nejdřív králové",
        "summary.casual": "neformální (bez hodnocení)",
        "summary.pace.fast": "rychlí boti",
        "summary.turn_timer": "{value} s na tah",
        "public": "veřejná",
        "locked": "zamčená",
        "daily_ranked": "Denní rozdání (hodnocené)",
        "daily_practice": "Denní rozdání (cvičné)",
        "stock": "Balíček {n}",
        "empty": "prázdné",
        "kings_only": "jen králové",
        "cards_n": "karet: {n}",
        "card_one": "1 karta",
        "your_hand": "Vaše ruka ({n})",
        "no_cards": "žádné karty",
        "watching": "Sledujete tento stůl.",
        "seats": "Místa",
        "col_cards": "karty",
        "col_total": "body",
        "log": "Záznam hry",
        "chat": "Chat",
        "chat_hint": "c: chat",
        "you": "vy",
        "host": "hostitel",
        "dealer": "rozdává",
        "bot": "bot",
        "away": "pryč",
        "offline": "odpojen",
        "ready": "připraven",
        "not_ready": "nepřipraven",
        "free": "(volné místo)",
        "your_turn": "Jste na tahu: vyberte kartu (nebo m pro hromádku), pak hromádku.",
        "your_turn_moved": "Jste na tahu: hrajte dál, nebo e tah ukončí.",
        "your_turn_draw": "Jste na tahu: nic nelze zahrát, d dobírá.",
        "your_turn_play": "Jste na tahu: před koncem zahrajte kartu.",
        "turn_of": "Hraje {name}.",
        "chosen_card": "{card}: stiskněte klávesu zvýrazněné hromádky, nebo Esc.",
        "chosen_nowhere": "{card}: teď nikam nepasuje (Esc).",
        "chosen_pile": "Hromádka {pile}: stiskněte klávesu hromádky, kam ji přesunout.",
        "typing": "Karta {typed}…: teď její barva (c d h s).",
        "moving": "Kterou hromádku přesunout? Stiskněte její klávesu.",
        "which_pile": "Stiskněte klávesu hromádky: 7 8 9 / 4 6 / 1 2 3.",
        "not_in_hand": "{card} nemáte v ruce.",
        "empty_pile": "Hromádka {pile} je prázdná.",
        "hint_play": "Nápověda: zahrajte {card} na hromádku {pile}.",
        "hint_move": "Nápověda: přesuňte hromádku {from} na {to}.",
        "hint_end": "Nápověda: ukončete tah.",
        "hint_draw": "Nápověda: doberte kartu (d).",
        "away_note": "Za vás hraje bot: b vám místo vrátí.",
        "wait_title": "Čeká se na začátek · kód místnosti {code}",
        "wait_share": "Přátelé se připojí s --join {code}",
        "wait_host": (
            "s  začít (volná místa doplní boti)\n"
            "a N  bot na místo N (nebo pryč)\n"
            "k N  odebrat člověka z místa N"
        ),
        "wait_host2": (
            "d  další pravidlo dobírání · f  nejdřív králové\n+ -  limit · p  veřejná · x  zamknout"
        ),
        "wait_guest": "r připraven / nepřipraven · čeká se, až {host} začne",
        "wait_watch": "Čeká se, až hostitel zahájí zápas.",
        "seat_n": "Místo {n}",
        "result_out": "Kolo {n} skončilo: {name} vyložil(a) všechny karty.",
        "result_blocked": "Kolo {n} skončilo: zablokováno, nikdo nemůže táhnout.",
        "result_row": "{name}: trestné body {p}",
        "totals": "Součty (limit {target})",
        "hand_col": "kolo {n}",
        "total_col": "celkem",
        "next_hand": "n rozdá další kolo hned (jinak přijde samo za chvíli).",
        "match_over": "Konec zápasu: vyhrává {names}.",
        "and": " a ",
        "rematch_keys": "r odveta · R (hostitel) ji vynutí",
        "daily_over": "Denní rozdání skončilo: l odejít, pak b ukáže žebříčky.",
        "votes": "Odvetu chtějí: {names}.",
        "keys_play": "←→⏎ nebo 7c karta · 1-9 hromádka · m přesun · e konec · h rada · ? pomoc",
        "keys_play_draw": (
            "←→⏎ nebo 7c karta · 1-9 hromádka · m přesun · d dobrat · e konec · ? pomoc"
        ),
        "keys_watch": "c chat · ? pomoc · l odejít · ^Q konec",
        "keys_wait": "r připraven · c chat · ? pomoc · l odejít · ^Q konec",
        "keys_host": "s začít · a N bot · k N odebrat · c chat · ? pomoc · l odejít · ^Q konec",
        "keys_result": "n další kolo · r odveta · c chat · ? pomoc · l odejít · ^Q konec",
        "keys_hand_over": "n další kolo · c chat · ? pomoc · l odejít · ^Q konec",
        "keys_finished": "r odveta · c chat · ? pomoc · l odejít · ^Q konec",
        "keys_daily_done": "c chat · ? pomoc · l odejít · ^Q konec",
        "lobby_title": "Králové v rohu · {name}",
        "lobby_keys": "Stiskněte klávesu:",
        "menu_create": "n  nová místnost (boti, varianty)",
        "menu_join": "j  připojit se k místnosti podle kódu",
        "menu_watch": "w  sledovat místnost podle kódu",
        "menu_quick": "2 3 4  rychlá hra u stolu pro tolik hráčů",
        "menu_daily": "d  dnešní denní rozdání (hodnocené jednou denně)",
        "menu_boards": "b  žebříčky",
        "menu_rename": "e  změnit jméno",
        "menu_matches": "m  vaše zápasy (k přehrání)",
        "menu_replay": "r  přehrát zápas podle jeho id",
        "menu_quit": "q  konec (nebo Ctrl+Q)",
        "prompt_code": "Kód místnosti (Enter potvrdí, Esc zruší):",
        "prompt_match": "Id zápasu (Enter potvrdí, Esc zruší):",
        "prompt_name": "Vaše nové jméno (Enter uloží, Esc zruší):",
        "renamed": "Teď vystupujete jako {who}.",
        "menu_identity": "i  vy na jiném zařízení (kód pro obnovení)",
        "identity_title": "Vy na jiném zařízení",
        "identity_keys": (
            "c  nový kód pro obnovení: budete sebou v prohlížeči nebo jiném terminálu\nu  "
            "použít kód pro obnovení: stát se hráčem, jemuž patří\nEsc  zpět"
        ),
        "identity_warning": (
            "Nový kód odhlásí vaše ostatní zařízení; předchozí kód přestane platit."
        ),
        "code_shown": (
            "Váš kód pro obnovení: {code}\nZapište si ho: ukáže se jen teď. Zadejte ho v "
            "prohlížeči, nebo klávesou u (či --recover) v jiném terminálu."
        ),
        "prompt_recover": "Kód pro obnovení (Enter: stát se tím hráčem, Esc zruší):",
        "recovered": "Vítejte zpět, {who}: tento terminál teď hraje za vás.",
        "queued": "Hledám stůl pro {n}; boti ho brzy doplní… (Esc zruší)",
        "create_title": "Nová místnost",
        "opt_seats": "Místa",
        "opt_bot": "Místo {n}",
        "opt_target": "Limit",
        "opt_draw": "Dobírání",
        "opt_kings": "Nejdřív králové",
        "opt_public": "Veřejná",
        "opt_casual": "Neformální",
        "opt_pace": "Tempo botů",
        "pace_normal": "běžné",
        "pace_fast": "rychlé",
        "person": "člověk",
        "go_create": "Vytvořit",
        "cancel": "Zrušit",
        "form_keys": "Tab další pole · Enter otevře nebo vybere · Esc zruší",
        "board_daily": "Žebříček denního rozdání · {day}",
        "board_alltime": "Celkový žebříček",
        "board_rating": "Nejlepší hráči (podle hodnocení, usazení hráči)",
        "board_keys": "Tab denní / celkový / nejlepší · t nejlepší · Esc zpět",
        "board_empty": "Na tomto žebříčku zatím nikdo není.",
        "col_name": "jméno",
        "col_penalty": "body",
        "col_hands": "kola",
        "col_won": "výhry",
        "col_played": "zápasy",
        "col_avg": "průměr",
        "col_rating": "hodnocení",
        "col_matches": "zápasy",
        "matches_title": "Vaše dohrané zápasy",
        "matches_keys": "↑↓ vybrat · Enter přehrát · Esc zpět",
        "matches_none": "Zatím nemáte žádné dohrané zápasy.",
        "replay_title": "Záznam {id} · krok {i}/{n} · kolo {h}/{hands}",
        "replay_keys": "←→ krok · PgUp PgDn kolo · Home End · Esc zpět",
        "replay_all_open": "Všechny ruce odkryté",
        "lost": "Spojení ztraceno. Znovu se připojuji…",
        "back_online": "Znovu připojeno.",
        "kicked": "Hostitel vás z místnosti odebral.",
        "left_room": "Odešli jste z místnosti {code}.",
        "joined_note": "Sedíte na místě {n} v místnosti {code}.",
        "watch_note": "Sledujete místnost {code}.",
        "stale_token": "Uložené místo už není vaše; připojili jste se jako nový hráč.",
        "leave_again": "Stiskněte l znovu a místo nadobro opustíte (Esc: zůstat).",
        "help_title": "Klávesy",
        "help": (
            "Hra: ←/→ po kartách v ruce, Enter nebo mezerník kartu vybere;\n"
            "  nebo napište její kód: 7 a pak c je 7♣, 10 nebo t je desítka, a j q k.\n"
            "  m a klávesa hromádky vybere hromádku k přesunu celé.\n"
            "Hromádky: jejich klávesy jsou rozložené jako stůl:\n"
            "  7 NW   8 N   9 NE\n"
            "  4 W          6 E\n"
            "  1 SW   2 S   3 SE\n"
            "  Zvýrazněné hromádky (▸) jsou ty, kam vybraná karta smí.\n"
            "  Funguje i kliknutí na kartu nebo hromádku.\n"
            "e ukončí tah · d dobere · h nápověda (jen ukáže) · Esc zruší výběr\n"
            "c chat (Enter odešle, Esc zpět) · n další kolo · r odveta\n"
            "b vezme místo zpět botovi · l l odejít nadobro · Ctrl+Q konec\n"
            "(na své místo se vrátíte s --join KÓD)\n"
            "Čekárna (hostitel): s začít · a N bot · k N odebrat · d f + - p x\n"
            "Esc nebo ? nápovědu zavře."
        ),
    },
}


def t(lang: str, key: str, **params: Any) -> str:
    """The text ``key`` in ``lang`` (English when the language is unknown)."""
    template = TEXTS.get(lang, TEXTS["en"]).get(key) or TEXTS["en"][key]
    return template.format_map(params) if params else template


__all__ = ["TEXTS", "t"]
