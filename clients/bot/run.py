"""``kings-corner bot``: a bot that plays over the network like any other client.

It connects, gets a seat (joins a room by code, creates one, or quick-plays), and on each of
its turns asks a :mod:`protocol.bots` level for an action, deciding only from the document
its own connection receives (its seat's view). It stops when the match is over.

Typical use::

    kings-corner bot --url ws://127.0.0.1:8000/ --join K7QMXA --level hard
    kings-corner bot --create --seats 2 --target 25      # prints the code, starts when full
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import logging
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from clients.net import GameClient, ServerError
from protocol.bots import LEVELS, Bot, make_bot

log = logging.getLogger("kings_corner.bot")

Mode = Literal["join", "create", "quick"]
DEFAULT_URL = "ws://127.0.0.1:8000/"
#: One wait on the connection; waiting simply starts again after it.
_WAIT = 30.0


@dataclass(frozen=True, slots=True)
class BotConfig:
    """Everything one networked bot needs to know."""

    url: str = DEFAULT_URL
    name: str = "Bot"
    level: str = "medium"
    seed: str | None = None
    mode: Mode = "join"
    room: str | None = None
    seat: int | None = None
    seats: int = 4
    target: int = 25
    #: As host (``create``): start once every seat is taken, or after ``wait`` seconds
    #: with ``fill`` bots in the empty seats (``wait`` None: wait for people forever).
    wait: float | None = None
    fill: str = "medium"
    #: Ask for the next hand at once instead of waiting for the server's pause.
    hurry: bool = False
    #: Seconds to wait before each action, so people can follow (and the server's rate
    #: limit is never reached).
    delay: float = 0.5


def _ready(client: GameClient) -> bool:
    """Something for the bot to do: its turn, a finished hand or match, or the doc is gone."""
    game = client.game
    if client.doc is None or game is None:
        return client.doc is None
    return bool(game["phase"] != "playing" or game.get("legal"))


def _dealt_after(hand_no: int) -> Callable[[GameClient], bool]:
    """A check that hand ``hand_no`` is no longer the one being shown as over."""

    def dealt(c: GameClient) -> bool:
        g = c.game
        return g is None or g["phase"] != "hand_over" or g["hand_no"] != hand_no

    return dealt


async def wait_until(client: GameClient, check: Callable[[GameClient], bool]) -> None:
    """Wait as long as it takes for ``check(client)`` (a closed connection raises)."""
    while True:
        try:
            await client.until(check, timeout=_WAIT)
            return
        except TimeoutError:
            continue


async def play(
    client: GameClient, bot: Bot, *, hurry: bool = False, delay: float = 0.0
) -> dict[str, Any]:
    """Play the connection's seat with ``bot`` until the match is finished; returns the
    final game view. Only ``client``'s own document is read. ``delay`` seconds pass
    before each action."""
    asked_next: int | None = None
    while True:
        await wait_until(client, lambda c: c.doc is None or c.game is not None)
        await wait_until(client, _ready)
        game = client.game
        if game is None:
            raise ConnectionError("The room is gone (left or closed).")
        phase = game["phase"]
        if phase == "finished":
            return game
        if phase == "hand_over":
            if hurry and asked_next != game["hand_no"]:
                asked_next = game["hand_no"]
                await client.send({"type": "next_hand"})
            await wait_until(client, _dealt_after(game["hand_no"]))
            continue
        if delay > 0:
            await asyncio.sleep(delay)
            game = client.game
            if game is None or game["phase"] != "playing" or not game.get("legal"):
                continue
        loop = asyncio.get_running_loop()
        action = await loop.run_in_executor(None, bot.choose, dict(game))
        try:
            reply = await client.act(action.text())
        except ServerError as exc:
            # Refused without a seq: rate limited (or the like); back off and look again.
            log.info("action %s refused: %s", action.text(), exc)
            await asyncio.sleep(1.0)
            continue
        if reply["type"] == "error":
            # The state moved on (e.g. a turn timer played for us): look again.
            log.info("action %s refused: %s", action.text(), reply["message"])
            await asyncio.sleep(0.05)


async def lobby(client: GameClient, config: BotConfig) -> None:
    """Until the match starts: say ready, and as the room's host start it once every seat
    is taken and every person is ready (or, with ``config.wait``, after that many seconds,
    with ``config.fill`` bots in the empty seats)."""
    loop = asyncio.get_running_loop()
    deadline = None if config.wait is None else loop.time() + config.wait
    ready_asked = start_asked = -1
    while True:
        doc = client.doc
        if doc is None or doc["game"] is not None:
            return
        room, me, version = doc["room"], client.seat, client.version
        seats: list[dict[str, Any] | None] = room["seats"]
        mine = seats[me] if me is not None and me < len(seats) else None
        host = room.get("host") == me
        if mine is not None and not host and mine.get("ready") is False and ready_asked != version:
            ready_asked = version
            await client.send({"type": "ready", "ready": True})
        late = deadline is not None and loop.time() >= deadline
        if host and me is not None and start_asked != version:
            everyone_ready = all(
                s is None or s["kind"] != "human" or i == me or s.get("ready", True)
                for i, s in enumerate(seats)
            )
            full = all(seats)
            if everyone_ready and (full or late):
                start_asked = version
                await client.send({"type": "start", "fill": None if full else config.fill})
        wait = _WAIT if deadline is None or late else max(0.01, deadline - loop.time())
        with contextlib.suppress(TimeoutError):
            await client.until(_changed_since(version), timeout=min(wait, _WAIT))


def _changed_since(version: int) -> Callable[[GameClient], bool]:
    return lambda c: c.doc is None or c.version != version


async def enter(client: GameClient, config: BotConfig, on_room: Callable[[str], None]) -> None:
    """Get a seat as ``config.mode`` says; calls ``on_room(code)`` once seated."""
    if config.mode == "create":
        await client.create(seats=config.seats, target=config.target)
    elif config.mode == "join":
        if config.room is None:
            raise ValueError("joining needs a room code")
        await client.join(config.room.upper(), config.seat)
    else:
        await client.request({"type": "quick_play", "seats": config.seats}, "queued")
    await wait_until(client, lambda c: c.room is not None and c.doc is not None)
    assert client.room is not None
    on_room(client.room)


async def run_bot(
    config: BotConfig,
    *,
    on_room: Callable[[str], None] | None = None,
    client: GameClient | None = None,
) -> dict[str, Any]:
    """Connect, take a seat, play until the match ends, and disconnect; returns the final
    game view. ``on_room`` hears the room code as soon as the bot is seated."""
    bot = make_bot(config.level, config.seed)
    own = client is None
    if client is None:
        client = GameClient(config.url, config.name, reconnect=True, move_to_room=True)
        # A bot sent to a room by code names it in the URL: the room's own process.
        await client.connect(room=config.room if config.mode == "join" else None)
    try:
        await enter(client, config, on_room or (lambda code: None))
        await lobby(client, config)
        return await play(client, bot, hurry=config.hurry, delay=config.delay)
    finally:
        if own:
            await client.close()


def parser() -> argparse.ArgumentParser:
    """The command-line options of ``kings-corner bot``."""
    p = argparse.ArgumentParser(prog="kings-corner bot", description="A networked bot player.")
    p.add_argument("--url", default=DEFAULT_URL, help=f"server WebSocket URL ({DEFAULT_URL})")
    p.add_argument("--name", default=None, help="display name (default: the level)")
    p.add_argument("--level", choices=LEVELS, default="medium")
    p.add_argument("--seed", default=None, help="seed the bot's choices")
    how = p.add_mutually_exclusive_group(required=True)
    how.add_argument("--join", metavar="CODE", help="join room CODE")
    how.add_argument("--create", action="store_true", help="create a room and host it")
    how.add_argument("--quick", metavar="SEATS", type=int, choices=(2, 3, 4), help="quick play")
    p.add_argument("--seat", type=int, help="with --join: the seat to take (1-based)")
    p.add_argument("--seats", type=int, default=4, choices=(2, 3, 4), help="with --create")
    p.add_argument("--target", type=int, default=25, help="with --create")
    p.add_argument(
        "--wait",
        type=float,
        default=None,
        help="with --create: start after this many seconds, bots filling empty seats "
        "(default: wait until every seat is taken)",
    )
    p.add_argument("--fill", choices=LEVELS, default="medium", help="level of filling bots")
    p.add_argument("--hurry", action="store_true", help="deal the next hand at once")
    p.add_argument(
        "--delay", type=float, default=0.5, help="seconds to wait before each action (0.5)"
    )
    p.add_argument("-v", "--verbose", action="store_true")
    return p


def config_from(args: argparse.Namespace) -> BotConfig:
    mode: Mode = "join" if args.join else "create" if args.create else "quick"
    return BotConfig(
        url=args.url,
        name=(args.name or f"{args.level} bot")[:24],
        level=args.level,
        seed=args.seed,
        mode=mode,
        room=args.join,
        seat=args.seat - 1 if args.seat else None,
        seats=args.quick or args.seats,
        target=args.target,
        wait=args.wait,
        fill=args.fill,
        hurry=args.hurry,
        delay=max(0.0, args.delay),
    )


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of ``kings-corner bot``: 0 when the match was played to its end."""
    args = parser().parse_args(list(sys.argv[1:] if argv is None else argv))
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING,
        format="%(asctime)s %(levelname)s %(name)s %(message)s",
    )
    config = config_from(args)

    def seated(code: str) -> None:
        print(f"{config.name} is in room {code}", flush=True)

    try:
        game = asyncio.run(run_bot(config, on_room=seated))
    except KeyboardInterrupt:
        return 130
    except (OSError, ServerError, ConnectionError) as exc:
        print(f"kings-corner bot: {exc}", file=sys.stderr)
        return 1
    totals = ", ".join(str(t) for t in game["totals"])
    winners = game["winners"] or []
    won = "won" if game.get("you") in winners else "did not win"
    print(f"Match over: totals {totals}; {config.name} {won}.", flush=True)
    return 0


__all__ = ["BotConfig", "main", "play", "run_bot", "wait_until"]
