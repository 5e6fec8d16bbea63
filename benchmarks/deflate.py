"""Bytes on the wire with and without permessage-deflate, per viewer, in process.

Replays seeded random 4-seat matches in a :class:`server.room.Room` the way the server
does (the viewers' documents, :func:`server.fanout.patches`, the frames' JSON) and sizes
every frame a seat and a spectator would receive: as JSON, and compressed as
``permessage-deflate`` with context takeover compresses it (raw deflate, one compressor
per connection, each message flushed with ``Z_SYNC_FLUSH`` and its 4-byte tail dropped,
with the window and memory level of ``websockets``' server defaults). Snapshots are
compressed by a fresh compressor, as the first message of a new connection::

    python -m benchmarks.deflate --moves 20000

Prints one JSON line: median patch and snapshot sizes and their ratio, both ways.
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import sys
import zlib
from collections.abc import Sequence
from typing import Any

import orjson

from ._common import emit, machine, started_room

VIEWERS: list[int | None] = [0, None]
WINDOW_BITS = 12  # websockets' server_max_window_bits default
MEM_LEVEL = 5  # websockets' default compress_settings
_TAIL = b"\x00\x00\xff\xff"


def _compressor() -> Any:
    return zlib.compressobj(wbits=-WINDOW_BITS, memLevel=MEM_LEVEL)


def _deflate(compressor: Any, data: bytes) -> int:
    out = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    return len(out) - len(_TAIL) if out.endswith(_TAIL) else len(out)


def measure(moves: int, seed: int) -> dict[str, dict[str, list[int]]]:
    """Frame sizes per viewer kind: raw and deflated patches and snapshots."""
    from protocol.engine import legal_actions
    from server.fanout import patches

    rng = random.Random(seed)
    room = started_room(seed)
    docs = room.docs(VIEWERS)
    links = {v: _compressor() for v in VIEWERS}
    sizes: dict[str, dict[str, list[int]]] = {
        ("seat" if v is not None else "spectator"): {
            "patch": [],
            "patch_deflated": [],
            "snapshot": [],
            "snapshot_deflated": [],
        }
        for v in VIEWERS
    }
    done = 0
    while done < moves:
        if room.phase == "hand_over":
            room.apply({"e": "next"})
            docs = room.docs(VIEWERS)
            continue
        if room.phase != "playing":
            room = started_room(seed + done)
            docs = room.docs(VIEWERS)
            continue
        seat = room.seat_to_move()
        version = room.version
        lines: list[Any] = []
        for event in room.decide_act(seat, rng.choice(legal_actions(room.match.position))):
            lines.extend(room.apply(event))
        new_docs = room.docs(VIEWERS)
        ops = patches(docs, new_docs)
        for v in VIEWERS:
            kind = sizes["seat" if v is not None else "spectator"]
            frame = orjson.dumps(
                {
                    "type": "patch",
                    "room": room.code,
                    "from": version,
                    "to": room.version,
                    "ops": ops[v],
                    "log": lines,
                }
            )
            kind["patch"].append(len(frame))
            kind["patch_deflated"].append(_deflate(links[v], frame))
            if done % 50 == 0:
                snap = orjson.dumps(
                    {
                        "type": "snapshot",
                        "room": room.code,
                        "version": room.version,
                        "doc": new_docs[v],
                    }
                )
                kind["snapshot"].append(len(snap))
                kind["snapshot_deflated"].append(_deflate(_compressor(), snap))
        docs = new_docs
        done += 1
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, size the frames, print one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.deflate", description=__doc__)
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    sizes = measure(args.moves, args.seed)
    result: dict[str, Any] = {}
    for kind, parts in sizes.items():
        med = {name: statistics.median(values) for name, values in parts.items()}
        result[kind] = {
            **med,
            "patch_share": round(med["patch"] / med["snapshot"], 3),
            "patch_share_deflated": round(med["patch_deflated"] / med["snapshot_deflated"], 3),
        }
    emit(
        {
            "bench": "deflate",
            "command": "python -m benchmarks.deflate "
            + shlex.join(sys.argv[1:] if argv is None else argv),
            "machine": machine(),
            "moves": args.moves,
            "window_bits": WINDOW_BITS,
            "mem_level": MEM_LEVEL,
            **result,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
