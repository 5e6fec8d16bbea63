"""A kings-corner client written only from the contract: docs/protocol.md and protocol/schema.json.

It imports nothing of the project (no ``server``, ``protocol`` or ``clients``): what it knows
of the protocol it reads from the two contract files at run time, or from the words of the
docs (cited next to the code that follows them). Everything the server sends is checked:

- every frame it receives validates against the schema's ``ServerMessage``, and every frame it
  sends against ``ClientMessage`` (draft 2020-12, ``$defs`` resolved through a registry);
- its document follows the docs' version rules: a patch applies (with the standard
  ``jsonpatch``) only when ``from`` is its version, else it resyncs; every ``resync_every``
  patches it resyncs and the snapshot must equal its own copy exactly;
- every log entry names an ``ev`` of the docs' events table, with only that row's parameters;
  every ``error`` carries a code of the docs' errors table, with only that row's parameters
  (and, where the docs enumerate a parameter's values, one of those);
- no hidden card reaches it: every card code anywhere in a frame is in its own hand, on the
  table, in ``result.left`` once the hand is over, the ``card`` of a ``played`` log event, or
  a card this client itself sent (a refusal may echo it); spectators never see ``hand``,
  ``legal`` or ``you``; the room's ``seed`` never appears;
- its actions come only from its document's ``legal`` list, mapped to ``act`` as the docs'
  "What a client must get right" says.

A disagreement is not raised at once: it is recorded in :attr:`DocsClient.problems` (what,
expected per the contract, actual, the frame), so a test can report all of them together.
"""

from __future__ import annotations

import asyncio
import copy
import json
import random
import re
from collections import Counter, deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import jsonpatch
import websockets
from jsonschema import Draft202012Validator
from jsonschema.exceptions import best_match
from referencing import Registry, Resource
from websockets.asyncio.client import ClientConnection, connect

REPO = Path(__file__).resolve().parents[2]
SCHEMA_PATH = REPO / "protocol" / "schema.json"
DOCS_PATH = REPO / "docs" / "protocol.md"
SCHEMA_URI = "urn:kings-corner:protocol-schema"

# "a card code (a rank `A`, `2`-`10`, `J`, `Q`, `K`, then a suit `C`, `D`, `H`, `S`)"
CARD = re.compile(r"(?:A|[2-9]|10|J|Q|K)[CDHS]")
# "else a pile name (`N`, `E`, `S`, `W`, `NE`, `SE`, `SW`, `NW`)"
PILES = ("N", "E", "S", "W", "NE", "SE", "SW", "NW")
# "`room.phase` is `lobby` ..., `playing`, `hand_over` ... or `finished`."
ROOM_PHASES = ("lobby", "playing", "hand_over", "finished")
# "decks (a list of 52-code lists ...)": one deck is 52 cards.
DECK_SIZE = 52

Params = dict[str, frozenset[str] | None]

_PARENS = r"\((?:[^()]|\([^()]*\))*\)"
_ITEM = re.compile(rf"`([^`]+)`(\s*{_PARENS})?|{_PARENS}")
_NAME = re.compile(r"[a-z][a-z_]*")
_TICKED = re.compile(r"`([^`]+)`")


def is_card(text: object) -> bool:
    return isinstance(text, str) and CARD.fullmatch(text) is not None


def action_of(text: str) -> dict[str, Any]:
    """A ``legal`` entry as the ``action`` of an ``act``, in the docs' words.

    "`CARD>PILE` (a card code, then a pile: `7H>N`) is {"type": "play", "card": "7H",
    "pile": "N"}; `PILE>PILE` (`N>E`) is {"type": "move", "from": "N", "to": "E"}; `end` is
    {"type": "end_turn"}. The left of `>` is a card when it is a card code ..., else a pile
    name: `S>NE` is a move."
    """
    if text == "end":
        return {"type": "end_turn"}
    left, sep, right = text.partition(">")
    if not sep or right not in PILES:
        raise ValueError(f"not an action in text form: {text!r}")
    if is_card(left):
        return {"type": "play", "card": left, "pile": right}
    if left in PILES:
        return {"type": "move", "from": left, "to": right}
    raise ValueError(f"not an action in text form: {text!r}")


def strings(value: object) -> Iterator[str]:
    """Every string in a JSON value: values, and the keys of objects."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            yield key
            yield from strings(item)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item)


def excerpt(frame: object, limit: int = 400) -> str:
    text = frame if isinstance(frame, str) else json.dumps(frame, sort_keys=True)
    return text if len(text) <= limit else text[:limit] + f"... ({len(text)} chars)"


# --- reading the docs -------------------------------------------------------------------


def section(text: str, heading: str) -> str:
    """The docs from ``heading`` (a whole line) to the next heading of its level or above."""
    lines = text.splitlines()
    level = len(heading) - len(heading.lstrip("#"))
    start = next(i for i, line in enumerate(lines) if line.strip() == heading)
    end = len(lines)
    for i in range(start + 1, len(lines)):
        match = re.match(r"(#+) ", lines[i])
        if match and len(match.group(1)) <= level:
            end = i
            break
    return "\n".join(lines[start:end])


def first_table(text: str) -> list[list[str]]:
    """The rows (header dropped) of the first markdown table in ``text``."""
    rows: list[list[str]] = []
    started = False
    for line in text.splitlines():
        if line.startswith("|"):
            started = True
            cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
            if all(set(cell) <= set("-: ") for cell in cells):
                continue
            rows.append(cells)
        elif started:
            break
    return rows[1:]


def parse_params(cell: str) -> Params:
    """The parameter names of a table cell, each with the values the docs enumerate for it.

    "`reason` (`emptied`/`blocked`), `penalties`" -> {"reason": {"emptied", "blocked"},
    "penalties": None}. Backticked words inside a parenthesis that follows a name are its
    values; other parentheses are prose.
    """
    out: Params = {}
    for match in _ITEM.finditer(cell):
        name = match.group(1)
        if name is None or not _NAME.fullmatch(name):
            continue
        values: frozenset[str] | None = None
        if match.group(2):
            found = [v for v in _TICKED.findall(match.group(2)) if _NAME.fullmatch(v)]
            values = frozenset(found) or None
        if name in out:
            old = out[name]
            out[name] = None if old is None or values is None else old | values
        else:
            out[name] = values
    return out


def table_by_name(rows: list[list[str]], column: int = 1) -> dict[str, Params]:
    """First column: backticked names (several share a row); ``column``: their parameters."""
    table: dict[str, Params] = {}
    for row in rows:
        params = parse_params(row[column]) if len(row) > column else {}
        for name in _TICKED.findall(row[0]):
            if _NAME.fullmatch(name):
                table[name] = params
    return table


def json_blocks(text: str) -> Iterator[tuple[int, object | str]]:
    """Each JSON value in the docs' ```json blocks (with its line), or the text that fails."""
    for block in re.finditer(r"```json\n(.*?)```", text, re.S):
        body = block.group(1)
        line = text.count("\n", 0, block.start()) + 2
        decoder = json.JSONDecoder()
        at = 0
        while True:
            while at < len(body) and body[at].isspace():
                at += 1
            if at >= len(body):
                break
            try:
                value, at = decoder.raw_decode(body, at)
            except json.JSONDecodeError:
                yield line, body[at:]
                break
            yield line, value


@dataclass
class Contract:
    """docs/protocol.md and protocol/schema.json, read once."""

    schema: dict[str, Any]
    docs: str
    #: The version the docs describe (their title) and every version a server accepts.
    version: int
    accepted: tuple[int, ...]
    events: dict[str, Params]
    errors: dict[str, Params]
    client_messages: dict[str, Params]
    server_messages: dict[str, Params]
    room_keys: frozenset[str]
    game_keys: frozenset[str]
    example_doc: dict[str, Any]
    server: Draft202012Validator = field(repr=False)
    client: Draft202012Validator = field(repr=False)
    #: The schema's ``Document``: a snapshot's ``doc``, and my copy after every patch.
    document: Draft202012Validator = field(repr=False)

    @classmethod
    def load(cls, schema_path: Path = SCHEMA_PATH, docs_path: Path = DOCS_PATH) -> Contract:
        schema = json.loads(schema_path.read_text())
        docs = docs_path.read_text()
        registry: Registry[Any] = Registry().with_resource(
            SCHEMA_URI, Resource.from_contents(schema)
        )

        def validator(name: str) -> Draft202012Validator:
            return Draft202012Validator({"$ref": f"{SCHEMA_URI}#/$defs/{name}"}, registry=registry)

        events = table_by_name(
            first_table(section(docs, "### The table log: events, not sentences"))
        )
        errors = table_by_name(first_table(section(docs, "## Errors")))
        client_messages = table_by_name(first_table(section(docs, "## Client messages")))
        server_messages = table_by_name(first_table(section(docs, "## Server messages")))
        # The keys of the document: its example, and every `room.x` / `game.x` the docs name.
        example = next(
            value
            for _, value in json_blocks(
                section(docs, "## Your document: snapshot, patches, versions")
            )
            if isinstance(value, dict) and "room" in value and "game" in value
        )
        named = re.findall(r"\b(room|game)\.([a-z_]+)", docs)
        room_keys = set(example["room"]) | {key for part, key in named if part == "room"}
        game_keys = set(example["game"]) | {key for part, key in named if part == "game"}
        # "# The kings-corner wire protocol (version 2)", and "**Accepted versions**: 2, and 1
        # (deprecated...)".
        title = re.search(r"^# .*\(version (\d+)\)", docs, re.M)
        accepted = re.search(r"^\*\*Accepted versions\*\*: (.+)$", docs, re.M)
        assert title is not None and accepted is not None, "the docs name no version"
        return cls(
            schema=schema,
            docs=docs,
            version=int(title.group(1)),
            accepted=tuple(sorted(int(v) for v in re.findall(r"\b\d+\b", accepted.group(1)))),
            events=events,
            errors=errors,
            client_messages=client_messages,
            server_messages=server_messages,
            room_keys=frozenset(room_keys),
            game_keys=frozenset(game_keys),
            example_doc=example,
            server=validator("ServerMessage"),
            document=validator("Document"),
            client=validator("ClientMessage"),
        )

    @staticmethod
    def _problems(validator: Draft202012Validator, frame: object) -> list[str]:
        errors = list(validator.iter_errors(frame))
        if not errors:
            return []
        best = best_match(errors)
        where = "/".join(str(part) for part in best.absolute_path) or "(frame)"
        return [f"{where}: {best.message}"[:600]]

    def server_problems(self, frame: object) -> list[str]:
        return self._problems(self.server, frame)

    def client_problems(self, frame: object) -> list[str]:
        return self._problems(self.client, frame)

    def event_problems(self, entry: object) -> list[str]:
        """A log entry against the docs' events table."""
        return self._row_problems("log event", entry, "ev", self.events, entry)

    def error_problems(self, frame: dict[str, Any]) -> list[str]:
        """An ``error`` frame against the docs' errors table."""
        return self._row_problems("error", frame, "code", self.errors, frame.get("params") or {})

    @staticmethod
    def _row_problems(
        what: str, item: object, key: str, table: dict[str, Params], params: object
    ) -> list[str]:
        if not isinstance(item, dict) or not isinstance(params, dict):
            return [f"{what} is not an object"]
        name = item.get(key)
        if name not in table:
            return [f"{what} {key} {name!r} is not in the docs table (listed: {sorted(table)})"]
        row = table[name]
        found = []
        extra = sorted(set(params) - set(row) - {key})
        if extra:
            found.append(
                f"{what} {name!r} has parameters {extra} the docs do not list ({sorted(row)})"
            )
        for param, values in row.items():
            value = params.get(param)
            if values is not None and isinstance(value, str) and value not in values:
                found.append(
                    f"{what} {name!r}: {param} {value!r} is not one the docs list "
                    f"({sorted(values)})"
                )
        return found


# --- the client ---------------------------------------------------------------------------


class DocsClient:
    """One connection: hello, a room, a document kept per the docs, actions from ``legal``."""

    def __init__(
        self,
        url: str,
        name: str,
        *,
        contract: Contract | None = None,
        resync_every: int = 10,
        seed: int = 0,
        label: str | None = None,
        secrets: tuple[str, ...] = (),
    ) -> None:
        self.url = url
        self.name = name
        self.label = label or name
        self.contract = contract or Contract.load()
        self.resync_every = resync_every
        self.rng = random.Random(seed)
        self.secrets = secrets
        self.ws: ClientConnection | None = None
        self.welcome: dict[str, Any] | None = None
        self.room: str | None = None
        self.role: str | None = None
        self.seat: int | None = None
        self.token: str | None = None
        self.doc: dict[str, Any] | None = None
        self.version: int | None = None
        self.max_to = -1
        self.after_rewound = False
        self.awaiting_snapshot = False
        self.resyncs: deque[str] = deque()  # why each resync in flight was sent: check | gap
        self.seq = 0
        self.sent_seqs: set[int] = set()
        self.answered: set[int] = set()
        self.pending_act: int | None = None
        self.last_legal_seq: int | None = None
        self.sent_cards: set[str] = set()
        self.applied = 0
        self.stats: Counter[str] = Counter()
        self.errors: list[dict[str, Any]] = []
        self.problems: list[str] = []
        self.problem_counts: Counter[str] = Counter()

    # -- recording ---------------------------------------------------------------------

    def problem(self, what: str, expected: object, actual: object, frame: object = None) -> None:
        """Record a disagreement between the server and the contract (first 3 of a kind)."""
        self.problem_counts[what] += 1
        if self.problem_counts[what] > 3:
            return
        text = f"[{self.label}] {what}: expected {expected}; actual {excerpt(actual, 300)}"
        if frame is not None:
            text += f"; frame {excerpt(frame)}"
        self.problems.append(text)

    def report(self) -> str:
        lines = list(self.problems)
        for what, count in self.problem_counts.items():
            if count > 3:
                lines.append(f"[{self.label}] ... {what}: {count} times in all")
        return "\n".join(lines)

    # -- sending -------------------------------------------------------------------------

    async def connect(self, timeout: float = 5.0, *, hello: bool = True) -> None:
        self.ws = await connect(self.url, open_timeout=timeout, max_size=2**22)
        if hello:
            version = self.contract.version
            await self.send({"type": "hello", "version": version, "name": self.name})
            self.welcome = await self.wait_for(
                lambda f: f.get("type") == "welcome", timeout, "welcome"
            )
            # "The server answers `welcome` with the version it speaks on the connection".
            if self.welcome.get("version") != version:
                self.problem("welcome version", version, self.welcome.get("version"))

    async def send(self, message: dict[str, Any]) -> None:
        """Send a frame that must validate against the schema's ``ClientMessage``."""
        problems = self.contract.client_problems(message)
        if problems:
            raise AssertionError(
                f"[{self.label}] the client would send an invalid frame {message}: {problems}"
            )
        self.sent_cards.update(s for s in strings(message) if is_card(s))
        if message.get("type") == "act":
            self.sent_seqs.add(message["seq"])
        await self.send_raw(json.dumps(message))

    async def send_raw(self, data: str | bytes) -> None:
        """Send anything (to provoke refusals): not validated."""
        assert self.ws is not None
        await self.ws.send(data)

    def next_seq(self) -> int:
        self.seq += 1
        return self.seq

    async def resync(self, purpose: str) -> None:
        self.resyncs.append(purpose)
        self.stats["resyncs"] += 1
        await self.send({"type": "resync"})

    # -- receiving -----------------------------------------------------------------------

    async def next_frame(self) -> dict[str, Any]:
        assert self.ws is not None
        try:
            raw = await self.ws.recv()
        except websockets.ConnectionClosed as closed:
            raise AssertionError(f"[{self.label}] connection closed: {closed}") from closed
        return await self.handle(raw)

    async def wait_for(
        self, predicate: Callable[[dict[str, Any]], bool], timeout: float, what: str
    ) -> dict[str, Any]:
        """Read (and check) frames until one satisfies ``predicate``; at most ``timeout`` s."""
        try:
            async with asyncio.timeout(timeout):
                while True:
                    frame = await self.next_frame()
                    if predicate(frame):
                        return frame
        except TimeoutError:
            raise AssertionError(f"[{self.label}] no {what} within {timeout}s") from None

    async def request(
        self, message: dict[str, Any], kinds: tuple[str, ...], timeout: float = 5.0
    ) -> dict[str, Any]:
        """Send ``message``; its answer is the next frame of one of ``kinds``, or an error."""
        await self.send(message)
        return await self.wait_for(
            lambda f: f.get("type") in (*kinds, "error"), timeout, f"answer to {message['type']}"
        )

    async def handle(self, raw: str | bytes) -> dict[str, Any]:
        self.stats["frames"] += 1
        if isinstance(raw, bytes):
            self.problem("binary frame", "JSON text frames only", raw[:80])
            raw = raw.decode(errors="replace")
        try:
            frame = json.loads(raw)
        except json.JSONDecodeError:
            self.problem("frame is not JSON", "one JSON object per frame", raw)
            return {"type": None}
        if not isinstance(frame, dict):
            self.problem("frame is not an object", "one JSON object tagged by type", frame)
            return {"type": None}
        for found in self.contract.server_problems(frame):
            self.problem("frame does not validate against ServerMessage", "valid", found, frame)
        kind = frame.get("type")
        if self.awaiting_snapshot and kind != "snapshot":
            self.problem("joined not followed by its snapshot", "snapshot", kind, frame)
            self.awaiting_snapshot = False
        extra_cards: set[str] = set()
        handler = getattr(self, f"on_{kind}", None)
        if handler is not None:
            extra_cards = await handler(frame) or set()
        self.check_cards(frame, extra_cards)
        for secret in self.secrets:
            if any(secret in s for s in strings(frame)):
                self.problem(
                    "secret option shown", "seed never shown during the match", secret, frame
                )
        return frame

    # -- handlers --------------------------------------------------------------------------

    async def on_welcome(self, frame: dict[str, Any]) -> None:
        self.welcome = frame

    async def on_joined(self, frame: dict[str, Any]) -> None:
        self.room, self.role = frame.get("room"), frame.get("role")
        self.seat, self.token = frame.get("seat"), frame.get("token")
        self.awaiting_snapshot = True
        if self.role == "spectator" and self.seat is not None:
            self.problem("spectator joined with a seat", "seat null", self.seat, frame)

    async def on_rewound(self, frame: dict[str, Any]) -> None:
        self.after_rewound = True

    async def on_snapshot(self, frame: dict[str, Any]) -> None:
        after_joined, self.awaiting_snapshot = self.awaiting_snapshot, False
        purpose = "joined" if after_joined or not self.resyncs else self.resyncs.popleft()
        if frame.get("room") != self.room:
            self.problem("snapshot of another room", repr(self.room), frame.get("room"), frame)
        version, doc = frame.get("version"), frame.get("doc")
        if purpose == "check":
            self.stats["checks"] += 1
            if version != self.version:
                self.stats["mismatches"] += 1
                self.problem(
                    "resync snapshot at another version than my copy",
                    f"version {self.version} (every version arrives in exactly one patch)",
                    version,
                )
            elif doc != self.doc:
                self.stats["mismatches"] += 1
                diff = jsonpatch.make_patch(self.doc, doc).patch
                self.problem("resync snapshot differs from my patched copy", "equal", diff)
        if isinstance(version, int):
            if not self.after_rewound and version < self.max_to:
                self.problem(
                    "snapshot older than a patch already sent",
                    f"version >= {self.max_to}",
                    version,
                    frame,
                )
            self.max_to = max(self.max_to, version)
        self.after_rewound = False
        self.doc, self.version = copy.deepcopy(doc), version
        self.check_doc(frame)
        if after_joined and self.role == "player" and self.doc is not None:
            seats = self.doc.get("room", {}).get("seats") or []
            mine = (
                seats[self.seat] if isinstance(self.seat, int) and self.seat < len(seats) else None
            )
            if not (isinstance(mine, dict) and mine.get("connected") is True):
                self.problem(
                    "own seat not connected in the first snapshot", "connected: true", mine, frame
                )

    async def on_patch(self, frame: dict[str, Any]) -> set[str]:
        self.stats["patches"] += 1
        # docs: a patch is for the room this connection is in (joined/left frame them).
        if self.room is None:
            self.problem("patch while in no room", "joined first", None, frame)
        self.answer(frame, "patch")
        start, end = frame.get("from"), frame.get("to")
        ops, log = frame.get("ops") or [], frame.get("log") or []
        if isinstance(start, int) and isinstance(end, int):
            if end < start:
                self.problem("patch goes back", "to >= from", f"from {start} to {end}", frame)
            if end == start and (ops or log):
                self.problem("empty patch with content", "from = to: no ops, no log", frame)
            self.max_to = max(self.max_to, end)
        for entry in log:
            self.check_event(entry, frame)
        cards = {e["card"] for e in log if isinstance(e, dict) and e.get("ev") == "played"}
        cards = {c for c in cards if isinstance(c, str)}
        if self.role == "spectator":
            for op in ops:
                path = str(op.get("path", "")) + " " + str(op.get("from", ""))
                if re.search(r"/game/(hand|legal|you)\b", path):
                    self.problem("spectator patch touches hand/legal/you", "never", op, frame)
        if self.doc is None or start != self.version:
            self.stats["gaps"] += 1
            self.problem(
                "patch does not follow my version",
                f"from = {self.version} (each version in exactly one patch)",
                f"from {start}",
                frame,
            )
            if "gap" not in self.resyncs:
                await self.resync("gap")
            return cards | {s for s in strings(ops) if is_card(s)}  # not judged: not applied
        try:
            doc = jsonpatch.apply_patch(self.doc, ops)
        except (jsonpatch.JsonPatchException, jsonpatch.JsonPointerException) as exc:
            self.problem(
                "patch does not apply to my copy", "RFC 6902 ops of my document", str(exc), frame
            )
            if "gap" not in self.resyncs:
                await self.resync("gap")
            return cards
        self.doc, self.version = doc, end
        self.applied += 1
        self.check_doc(frame)
        if self.resync_every and self.applied % self.resync_every == 0 and not self.resyncs:
            await self.resync("check")
        return cards

    async def on_error(self, frame: dict[str, Any]) -> None:
        self.errors.append(frame)
        self.stats[f"error:{frame.get('code')}"] += 1
        for found in self.contract.error_problems(frame):
            self.problem(
                "error frame disagrees with the docs' errors table", "listed", found, frame
            )
        seq = frame.get("seq")
        if self.answer(frame, "error") and seq == self.last_legal_seq:
            # "If the server refuses an action your legal listed ..., resync rather than retry."
            self.stats["refused_legal"] += 1
            if "gap" not in self.resyncs:
                await self.resync("gap")

    def answer(self, frame: dict[str, Any], kind: str) -> bool:
        """``seq`` on a patch or error: the one answer to an ``act`` of ours."""
        seq = frame.get("seq")
        if seq is None:
            return False
        if seq not in self.sent_seqs:
            self.problem(f"{kind} carries a seq we never sent", "our act's seq", seq, frame)
            return False
        if seq in self.answered:
            self.problem(f"second answer to act seq {seq}", "exactly one answer", kind, frame)
            return False
        self.answered.add(seq)
        if seq == self.pending_act:
            self.pending_act = None
        return True

    # -- checks ------------------------------------------------------------------------------

    def check_event(self, entry: object, frame: dict[str, Any]) -> None:
        if isinstance(entry, dict):
            self.stats[f"ev:{entry.get('ev')}"] += 1
        for found in self.contract.event_problems(entry):
            self.problem("log event disagrees with the docs' events table", "listed", found, frame)

    def check_cards(self, frame: dict[str, Any], extra: set[str]) -> None:
        """Every card code in the frame is one this viewer may see."""
        allowed = set(extra) | self.sent_cards
        game = (self.doc or {}).get("game")
        if isinstance(game, dict):
            for pile in (game.get("piles") or {}).values():
                allowed.update(pile or [])
            if self.role == "player":
                allowed.update(game.get("hand") or [])
            result = game.get("result")
            if isinstance(result, dict):
                for left in result.get("left") or []:
                    allowed.update(left or [])
        hidden = sorted({s for s in strings(frame) if is_card(s)} - allowed)
        if hidden:
            self.problem(
                "card code this viewer may not see",
                "own hand, table piles, result.left after the hand, a played card",
                hidden,
                frame,
            )

    def check_doc(self, frame: dict[str, Any]) -> None:
        doc = self.doc
        if not isinstance(doc, dict) or set(doc) != {"room", "game"}:
            self.problem("document shape", "an object with room and game", doc, frame)
            return
        invalid = best_match(self.contract.document.iter_errors(doc))
        if invalid is not None:
            where = "/".join(str(p) for p in invalid.absolute_path)
            self.problem("document against the schema", "valid", f"{where}: {invalid.message}")
        room, game = doc["room"], doc["game"]
        extra = sorted(set(room) - self.contract.room_keys)
        if extra:
            self.problem("undocumented room keys", sorted(self.contract.room_keys), extra)
        phase = room.get("phase")
        if phase not in ROOM_PHASES:
            self.problem("room.phase", list(ROOM_PHASES), phase, frame)
        if room.get("code") != self.room:
            self.problem("room.code", repr(self.room), room.get("code"))
        options = room.get("options") or {}
        if isinstance(room.get("seats"), list) and len(room["seats"]) != options.get("seats"):
            self.problem(
                "room.seats length", f"options.seats {options.get('seats')}", len(room["seats"])
            )
        for secret in ("seed", "decks"):
            if options.get(secret) is not None:
                self.problem(
                    f"options.{secret} shown", "never shown during the match", options[secret]
                )
        seats_held = room.get("seats")
        held = (
            isinstance(self.seat, int)
            and 0 <= self.seat < len(seats_held or [])
            and seats_held[self.seat] is not None
        )
        if self.role == "player" and isinstance(seats_held, list) and not held:
            self.problem("own seat empty", f"seat {self.seat} held", room["seats"], frame)
        if phase == "lobby":
            if game is not None:
                self.problem("game in the lobby", "game null in the lobby", game, frame)
            return
        if not isinstance(game, dict):
            self.problem("no game after the lobby", "a game object", game, frame)
            return
        extra = sorted(set(game) - self.contract.game_keys)
        if extra:
            self.problem("undocumented game keys", sorted(self.contract.game_keys), extra)
        if game.get("phase") != phase:
            self.problem("game.phase", f"room.phase {phase!r}", game.get("phase"), frame)
        piles = game.get("piles")
        if not isinstance(piles, dict) or set(piles) != set(PILES):
            self.problem("game.piles", f"the eight piles {PILES}", piles)
            piles = {}
        for name, pile in piles.items():
            if not isinstance(pile, list) or not all(is_card(c) for c in pile):
                self.problem(f"game.piles.{name}", "a list of card codes", pile)
        stock, counts, seats = game.get("stock"), game.get("counts"), game.get("seats")
        if not isinstance(stock, int):
            self.problem("game.stock", "a count", stock, frame)
        if not (isinstance(counts, list) and all(isinstance(n, int) for n in counts)):
            self.problem("game.counts", "hand sizes", counts, frame)
            counts = []
        elif len(counts) != seats:
            self.problem("game.counts length", f"game.seats {seats}", len(counts))
        legal = game.get("legal")
        if self.role == "spectator":
            shown = sorted(key for key in ("you", "hand", "legal") if key in game)
            if shown:
                self.problem(
                    "spectator document shows", "no game.you, game.hand, game.legal", shown
                )
        else:
            hand = game.get("hand")
            if game.get("you") != self.seat:
                self.problem("game.you", f"my seat {self.seat}", game.get("you"))
            if not (isinstance(hand, list) and all(is_card(c) for c in hand)):
                self.problem("game.hand", "a list of card codes", hand)
                hand = []
            if (
                isinstance(self.seat, int)
                and self.seat < len(counts)
                and len(hand) != counts[self.seat]
            ):
                self.problem(
                    "hand size", f"counts[{self.seat}] = {counts[self.seat]}", len(hand), frame
                )
            if not isinstance(legal, list):
                self.problem("game.legal", "a list", legal)
                legal = []
            mine = phase == "playing" and game.get("turn") == self.seat
            if legal and not mine:
                self.problem("legal off my turn", "legal non-empty only on your turn", legal, frame)
            if mine and not legal:
                self.problem("empty legal on my turn", "every legal action listed", legal, frame)
            for text in legal:
                try:
                    action = action_of(text)
                except ValueError:
                    self.problem("legal entry not in text form", "CARD>PILE, PILE>PILE, end", text)
                    continue
                if action["type"] == "play" and action["card"] not in hand:
                    self.problem("legal plays a card not in hand", f"a card of {hand}", text)
        result = game.get("result")
        if phase == "playing":
            if result is not None:
                self.problem("game.result while playing", "null until the hand is over", result)
            table = sum(len(p) for p in piles.values() if isinstance(p, list))
            if isinstance(stock, int) and stock + sum(counts) + table != DECK_SIZE:
                self.problem(
                    "cards do not add up",
                    f"stock + counts + piles = {DECK_SIZE}",
                    f"{stock} + {sum(counts)} + {table}",
                )
        elif not isinstance(result, dict) or set(result) != {"reason", "out", "penalties", "left"}:
            self.problem(
                "game.result", "{reason, out, penalties, left} once the hand is over", result
            )
        winners = game.get("winners")
        if (phase == "finished") != (winners is not None):
            self.problem("game.winners", "set exactly when the match is finished", winners, frame)

    # -- playing -------------------------------------------------------------------------------

    def legal(self) -> list[str]:
        game = (self.doc or {}).get("game") or {}
        legal = game.get("legal") or []
        return legal if isinstance(legal, list) else []

    def phase(self) -> str | None:
        return ((self.doc or {}).get("room") or {}).get("phase")

    async def act(self, action: dict[str, Any], *, from_legal: bool = False) -> int:
        """Send ``act``; its answer (the patch or error with this ``seq``) is awaited by play."""
        seq = self.next_seq()
        self.stats[f"act:{action.get('type')}"] += 1
        self.pending_act = seq
        if from_legal:
            self.last_legal_seq = seq
        await self.send({"type": "act", "seq": seq, "action": action})
        return seq

    async def maybe_act(self) -> None:
        """On my turn, one action chosen from ``legal`` (a card or a move before ``end``)."""
        if self.role != "player" or self.pending_act is not None or "gap" in self.resyncs:
            return
        legal = self.legal()
        if not legal:
            return
        usable = []
        for text in legal:
            try:
                action_of(text)
            except ValueError:
                continue
            usable.append(text)
        if not usable:
            return
        moving = [text for text in usable if text != "end"]
        text = self.rng.choice(moving) if moving else usable[0]
        await self.act(action_of(text), from_legal=True)

    async def play(self, timeout: float, until: Callable[[], bool] | None = None) -> None:
        """Play (or watch) until the match is finished, or ``until()``; at most ``timeout`` s."""
        done = until or (lambda: self.phase() == "finished" and self.pending_act is None)
        try:
            async with asyncio.timeout(timeout):
                while not done():
                    await self.maybe_act()
                    await self.next_frame()
        except TimeoutError:
            raise AssertionError(
                f"[{self.label}] not done within {timeout}s: phase {self.phase()}, "
                f"version {self.version}, stats {dict(self.stats)}"
            ) from None

    async def check_now(self, timeout: float = 5.0) -> None:
        """Resync now and compare the snapshot with my copy."""
        await self.resync("check")
        await self.wait_for(
            lambda f: f.get("type") == "snapshot" and not self.resyncs, timeout, "check snapshot"
        )

    async def create(self, options: dict[str, Any], timeout: float = 5.0) -> str:
        await self.send({"type": "create", "options": options})
        return await self._entered(timeout)

    async def join(self, room: str, *, spectate: bool = False, timeout: float = 5.0) -> str:
        await self.send({"type": "join", "room": room, "spectate": spectate})
        return await self._entered(timeout)

    async def _entered(self, timeout: float) -> str:
        frame = await self.wait_for(
            lambda f: f.get("type") in ("joined", "error"), timeout, "joined"
        )
        if frame["type"] == "error":
            raise AssertionError(f"[{self.label}] refused: {frame}")
        await self.wait_for(lambda f: f.get("type") == "snapshot", timeout, "snapshot after joined")
        assert self.room is not None
        return self.room

    async def leave(self, timeout: float = 5.0) -> None:
        await self.send({"type": "leave"})
        frame = await self.wait_for(lambda f: f.get("type") in ("left", "error"), timeout, "left")
        if frame.get("type") != "left" or frame.get("room") != self.room:
            self.problem("answer to leave", f"left {{room: {self.room}}}", frame, frame)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()


def contract_drift(contract: Contract) -> list[str]:
    """Where the docs' tables and examples and the schema disagree (no server involved)."""
    found: list[str] = []
    defs = contract.schema["$defs"]

    def mapping(items: dict[str, Any]) -> dict[str, str]:
        return {k: v.rsplit("/", 1)[-1] for k, v in items["discriminator"]["mapping"].items()}

    def compare(what: str, docs: dict[str, Params], schema: dict[str, str], tag: str) -> None:
        for name in sorted(set(docs) - set(schema)):
            found.append(f"{what} {name!r}: in the docs table, not in the schema")
        for name in sorted(set(schema) - set(docs)):
            found.append(f"{what} {name!r}: in the schema ({schema[name]}), not in the docs table")
        for name in sorted(set(docs) & set(schema)):
            props = set(defs[schema[name]].get("properties", {})) - {tag}
            if set(docs[name]) != props:
                found.append(
                    f"{what} {name!r}: docs list {sorted(docs[name])}, schema has {sorted(props)}"
                )

    client_types = set(mapping(defs["ClientMessage"]))
    server_types = set(mapping(defs["ServerMessage"]))
    # The known events (the schema's LogEvent also admits events of later releases).
    known_events = {
        defs[name]["properties"]["ev"]["const"]: name
        for name in (ref["$ref"].rsplit("/", 1)[-1] for ref in defs["LogEvent"]["anyOf"])
        if name != "UnknownEvent"
    }
    compare("log event", contract.events, known_events, "ev")
    compare("client message", contract.client_messages, mapping(defs["ClientMessage"]), "type")
    compare("server message", contract.server_messages, mapping(defs["ServerMessage"]), "type")
    error_params = defs.get("ErrorParams", {}).get("properties", {})
    for code in sorted(set(contract.errors) ^ set(error_params)):
        side = "docs" if code in contract.errors else "schema ErrorParams"
        found.append(f"error code {code!r}: only in the {side}")
    for code in sorted(set(contract.errors) & set(error_params)):
        props = set(error_params[code].get("properties", {}))
        if set(contract.errors[code]) != props:
            found.append(
                f"error {code!r}: docs list {sorted(contract.errors[code])}, "
                f"schema has {sorted(props)}"
            )
    for line, value in json_blocks(contract.docs):
        if isinstance(value, str):
            found.append(
                f"docs line {line}: a ```json block that is not JSON: {excerpt(value, 120)}"
            )
            continue
        if not isinstance(value, dict) or "type" not in value:
            continue
        kind = value["type"]
        sides = [
            (side, check)
            for side, check, types in (
                ("ClientMessage", contract.client_problems, client_types),
                ("ServerMessage", contract.server_problems, server_types),
            )
            if kind in types
        ]
        verdicts = [(side, check(value)) for side, check in sides]
        if not sides or all(problems for _, problems in verdicts):
            why = "; ".join(f"{side}: {problems[0]}" for side, problems in verdicts)
            found.append(
                f"docs line {line}: example {excerpt(value, 120)} does not validate ({why or kind})"
            )
        if value.get("type") == "patch" and "from" in value:
            for entry in value.get("log", []):
                for problem in contract.event_problems(entry):
                    found.append(f"docs line {line}: example log entry {entry}: {problem}")
        if value.get("type") == "error":
            for problem in contract.error_problems(value):
                found.append(f"docs line {line}: example error: {problem}")
    return found
