"""CPU cost of each step the server takes per move, in process, without the network.

Replays seeded random matches in a :class:`server.room.Room` (4 seats, 1 spectator) and
times, per accepted move, the steps :meth:`server.live_room.LiveRoom.commit` takes: decide
(validate with the engine), apply (plus log lines), the viewers' documents, the viewers'
patches (with the server's own method: :func:`server.fanout.patches` where the server
has it, else one diff per viewer) and the frames' JSON. Run it against two commits to
compare them (``--server-commit``).

Timings are medians over ``--repeats`` passes of ``--moves`` moves, in microseconds per
move of this thread's CPU time, so they are far less sensitive to a busy machine than the
load benchmark::

    python -m benchmarks._fanout --moves 20000 --repeats 5
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

from ._common import add_server_flags, emit, machine, median, server_root, started_room

VIEWERS: list[int | None] = [0, 1, 2, 3, None]
STEPS = ("decide", "apply", "docs", "patches", "dumps_frames")


def _events(result: Any) -> list[dict[str, Any]]:
    return result if isinstance(result, list) else [result]


def _differ(root: Path) -> tuple[str, Callable[[Any, Any], Any]]:
    """The way the server in ``root`` computes every viewer's patch of one change.

    Decided by the files in ``root``: an editable install could otherwise import a module
    an older commit lacks from the checkout.
    """
    if not (root / "server" / "fanout.py").exists():  # an older server: a diff per viewer
        from protocol.diff import diff

        return "per_viewer", lambda old, new: {v: diff(old[v], new[v]) for v in new}
    from server.fanout import patches

    return "shared", patches


def _builder(root: Path) -> Callable[..., Any] | None:
    """The server's way to build one action's documents from the old ones, if it has one."""
    text = (root / "server" / "fanout.py").read_text() if (root / "server").exists() else ""
    if "def after_move(" not in text:
        return None
    from server.fanout import after_move

    return after_move


def replay(moves: int, seed: int, root: Path) -> dict[str, float]:
    """Play ``moves`` random legal moves; return microseconds per move of each step."""
    from protocol.engine import legal_actions

    _, differ = _differ(root)
    build = _builder(root)
    rng = random.Random(seed)
    room = started_room(seed)
    docs = room.docs(VIEWERS)
    spent: dict[str, float] = dict.fromkeys(STEPS, 0.0)
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
            room = started_room(seed + done)
            docs = room.docs(VIEWERS)
            continue
        seat = room.seat_to_move()
        action = rng.choice(legal_actions(room.match.position))
        before = room.match
        t1 = clock()
        events = _events(room.decide_act(seat, action))
        t2 = clock()
        lines: list[Any] = []
        for event in events:
            lines.extend(room.apply(event))
        t3 = clock()
        # The server builds one action's documents from the old ones when it can ("docs"
        # then holds both steps), else builds them afresh and diffs.
        built = build(docs, VIEWERS, before, room.match) if build and len(events) == 1 else None
        if built is not None:
            new_docs, ops = built
        else:
            new_docs = room.docs(VIEWERS)
        t4 = clock()
        if built is None:
            ops = differ(docs, new_docs)
        t5 = clock()
        for v in VIEWERS:
            orjson.dumps({"type": "patch", "from": 1, "to": 2, "ops": ops[v], "log": lines})
        t6 = clock()
        spent["decide"] += t2 - t1
        spent["apply"] += t3 - t2
        spent["docs"] += t4 - t3
        spent["patches"] += t5 - t4
        spent["dumps_frames"] += t6 - t5
        docs = new_docs
        done += 1
    return {k: v / moves * 1e6 for k, v in spent.items()}


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
        method, _ = _differ(Path(root))
        if _builder(Path(root)) is not None:
            method = "built_from_old_after_one_action"
        runs = [replay(args.moves, args.seed + i, Path(root)) for i in range(args.repeats)]
        info = machine(Path(root))
    steps = {key: round(median([r[key] for r in runs]) or 0.0, 2) for key in STEPS}
    total = sum(steps.values())
    emit(
        {
            "bench": "fanout_cost",
            "command": "python -m benchmarks._fanout "
            + shlex.join(sys.argv[1:] if argv is None else argv),
            "machine": info,
            "moves": args.moves,
            "repeats": args.repeats,
            "patch_method": method,
            "us_per_move": steps,
            "commit_path_us": round(total, 2),
            "share_of_commit_path_pct": {k: round(100 * v / total, 1) for k, v in steps.items()},
        }
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
