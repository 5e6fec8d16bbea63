"""Fuzzing a live server with games in progress.

Hypothesis generates the messages up front (in one event loop, no drawing inside the
test); one async test then sends them over real connections, each from a context in which
the message must be refused: before hello, outside any room, seated but not on turn, as a
spectator, in a finished room, in a full lobby. Every message must be answered with an
``error`` carrying the expected code (and the act's ``seq``), or close the connection with
the expected code. Meanwhile a game between two scripted people and a game between bots
must keep going, and no room the fuzzing connections sit in may change at all.

``KC_LONG_TESTS=1`` sends ten times as many examples.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
import statistics
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, TypeVar

import orjson
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st
from websockets.asyncio.client import connect

from clients.net import GameClient
from protocol.codec import decode_client
from protocol.engine import PILES, action_from_text
from protocol.errors import BadMessage
from protocol.messages import (
    Act,
    AddBot,
    Back,
    CancelQuickPlay,
    Chat,
    ClientMessage,
    Configure,
    Create,
    Hello,
    Hint,
    Join,
    Kick,
    Leave,
    ListRooms,
    Lock,
    NextHand,
    QuickPlay,
    Ready,
    Rematch,
    RemoveBot,
    Resync,
    Sit,
    Start,
)
from server.app import HARD_CAP, GameServer, port_of

from .helpers import LONG, UNIT, Clients, fast_settings, play_moves, serving, table
from .rawws import BINARY, CLOSE, CONTINUATION, PING, TEXT, RawClient

T = TypeVar("T")

EXAMPLES = 20_000 if LONG else 2_000
RAW_EXAMPLES = 2_000 if LONG else 200
MAX_MESSAGE = 4096
#: Past this the server stops reading and closes (1009); between the two it answers.
CLOSING_SIZE = HARD_CAP * MAX_MESSAGE
RULE_CODES = frozenset({"bad_action", "not_your_turn"})
#: No rate limit (it has tests of its own); bots that move fifty times a second.
# The rate and failed-join limits are tests of their own (test_limits, test_join_guessing).
FUZZ_SETTINGS = fast_settings(
    max_message=MAX_MESSAGE,
    rate=1e9,
    burst=10**9,
    join_failures=10**6,
    join_address_burst=10**9,
    bot_delay=0.02,
    hand_pause=0.05,
)
CONTEXTS = ("fresh", "outside", "seated", "spectator", "finished", "lobby")


def pregenerate(strategy: st.SearchStrategy[T], count: int) -> list[T]:
    """Let Hypothesis generate ``count`` values (reproducibly) before any I/O happens."""
    out: list[T] = []

    @settings(
        max_examples=count,
        database=None,
        derandomize=True,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(strategy)
    def collect(value: T) -> None:
        out.append(value)

    collect()
    return out


# --- the world the fuzzing happens in ---------------------------------------------------------


@dataclass
class World:
    """Rooms in known states and the clients that keep them so."""

    game: GameServer
    pool: Clients
    playing: str = ""  # two people, frozen: nobody moves
    finished: str = ""  # a finished match
    lobby: str = ""  # both seats taken, not started
    humans: str = ""  # control: two scripted people keep playing
    bots: str = ""  # control: four bots keep playing
    tokens: dict[str, set[str]] = field(default_factory=dict)
    seated_token: str = ""  # the seat in ``playing`` that is not on turn
    finished_token: str = ""
    mover_seat: int = 0
    mover_legal: list[dict[str, Any]] = field(default_factory=list)
    anchors: list[GameClient] = field(default_factory=list)
    docs: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def frozen(self) -> tuple[str, str, str]:
        return (self.playing, self.finished, self.lobby)

    @property
    def codes(self) -> list[str]:
        return [self.playing, self.finished, self.lobby, self.humans, self.bots]


async def build_world(game: GameServer, pool: Clients) -> World:
    world = World(game, pool)
    # A match in progress that nobody moves in. Dealer 1 of 2 makes seat 0 (the host)
    # move first, so the fuzzing seat 1 is neither on turn nor host.
    a, b = await table(pool, 2, seats=2, target=500, dealer=1)
    assert a.seat == 0 and a.my_turn and not b.my_turn
    world.playing, world.seated_token = a.room or "", b.token or ""
    world.mover_seat = 0
    legal = a.game["legal"] if a.game else []
    world.mover_legal = [action_from_text(t).wire() for t in legal]
    # A finished match; seat 1 is not the host either.
    c, d = await table(pool, 2, seats=2, target=1)
    await play_moves([c, d], random.Random(1), 5000)
    assert c.game is not None and c.game["phase"] == "finished" and d.seat == 1
    world.finished, world.finished_token = c.room or "", d.token or ""
    # A full lobby.
    e = await pool.new("E")
    world.lobby = await e.create(seats=2)
    f = await pool.new("F")
    await f.join(world.lobby)
    world.anchors = [a, b, c, d, e, f]
    for p in world.anchors:
        world.tokens.setdefault(p.room or "", set()).add(p.token or "")
    rooms = game.lobby.rooms
    world.docs = {
        "seated": rooms[world.playing].room.doc(1),
        "spectator": rooms[world.playing].room.doc(None),
        "finished": rooms[world.finished].room.doc(1),
        "lobby": rooms[world.lobby].room.doc(None),
    }
    return world


class Unintroduced(GameClient):
    """A client that connects without saying hello."""

    async def connect(self) -> GameClient:
        self.ws = await connect(self.url, max_size=2**20)
        self._reader = asyncio.create_task(self._read())
        return self


async def connect_as(world: World, context: str) -> GameClient:
    """A fresh connection in ``context``."""
    c = Unintroduced(world.pool.url, "Fuzz") if context == "fresh" else GameClient(world.pool.url)
    world.pool.made.append(c)
    await c.connect()
    if context == "seated":
        await c.join(world.playing, token=world.seated_token)
    elif context == "spectator":
        await c.join(world.playing, spectate=True)
    elif context == "finished":
        await c.join(world.finished, token=world.finished_token)
    elif context == "lobby":
        await c.join(world.lobby, spectate=True)
    return c


# --- what must happen: the oracle --------------------------------------------------------------


@dataclass(frozen=True)
class Refused:
    codes: frozenset[str]
    seq: int | None = None


@dataclass(frozen=True)
class Closed:
    codes: frozenset[int]


Outcome = Refused | Closed | None  # None: a legitimate message, not sent


def cleaned(text: str) -> str:
    """The documented cleaning of names and chat: control characters out, blanks trimmed."""
    return "".join(ch for ch in text if ch.isprintable()).strip()


def expected(world: World, context: str, payload: str | bytes) -> Outcome:
    """What the server must do with ``payload`` from a connection in ``context``."""
    raw = payload.encode() if isinstance(payload, str) else payload
    if len(raw) > CLOSING_SIZE:
        return Closed(frozenset({1009}))
    if isinstance(payload, bytes) or len(raw) > MAX_MESSAGE:  # binary, or too_large
        return Refused(frozenset({"bad_message"}))  # binary frames are never read
    try:
        message = decode_client(payload)
    except BadMessage:
        return Refused(frozenset({"bad_message"}))
    outcome = expected_for(world, context, message)
    if isinstance(outcome, Refused) and isinstance(message, Act):
        return Refused(outcome.codes, message.seq)  # every refusal of an act echoes its seq
    return outcome


def expected_for(world: World, context: str, message: ClientMessage) -> Outcome:
    def no(*codes: str) -> Refused:
        return Refused(frozenset(codes))

    if isinstance(message, Hello):
        if context != "fresh":
            return no("bad_phase")  # a connection says hello once
        return None if message.version in (1, 2) else no("unsupported_version")
    if context == "fresh":
        return no("hello_first")
    in_room = context != "outside"
    seated = context in ("seated", "finished")
    if isinstance(message, Create | QuickPlay):
        return no("already_in_room") if in_room else None
    if isinstance(message, Join):
        if in_room:
            return no("already_in_room")
        code = message.room.upper()
        if code not in world.codes:
            return no("room_not_found")
        if message.token is not None:
            return None if message.token in world.tokens.get(code, set()) else no("bad_token")
        if message.spectate:
            return None
        return no("room_full", "seat_taken", "bad_phase")
    if isinstance(message, CancelQuickPlay | ListRooms | Resync | Leave):
        return None  # legitimate (a leave would give a seat away: not sent)
    if not in_room:
        return no("not_in_room")
    if isinstance(message, Chat):
        return None if cleaned(message.text) else no("bad_message")
    if isinstance(message, Act):
        codes = {
            "seated": RULE_CODES,
            "spectator": {"bad_action", "not_seated"},
            "finished": {"bad_action", "match_over"},
            "lobby": {"bad_action", "not_seated"},
        }[context]
        return Refused(frozenset(codes))
    if isinstance(message, Sit):
        # Spectators' refused sits are pinned in test_findings.py; only seated players'
        # sits are fuzzed here.
        return no("bad_phase") if seated else None
    # Which refusal wins (docs/protocol.md): not_seated, then not_host, then the phase. The
    # seated contexts are seat 1's, not the host's.
    if not seated:
        if isinstance(message, Start | NextHand | Hint | Ready | Configure | AddBot):
            return no("not_seated")
        if isinstance(message, RemoveBot | Lock | Kick | Rematch | Back):
            return no("not_seated")
    if isinstance(message, Start | Configure | AddBot | RemoveBot | Lock | Kick):
        return no("not_host")
    if isinstance(message, NextHand):
        return no("hand_in_progress") if context == "seated" else no("match_over")
    if isinstance(message, Hint):
        return None if context == "seated" else no("match_over")
    if isinstance(message, Ready):
        return no("bad_phase")
    if isinstance(message, Rematch):
        if message.force:
            return no("not_host")
        return None if context == "finished" else no("bad_phase")  # a vote is legitimate
    if isinstance(message, Back):
        return None if context == "seated" else no("bad_phase")  # seated: a no-op
    raise AssertionError(f"no expectation for {message!r}")


# --- the messages -------------------------------------------------------------------------------

# A fixed alphabet keeps generation fast; it holds what matters to a parser and a cleaner:
# quotes and backslashes, control and invisible characters, non-ASCII, astral planes.
ALPHABET = (
    "abcXYZ019 _-.,:;!?'\"\\/{}[]<>&%#"
    "\x00\x07\x08\t\n\r\x1b\x7f\x85\xa0\u200b\u200e\u202e\u2028\u2029\ufeff"
    "éÑß漢字🂡😀"
)
CONTROLS = "\x00\x07\x08\t\n\r\x1b\x7f\x85\u200b\u200e\u202e\u2028\u2029\ufeff "
texts = st.text(ALPHABET, max_size=24)
ints = st.integers(min_value=-(2**63), max_value=2**63 - 1)
scalars = st.none() | st.booleans() | ints | st.floats(allow_nan=False) | texts
# JSON values two levels deep (deeper nesting has frames of its own below).
values = st.one_of(
    scalars,
    st.lists(scalars, max_size=3),
    st.dictionaries(texts, scalars, max_size=3),
    st.lists(
        st.lists(scalars, max_size=2) | st.dictionaries(texts, scalars, max_size=2), max_size=2
    ),
)
controls = st.text(CONTROLS, min_size=1, max_size=8)
cards = st.sampled_from(["AH", "10C", "KS", "7D", "ZZ", "1H", "QX", ""]) | texts
piles = st.sampled_from(PILES) | texts
levels = st.sampled_from(["random", "heuristic", "easy", "medium", "hard", "expert", "god"])
seqs = st.sampled_from([0, 1, 2, 3, 2**53, 2**53 + 1, -1]) | ints


def messages(world: World) -> st.SearchStrategy[dict[str, Any]]:
    """Plausible client messages, many of them wrong in some way."""
    real_tokens = sorted(t for ts in world.tokens.values() for t in ts)
    codes = (
        st.sampled_from(world.codes)
        | st.sampled_from(world.codes).map(str.lower)
        | st.text("ACDEFGHJKMNPQRTUVWXY34679", min_size=6, max_size=6)
        | texts
    )
    tokens = (
        st.sampled_from(real_tokens)  # a real token, usually of another room
        | st.sampled_from(real_tokens).map(lambda t: t[:-1] + ("A" if t[-1] != "A" else "B"))
        | st.text(min_size=0, max_size=70)
    )
    actions = (
        st.sampled_from(world.mover_legal or [{"type": "end_turn"}])  # another seat's move
        | st.fixed_dictionaries({"type": st.just("play"), "card": cards, "pile": piles})
        | st.fixed_dictionaries({"type": st.just("move"), "from": piles, "to": piles})
        | st.just({"type": "end_turn"})
        | st.just({"type": "draw"})
        | values
    )
    options = st.fixed_dictionaries(
        {},
        optional={
            "seats": st.integers(0, 6) | values,
            "target": st.integers(-1, 600) | values,
            "draw": st.sampled_from(["end", "start", "until_playable", "middle"]),
            "bots": st.lists(levels | st.none(), max_size=6),
            "turn_timer": st.floats(-1, 5000) | st.none(),
            "decks": st.lists(st.lists(cards, max_size=3), max_size=2),
            "dealer": st.integers(-1, 5),
        },
    )
    return st.one_of(
        st.fixed_dictionaries(
            {"type": st.just("hello"), "version": st.integers(-2, 5) | values},
            optional={"name": texts | controls | values},
        ),
        st.fixed_dictionaries(
            {"type": st.just("create")}, optional={"options": options, "spectate": st.booleans()}
        ),
        st.fixed_dictionaries(
            {"type": st.just("join"), "room": codes},
            optional={
                "seat": st.integers(-1, 5) | values,
                "spectate": st.booleans() | values,
                "token": tokens,
            },
        ),
        st.fixed_dictionaries({"type": st.just("sit"), "seat": st.integers(-1, 5) | values}),
        st.fixed_dictionaries({"type": st.just("start")}, optional={"fill": levels | values}),
        st.fixed_dictionaries({"type": st.just("act"), "seq": seqs, "action": actions}),
        st.fixed_dictionaries({"type": st.just("chat"), "text": texts | controls | values}),
        st.fixed_dictionaries({"type": st.just("quick_play")}, optional={"seats": values}),
        st.sampled_from(
            [
                {"type": kind}
                for kind in (
                    "next_hand",
                    "resync",
                    "leave",
                    "cancel_quick_play",
                    "list_rooms",
                    "hint",
                    "back",
                )
            ]
        ),
        st.fixed_dictionaries({"type": st.just("ready")}, optional={"ready": values}),
        st.fixed_dictionaries({"type": st.just("configure"), "options": options | values}),
        st.fixed_dictionaries(
            {"type": st.sampled_from(["add_bot", "remove_bot", "kick"])},
            optional={"seat": st.integers(-1, 4) | values, "level": levels | values},
        ),
        st.fixed_dictionaries({"type": st.just("lock")}, optional={"locked": values}),
        st.fixed_dictionaries({"type": st.just("rematch")}, optional={"force": values}),
    )


@st.composite
def mutated(
    draw: Callable[..., Any], plausible: st.SearchStrategy[dict[str, Any]], mover_seat: int
) -> dict[str, Any]:
    """A message, sometimes with a key dropped, added (an act ``seat`` for another seat
    among them), or its type replaced."""
    message = dict(draw(plausible))
    how = draw(st.integers(0, 5))
    if how == 1 and len(message) > 1:
        del message[draw(st.sampled_from(sorted(k for k in message if k != "type")))]
    elif how == 2:
        message[draw(texts)] = draw(values)
    elif how == 3:
        message["seat"] = mover_seat  # acting "for" another seat
    elif how == 4:
        message["type"] = draw(texts | values)
    return message


def frames(world: World) -> st.SearchStrategy[str | bytes]:
    """One frame: text (str) or binary (bytes)."""
    as_message = mutated(messages(world), world.mover_seat)
    as_json = as_message.map(lambda m: orjson.dumps(m).decode())
    nested = st.integers(10, 2000).map(lambda n: "[" * n + "]" * n)
    return st.one_of(
        as_json,
        as_json,
        as_json,
        as_message.map(orjson.dumps),  # the same, in a binary frame
        values.map(lambda v: orjson.dumps(v).decode()),  # JSON, but rarely an object
        texts,  # not JSON
        st.binary(max_size=64),  # not even text
        nested,
        nested.map(lambda n: '{"type": "chat", "text": ' + n[:4000] + "}"),
        st.integers(MAX_MESSAGE - 30, MAX_MESSAGE + 2000).map(
            lambda n: '{"type": "chat", "text": "' + "x" * n + '"}'
        ),
    )


def examples(world: World) -> st.SearchStrategy[tuple[str, list[str | bytes]]]:
    return st.tuples(st.sampled_from(CONTEXTS), st.lists(frames(world), min_size=1, max_size=5))


# --- the control games ----------------------------------------------------------------------------


@dataclass
class Control:
    """Two scripted people keep playing; every action is timed."""

    players: list[GameClient]
    latencies: list[float] = field(default_factory=list)
    stop: asyncio.Event = field(default_factory=asyncio.Event)

    async def run(self) -> None:
        rng = random.Random(7)
        while not self.stop.is_set():
            game = self.players[0].game
            assert game is not None
            if game["phase"] == "finished":
                return
            mover = next((p for p in self.players if p.my_turn), None)
            if mover is None:
                await asyncio.sleep(0.005)
                continue
            started = time.monotonic()
            reply = await mover.act(rng.choice(mover.game["legal"]))  # type: ignore[index]
            assert reply["type"] == "patch", reply
            self.latencies.append(time.monotonic() - started)
            await asyncio.sleep(0.02)  # a brisk human, not a flood

    async def played(self, moves: int, timeout: float = 200 * UNIT) -> None:
        """Wait until the control game has made ``moves`` moves (or ``timeout`` passed)."""
        deadline = time.monotonic() + timeout
        while len(self.latencies) < moves and time.monotonic() < deadline:
            await asyncio.sleep(0.01)


async def start_controls(world: World) -> tuple[Control, GameClient]:
    people = await table(world.pool, 2, seats=2, target=500)
    world.humans = people[0].room or ""
    control = Control(people)
    # Bots only: the host starts with three bots, then leaves (a bot takes its seat) and
    # watches.
    host = await world.pool.new("Host")
    world.bots = await host.create(
        seats=4, target=500, bots=[None, "random", "heuristic", "random"]
    )
    await host.start()
    await host.request({"type": "leave"}, "left")
    await host.join(world.bots, spectate=True)
    return control, host


# --- the test ----------------------------------------------------------------------------------


def answers(c: GameClient, start: int) -> list[dict[str, Any]]:
    """Frames received since ``start`` other than patches (which frozen rooms never send)."""
    return [f for f in c.frames[start:] if f["type"] != "patch"]


async def send_example(c: GameClient, items: list[tuple[str | bytes, Refused | Closed]]) -> None:
    """Send the refused frames back to back and check their answers in order; then the
    frame that must close the connection, if any (alone: a close may overtake answers)."""
    assert c.ws is not None
    refusals = [(p, o) for p, o in items if isinstance(o, Refused)]
    closing = next(((p, o) for p, o in items if isinstance(o, Closed)), None)
    if closing is not None:  # nothing after it is ever read
        refusals = refusals[: items.index(closing)]
    start = len(c.frames)
    for payload, _ in refusals:
        await c.ws.send(payload)
    try:
        await c.until(lambda cl: len(answers(cl, start)) >= len(refusals), timeout=50 * UNIT)
    except ConnectionError:
        raise AssertionError(f"closed with {c.close_code} while refusals were due") from None
    for (payload, outcome), reply in zip(refusals, answers(c, start), strict=True):
        assert isinstance(outcome, Refused)
        ok = (
            reply["type"] == "error"
            and reply["code"] in outcome.codes
            and reply["seq"] == outcome.seq
            and reply["message"]
        )
        assert ok, f"{payload!r}: expected {outcome}, got {reply}"
    if closing is not None:
        payload, shut = closing
        assert isinstance(shut, Closed)
        await c.ws.send(payload)
        with contextlib.suppress(ConnectionError):
            await c.until(lambda cl: False, timeout=50 * UNIT)
        assert c.close_code in shut.codes, f"{payload!r}: closed with {c.close_code}"


async def still_where_it_was(world: World, context: str, c: GameClient) -> None:
    """After refusals, the connection is exactly where it was."""
    if context in ("fresh", "outside"):
        await c.send({"type": "resync"})
        reply = await c.wait_for(lambda f: True, timeout=50 * UNIT)
        assert reply.get("code") == ("hello_first" if context == "fresh" else "not_in_room")
        return
    await c.send({"type": "resync"})
    snap = await c.wait_for(lambda f: f["type"] == "snapshot", timeout=50 * UNIT)
    assert snap["doc"] == world.docs[context], context


async def test_fuzzed_messages_are_refused_and_change_nothing() -> None:
    async with serving(FUZZ_SETTINGS) as game:
        pool = Clients(game)
        try:
            await fuzz(game, pool)
        finally:
            await pool.close()


async def fuzz(game: GameServer, pool: Clients) -> None:
    world = await build_world(game, pool)
    control, watcher = await start_controls(world)
    logs = {code: await game.store.read(code) for code in world.frozen}
    seen = {id(a): len(a.frames) for a in world.anchors}
    bots_before = game.lobby.rooms[world.bots].room.version

    generation = time.monotonic()
    plan = pregenerate(examples(world), EXAMPLES)
    generation = time.monotonic() - generation
    runner = asyncio.create_task(control.run())
    try:
        sent, skipped, took = await send_plan(world, plan)
        # However fast the plan went, both control games are still being served after it.
        await control.played(20)
        deadline = time.monotonic() + 200 * UNIT
        while (
            game.lobby.rooms[world.bots].room.version <= bots_before + 50
            and time.monotonic() < deadline
        ):
            await asyncio.sleep(0.01)
    finally:
        control.stop.set()
        await runner

    # Most messages were sent (the others were legitimate).
    assert sent > 2 * EXAMPLES and skipped < sent / 4, (sent, skipped)
    # No frozen room changed, and nobody in them heard a thing.
    for code in world.frozen:
        assert await game.store.read(code) == logs[code], code
    assert all(len(a.frames) == seen[id(a)] for a in world.anchors)
    # The control games kept going all along.
    assert len(control.latencies) >= 20, len(control.latencies)
    assert statistics.median(control.latencies) < 50 * UNIT
    live_bots = game.lobby.rooms[world.bots]
    assert live_bots.room.version > bots_before + 50
    await watcher.until(lambda c: c.version == live_bots.room.version, timeout=50 * UNIT)
    assert watcher.doc == live_bots.room.doc(None)
    # And a newcomer is served as usual.
    newcomer = await pool.new("New")
    assert len(await newcomer.create(seats=2)) == 6
    print(f"fuzz: {sent} sent in {took:.1f}s, {skipped} skipped, generated in {generation:.1f}s")


async def send_plan(
    world: World, plan: list[tuple[str, list[str | bytes]]]
) -> tuple[int, int, float]:
    """Send every example from a connection in its context; check each answer."""
    started = time.monotonic()
    conns: dict[str, GameClient] = {}
    sent = skipped = 0
    for context, payloads in plan:
        c = conns.get(context)
        if c is None or c.close_code is not None:
            c = conns[context] = await connect_as(world, context)
        items: list[tuple[str | bytes, Refused | Closed]] = []
        for payload in payloads:
            outcome = expected(world, context, payload)
            if outcome is None:
                skipped += 1
            else:
                items.append((payload, outcome))
        try:
            await send_example(c, items)
        except AssertionError as exc:
            raise AssertionError(f"in context {context}: {exc}") from None
        sent += len(items)
        if c.close_code is None:
            await still_where_it_was(world, context, c)
    return sent, skipped, time.monotonic() - started


# --- broken WebSocket framing ---------------------------------------------------------------------


@dataclass(frozen=True)
class BadFrame:
    """A frame a correct client never sends, and the close codes it may earn."""

    opcode: int
    payload: bytes
    fin: bool = True
    rsv: int = 0
    mask: bool = True
    codes: frozenset[int] = frozenset({1002})


def bad_frames() -> st.SearchStrategy[BadFrame]:
    data = st.binary(max_size=40)
    protocol_error = frozenset({1002})
    invalid_utf8 = st.sampled_from([b"\xff", b"\xc3\x28", b"\xed\xa0\x80", b"\xf8\x88\x80\x80"])
    return st.one_of(
        # Text that is not UTF-8.
        st.tuples(data, invalid_utf8, data).map(
            lambda t: BadFrame(TEXT, t[0] + t[1] + t[2], codes=frozenset({1007}))
        ),
        # Reserved bits without an extension that defines them.
        st.tuples(st.integers(1, 7), data).map(lambda t: BadFrame(TEXT, t[1], rsv=t[0])),
        # Clients must mask.
        data.map(lambda d: BadFrame(TEXT, d, mask=False)),
        # Opcodes that do not exist.
        st.tuples(st.sampled_from([3, 4, 5, 6, 7, 11, 12, 13, 14, 15]), data).map(
            lambda t: BadFrame(t[0], t[1])
        ),
        # Control frames may not be fragmented nor longer than 125 bytes.
        data.map(lambda d: BadFrame(PING, d, fin=False)),
        st.binary(min_size=126, max_size=300).map(lambda d: BadFrame(PING, d)),
        # A continuation with nothing to continue.
        data.map(lambda d: BadFrame(CONTINUATION, d)),
        # Close frames with a one-byte body or a code nobody may send.
        st.just(BadFrame(CLOSE, b"\x03")),
        st.sampled_from([0, 999, 1004, 1005, 1006, 1015, 1016, 2999, 5000]).map(
            lambda code: BadFrame(CLOSE, struct.pack("!H", code), codes=protocol_error)
        ),
        invalid_utf8.map(
            lambda b: BadFrame(CLOSE, struct.pack("!H", 1000) + b, codes=frozenset({1007}))
        ),
        # Bigger than the limit, in one frame or in fragments.
        st.integers(CLOSING_SIZE + 1, CLOSING_SIZE + 2 * MAX_MESSAGE).map(
            lambda n: BadFrame(BINARY, b"x" * n, codes=frozenset({1009}))
        ),
        st.integers(CLOSING_SIZE + 1, CLOSING_SIZE + 2 * MAX_MESSAGE).map(
            lambda n: BadFrame(TEXT, b"x" * n, fin=False, codes=frozenset({1009}))
        ),
    )


async def test_broken_framing_is_closed_with_the_right_code() -> None:
    plan = pregenerate(bad_frames(), RAW_EXAMPLES)
    async with serving(FUZZ_SETTINGS) as game:
        pool = Clients(game)
        try:
            control, _watcher = await start_controls(World(game, pool))
            runner = asyncio.create_task(control.run())
            for bad in plan:
                raw = await RawClient.open(port_of(game))
                try:
                    raw.send_json({"type": "hello", "version": 1, "name": "Raw"})
                    assert (await raw.recv_json())["type"] == "welcome"
                    raw.send_frame(bad.opcode, bad.payload, fin=bad.fin, rsv=bad.rsv, mask=bad.mask)
                    code = await raw.close_code(timeout=50 * UNIT)
                    assert code in bad.codes, (bad, code)
                finally:
                    raw.abort()
            # However fast the plan went, the control game is still being served after it.
            await control.played(10)
            control.stop.set()
            await runner
            assert len(control.latencies) >= 10
        finally:
            await pool.close()
