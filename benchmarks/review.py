"""How long the coach's review takes: from the end of a match to its review being ready.

A fresh server subprocess with its default settings (memory store, one idle bot worker);
one client (a person, played here by the ``--person`` level) plays a whole 4-seat match at
the default target against three ``--bots`` bots, asking for each next hand at once. The
figure is the time from the match-over frame until ``GET /api/matches/ID/review`` answers
200, with the match's hands and the person's judged turns. Each hand is reviewed as it ends,
so at the match's end only the last one and the summary remain. The coach issue's targets:
at most 2 s (p95) on a quiet machine, 5 s with two CPU-bound processes beside the server
(``--busy 2``). ``--bot-delay`` and ``--hand-pause`` shorten the matches (and the time a hand
has to be reviewed before the next is dealt). ::

    python -m benchmarks.review --repeats 20 --bot-delay 0.1 --hand-pause 2
    python -m benchmarks.review --repeats 5 --bot-delay 0.1 --hand-pause 2 --busy 2
"""

from __future__ import annotations

import argparse
import asyncio
import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from clients.bot.run import play
from clients.net import GameClient
from protocol.bots import make_bot

from ._common import emit, machine, median, note, percentile, start_process


def _get(url: str) -> tuple[int, dict[str, Any]]:
    try:
        with urllib.request.urlopen(url, timeout=5) as reply:
            return int(reply.status), dict(json.load(reply))
    except urllib.error.HTTPError as exc:
        return int(exc.code), dict(json.load(exc))


async def one_run(url: str, person: str, bots: str, seed: int) -> dict[str, Any]:
    http = url.replace("ws://", "http://").rstrip("/")
    ana = await GameClient(url, "Bench").connect()
    await ana.create(seats=4, bots=[None, bots, bots, bots])
    await ana.start()
    started = time.monotonic()
    await play(ana, make_bot(person, seed), hurry=True)
    ended = time.monotonic()
    note(f"the match took {ended - started:.1f} s; waiting for its review")
    player = str(ana.player_id)
    while True:
        _, listing = await asyncio.to_thread(_get, f"{http}/api/players/{player}/matches")
        if listing["matches"]:
            break
        await asyncio.sleep(0.05)
    match_id = listing["matches"][0]["id"]
    while True:
        status, review = await asyncio.to_thread(_get, f"{http}/api/matches/{match_id}/review")
        if status == 200:
            break
        if time.monotonic() - ended > 300:
            raise RuntimeError("no review within 5 minutes")
        await asyncio.sleep(0.05)
    seconds = time.monotonic() - ended
    await ana.close()
    mine = review["seats"][0]
    return {
        "seconds": round(seconds, 2),
        "hands": _hands(http, match_id),
        "turns": mine["turns"],
        "costliest": [t["cost"] for t in mine["costliest"]],
    }


def _hands(http: str, match_id: str) -> int:
    _, record = _get(f"{http}/api/matches/{match_id}")
    return 1 + sum(1 for entry in record["log"] if entry == "next")


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--person", default="easy", help="who plays the person (default: easy)")
    parser.add_argument("--bots", default="hard", help="the bots' level (default: hard)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--bot-delay",
        default=None,
        help="the server's --bot-delay (default: its own, 0.7 s): shorter matches",
    )
    parser.add_argument(
        "--hand-pause",
        default=None,
        help="the server's --hand-pause (default: its own, 8 s): less time to review a hand",
    )
    parser.add_argument(
        "--busy", type=int, default=0, help="CPU-bound processes running beside the server"
    )
    args = parser.parse_args(argv)
    extra: list[str] = []
    if args.bot_delay is not None:
        extra += ["--bot-delay", str(args.bot_delay)]
    if args.hand_pause is not None:
        extra += ["--hand-pause", str(args.hand_pause)]
    busy = [subprocess.Popen([sys.executable, "-c", "while 1: pass"]) for _ in range(args.busy)]
    runs = []
    try:
        for n in range(args.repeats):
            server = start_process([sys.executable, "-m", "server", "serve", "--port", "0", *extra])
            try:
                run = asyncio.run(one_run(server.url, args.person, args.bots, n))
            finally:
                server.stop()
            note(f"run {n + 1}: {run}")
            runs.append(run)
    finally:
        for process in busy:
            process.kill()
            process.wait()
    seconds = sorted(r["seconds"] for r in runs)
    emit(
        {
            "benchmark": "review",
            "person": args.person,
            "bots": args.bots,
            "server_flags": extra,
            "busy": args.busy,
            "runs": runs,
            "median_seconds": median(seconds),
            "p95_seconds": percentile(seconds, 95),
            "max_seconds": seconds[-1],
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
