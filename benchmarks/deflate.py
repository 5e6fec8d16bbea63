"""Bytes on the wire with and without permessage-deflate, per viewer, in process.

Replays seeded random 4-seat matches in a :class:`server.room.Room` the way the server
does (the viewers' documents, :func:`server.fanout.patches`, the frames' JSON) and sizes
every frame a seat and a spectator would receive: as JSON, and compressed as
``permessage-deflate`` with context takeover compresses it (raw deflate, one compressor
per connection, each message flushed with ``Z_SYNC_FLUSH`` and its 4-byte tail dropped,
with the server's window and memory level, ``--window-bits`` and ``--mem-level`` to try
others). Snapshots are
compressed by a fresh compressor, as the first message of a new connection::

    python -m benchmarks.deflate --moves 20000

Prints one JSON line: median patch and snapshot sizes and their ratio, both ways, and the
mean bytes of a patch (per move).
"""

from __future__ import annotations

import argparse
import random
import shlex
import statistics
import sys
import time
import zlib
from collections.abc import Sequence
from typing import Any

import orjson

from server.config import Settings

from ._common import emit, machine, started_room

VIEWERS: list[int | None] = [0, None]
_TAIL = b"\x00\x00\xff\xff"


def _compressor(bits: int, mem_level: int, level: int) -> Any:
    return zlib.compressobj(level, wbits=-bits, memLevel=mem_level)


_SPENT = [0.0, 0]  # CPU seconds compressing patches, and how many


def _deflate(compressor: Any, data: bytes, timed: bool = False) -> int:
    started = time.thread_time()
    out = compressor.compress(data) + compressor.flush(zlib.Z_SYNC_FLUSH)
    if timed:
        _SPENT[0] += time.thread_time() - started
        _SPENT[1] += 1
    return len(out) - len(_TAIL) if out.endswith(_TAIL) else len(out)


def measure(
    moves: int, seed: int, bits: int, mem_level: int, level: int
) -> dict[str, dict[str, list[int]]]:
    """Frame sizes per viewer kind: raw and deflated patches and snapshots."""
    from protocol.engine import legal_actions
    from server.fanout import after_move, patches

    rng = random.Random(seed)
    room = started_room(seed)
    docs = room.docs(VIEWERS)
    links = {v: _compressor(bits, mem_level, level) for v in VIEWERS}
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
        before = room.match
        events = room.decide_act(seat, rng.choice(legal_actions(room.match.position)))
        for event in events:
            lines.extend(room.apply(event))
        # As the server does: one action's documents built from the old ones, else diffed.
        built = after_move(docs, VIEWERS, before, room.match) if len(events) == 1 else None
        if built is not None:
            new_docs, ops = built
        else:
            new_docs = room.docs(VIEWERS)
            ops = patches(docs, new_docs)
        for v in VIEWERS:
            kind = sizes["seat" if v is not None else "spectator"]
            patch = {"type": "patch", "from": version, "to": room.version, "ops": ops[v]}
            if lines:
                patch["log"] = lines
            frame = orjson.dumps(patch)
            kind["patch"].append(len(frame))
            kind["patch_deflated"].append(_deflate(links[v], frame, timed=True))
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
                fresh = _compressor(bits, mem_level, level)
                kind["snapshot_deflated"].append(_deflate(fresh, snap))
        docs = new_docs
        done += 1
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, size the frames, print one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.deflate", description=__doc__)
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("--seed", type=int, default=1)
    defaults = Settings()
    parser.add_argument(
        "--window-bits", type=int, default=defaults.compression_window_bits, help="9-15"
    )
    parser.add_argument("--mem-level", type=int, default=defaults.compression_mem_level)
    parser.add_argument("--level", type=int, default=defaults.compression_level, help="1-9")
    args = parser.parse_args(argv)
    sizes = measure(args.moves, args.seed, args.window_bits, args.mem_level, args.level)
    result: dict[str, Any] = {}
    for kind, parts in sizes.items():
        med = {name: statistics.median(values) for name, values in parts.items()}
        result[kind] = {
            **med,
            # Bytes per move on average (every patch, hands' ends and new deals included).
            "patch_mean": round(statistics.mean(parts["patch"]), 1),
            "patch_mean_deflated": round(statistics.mean(parts["patch_deflated"]), 1),
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
            # CPU to compress one patch for one connection (this thread's time).
            "deflate_us_per_patch": round(_SPENT[0] / max(1, _SPENT[1]) * 1e6, 2),
            "window_bits": args.window_bits,
            "mem_level": args.mem_level,
            "level": args.level,
            **result,
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
