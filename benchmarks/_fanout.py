"""CPU cost of each step the server takes per move, in process, without the network.

Replays seeded random matches in a :class:`server.room.Room` (4 seats, 1 spectator) and
times, per accepted move, the steps :meth:`server.live_room.LiveRoom.commit` takes: decide
(validate with the engine), apply (the engine again, plus log lines), the viewers'
documents, one diff per viewer, and the frames' JSON. To size optimisations it also times
diffing the shared part of the documents once per change (and only the private keys per
seat), and the part of the per-viewer diffs spent on the ``room`` section (which an ``act``
never changes).

Timings are medians over ``--repeats`` passes of ``--moves`` moves, in microseconds per
move, so they are far less sensitive to a busy machine than the load benchmark::

    python -m benchmarks._fanout --moves 20000 --repeats 5 --server-commit 82ec67c

Prints one JSON line.
"""

from __future__ import annotations

import argparse
import random
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import orjson

from ._common import add_server_flags, emit, machine, median, server_root

VIEWERS: list[int | None] = [0, 1, 2, 3, None]
PRIVATE = ("you", "hand", "legal")


def _room(seed: int) -> Any:
    from protocol.messages import RoomOptions
    from server.room import Room, create_event

    room = Room(create_event("BENCH1", RoomOptions(seats=4, target=500)))
    for seat in range(4):
        room.apply({"e": "sit", "seat": seat, "name": f"P{seat}", "kind": "human"})
    room.apply({"e": "start", "seed": f"bench-{seed}"})
    return room


def _events(result: Any) -> list[dict[str, Any]]:
    return result if isinstance(result, list) else [result]


def replay(moves: int, seed: int) -> dict[str, float]:
    """Play ``moves`` random legal moves; return microseconds per move of each step."""
    from protocol.diff import diff
    from protocol.engine import legal_actions

    rng = random.Random(seed)
    room = _room(seed)
    docs = room.docs(VIEWERS)
    spent: dict[str, float] = dict.fromkeys(
        (
            "legal_actions_for_choice",
            "decide",
            "apply",
            "docs",
            "diff_per_viewer",
            "dumps_frames",
            "alt_diff_public_once",
            "part_diff_room_info",
        ),
        0.0,
    )
    # CPU time of this thread: a busy machine preempting us does not count.
    clock = time.thread_time
    done = 0
    while done < moves:
        phase = room.phase
        if phase == "hand_over":
            room.apply({"e": "next"})
            docs = room.docs(VIEWERS)
            continue
        if phase != "playing":
            room = _room(seed + done)
            docs = room.docs(VIEWERS)
            continue
        seat = room.seat_to_move()
        t0 = clock()
        action = rng.choice(legal_actions(room.match.position))
        t1 = clock()
        events = _events(room.decide_act(seat, action))
        t2 = clock()
        lines: list[Any] = []
        for event in events:
            lines.extend(room.apply(event))
        t3 = clock()
        new_docs = room.docs(VIEWERS)
        t4 = clock()
        ops = {v: diff(docs[v], new_docs[v]) for v in VIEWERS}
        t5 = clock()
        for v in VIEWERS:
            base = {"type": "patch", "room": "BENCH1", "from": 1, "to": 2, "ops": ops[v]}
            orjson.dumps({**base, "log": lines, "seq": None})
        orjson.dumps({**base, "log": lines, "seq": 7})
        t6 = clock()
        _public_once(docs, new_docs, diff)
        t7 = clock()
        for v in VIEWERS:
            diff(docs[v]["room"], new_docs[v]["room"], "/room")
        t8 = clock()
        spent["legal_actions_for_choice"] += t1 - t0
        spent["decide"] += t2 - t1
        spent["apply"] += t3 - t2
        spent["docs"] += t4 - t3
        spent["diff_per_viewer"] += t5 - t4
        spent["dumps_frames"] += t6 - t5
        spent["alt_diff_public_once"] += t7 - t6
        spent["part_diff_room_info"] += t8 - t7
        docs = new_docs
        done += 1
    return {k: v / moves * 1e6 for k, v in spent.items()}


def _public_once(
    old: dict[Any, dict[str, Any]],
    new: dict[Any, dict[str, Any]],
    diff: Callable[..., list[dict[str, Any]]],
) -> dict[Any, list[dict[str, Any]]]:
    """Diff the shared part once (the spectator's document), then each seat's own keys."""
    shared = diff(old[None], new[None])
    out: dict[Any, list[dict[str, Any]]] = {None: shared}
    for seat in VIEWERS[:-1]:
        before, after = old[seat]["game"] or {}, new[seat]["game"] or {}
        own = []
        for key in PRIVATE:
            own += diff(before.get(key), after.get(key), f"/game/{key}")
        out[seat] = shared + own
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """Parse flags, time the steps, print one JSON line."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks._fanout", description=__doc__)
    parser.add_argument("--moves", type=int, default=20000)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    add_server_flags(parser)
    args = parser.parse_args(argv)
    with server_root(args) as root:
        sys.path.insert(0, str(root))
        runs = [replay(args.moves, args.seed + i) for i in range(args.repeats)]
        info = machine(Path(root))
    steps = {key: round(median([r[key] for r in runs]) or 0.0, 2) for key in runs[0]}
    commit_path = ("decide", "apply", "docs", "diff_per_viewer", "dumps_frames")
    total = sum(steps[k] for k in commit_path)
    emit(
        {
            "bench": "fanout_cost",
            "command": "python -m benchmarks._fanout "
            + shlex.join(sys.argv[1:] if argv is None else argv),
            "machine": info,
            "moves": args.moves,
            "repeats": args.repeats,
            "us_per_move": steps,
            "commit_path_us": round(total, 2),
            "share_of_commit_path_pct": {k: round(100 * steps[k] / total, 1) for k in commit_path},
            "diff_public_once_saves_pct": round(
                100 * (1 - steps["alt_diff_public_once"] / steps["diff_per_viewer"]), 1
            ),
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
