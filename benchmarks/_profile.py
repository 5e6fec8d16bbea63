"""Summarise a py-spy ``--format raw`` profile (collapsed stacks) into where the time goes.

``python -m benchmarks._profile PROFILE.txt [--top 30] [--json]`` prints, per function, the
share of samples in which it is on the stack (inclusive) and on top (self), and the share
of some areas of interest (the event loop, websockets, decoding, the rules, the diff, ...),
among the samples whose stack was unwound whole. Line numbers are dropped so a function
counts once however many lines it spends time on.
"""

from __future__ import annotations

import argparse
import re
import sys
from collections import Counter
from collections.abc import Iterable
from pathlib import Path
from typing import Any

import orjson

_FRAME = re.compile(r"^(?P<func>.*) \((?P<file>[^()]*?)(?::\d+)?\)$")

#: Areas of interest: a label and the substrings of a frame that belong to it. A sample
#: counts towards an area when any frame of its stack matches (inclusive).
AREAS: dict[str, tuple[str, ...]] = {
    "handle one client frame (server/sockets.py _handle_frame)": ("_handle_frame (",),
    "decode + validate client frame (pydantic)": ("decode_client (",),
    "commit (decide + store + apply + fan-out)": ("commit (server/live_room.py",),
    "decide_act (the engine plays the move to check it)": ("decide_act (",),
    "room.apply (state and log lines)": ("apply (server/room.py",),
    "views: room.docs/doc/view/seat_view/public_view": (
        "docs (server/room.py",
        "doc (server/room.py",
        "seat_view (",
        "public_view (",
    ),
    "legal_actions (rules engine)": ("legal_actions (",),
    "patches (server/fanout.py + protocol/diff.py)": ("patches (server/fanout.py",),
    "dumps (orjson) on server": ("dumps (protocol/codec.py",),
    "Connection.send (to the socket, or queued)": ("send (server/connection.py",),
    "writer task: draining a backlog": ("_write (server/connection.py",),
    "websockets: reading frames": ("recv (websockets", "__aiter__ (websockets", "data_received ("),
    "after_change (tasks per change)": ("after_change (",),
    "_update_listing task": ("_update_listing (",),
    "store append/publish": ("append (server/store", "publish (server/store"),
    "maintenance tick (heartbeat, presence, catch-up per room)": ("run (server/maintenance.py",),
    "set-up: handshakes, create, join": (
        "handshake (",
        "create (server/commands.py",
        "join (server/commands.py",
    ),
    "asyncio event loop internals (self)": (),
}


def parse(lines: Iterable[str]) -> list[tuple[list[str], int]]:
    """Stacks (root first) with their sample counts."""
    stacks = []
    for line in lines:
        line = line.rstrip("\n")
        if not line:
            continue
        stack, _, count = line.rpartition(" ")
        if not count.isdigit():
            continue
        stacks.append((stack.split(";"), int(count)))
    return stacks


def _name(frame: str) -> str:
    found = _FRAME.match(frame)
    if not found:
        return frame
    file = found.group("file")
    for marker in ("site-packages/", "/lib/python3", "/work/", "/main/"):
        if marker in file:
            file = file.split(marker, 1)[1]
    return f"{found.group('func')} ({file})"


#: Root frames of whole stacks (``python -m``, the ``kings-corner`` script, threads).
#: Sampling without pausing the process (``--nonblocking``) sometimes unwinds only part of
#: a stack; those samples are left out of the shares.
ROOTS = ("_run_module_as_main", "Thread._bootstrap", "<module> (kings-corner")


def summarise(stacks: list[tuple[list[str], int]], top: int = 30) -> dict[str, Any]:
    """Inclusive and self shares per function, and the share of each area of interest,
    in percent of the samples whose stack was unwound whole."""
    every = sum(count for _, count in stacks)
    stacks = [(f, c) for f, c in stacks if f and any(r in f[0] for r in ROOTS)]
    total = sum(count for _, count in stacks) or 1
    inclusive: Counter[str] = Counter()
    own: Counter[str] = Counter()
    areas: Counter[str] = Counter()
    for frames, count in stacks:
        names = [_name(f) for f in frames]
        for name in set(names):
            inclusive[name] += count
        own[names[-1]] += count
        joined = ";".join(frames)
        for label, needles in AREAS.items():
            if needles and any(n in joined for n in needles):
                areas[label] += count
        if "asyncio" in frames[-1] or "selectors" in frames[-1]:
            areas["asyncio event loop internals (self)"] += count

    def share(counter: Counter[str], n: int) -> list[tuple[str, float]]:
        return [(name, round(100 * c / total, 1)) for name, c in counter.most_common(n)]

    return {
        "samples": every,
        "whole_stacks": total,
        "areas_pct": {label: round(100 * areas[label] / total, 1) for label in AREAS},
        "inclusive_pct": share(inclusive, top),
        "self_pct": share(own, top),
    }


def main(argv: list[str] | None = None) -> int:
    """Print the summary of one profile."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks._profile")
    parser.add_argument("profile", type=Path)
    parser.add_argument("--top", type=int, default=30)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    result = summarise(parse(args.profile.read_text().splitlines()), args.top)
    if args.json:
        print(orjson.dumps(result).decode())
        return 0
    print(f"samples: {result['samples']}, with whole stacks: {result['whole_stacks']}")
    print("\nareas (inclusive, % of samples):")
    for label, pct in result["areas_pct"].items():
        print(f"  {pct:5.1f}  {label}")
    for title, key in (("inclusive", "inclusive_pct"), ("self", "self_pct")):
        print(f"\ntop functions ({title}, % of samples):")
        for name, pct in result[key]:
            print(f"  {pct:5.1f}  {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
