"""How long a match left alone takes to settle: recorded and rated after its last person goes.

A fresh server subprocess with its default settings (memory store); one client creates a
room against ``--bots`` bots (4 seats and the default target: the "play against the
computer" table), ends three turns of its own, then either ``leave``\\ s (``--how leave``)
or closes its connection (``--how close``: the grace period passes first). Nobody watches.
The figure is the time from that moment until the match is in the person's history
(``/api/players/ID/matches``), with the hands and actions the bots played meanwhile. The
rule it checks (docs/ratings.md): at most 2 minutes with the default settings. ::

    python -m benchmarks.settle --how leave --repeats 3
    python -m benchmarks.settle --how close --repeats 3
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
import urllib.request
from typing import Any

from clients.net import GameClient

from ._common import emit, machine, median, note, start_process

END = {"type": "end_turn"}


def _matches(http: str, player: str) -> list[dict[str, Any]]:
    with urllib.request.urlopen(f"{http}/api/players/{player}/matches", timeout=5) as reply:
        return list(json.load(reply)["matches"])


async def one_run(url: str, level: str, how: str) -> dict[str, Any]:
    http = url.replace("ws://", "http://").rstrip("/")
    ana = await GameClient(url, "Bench").connect()
    await ana.create(seats=4, bots=[None, level, level, level])
    await ana.start()
    for _ in range(3):
        await ana.until(lambda c: c.my_turn, timeout=120)
        await ana.act(END)
    player = str(ana.player_id)
    gone = time.monotonic()
    if how == "leave":
        await ana.send({"type": "leave"})
        await ana.wait_for(lambda f: f["type"] == "left")
    await ana.close()
    while not (found := await asyncio.to_thread(_matches, http, player)):
        if time.monotonic() - gone > 600:
            raise RuntimeError("the match did not settle within 10 minutes")
        await asyncio.sleep(0.1)
    seconds = time.monotonic() - gone
    with urllib.request.urlopen(f"{http}/api/matches/{found[0]['id']}", timeout=5) as reply:
        record = json.load(reply)
    actions = sum(1 for entry in record["log"] if entry != "next")
    return {"seconds": round(seconds, 2), "hands": len(record["results"]), "actions": actions}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--how", choices=["leave", "close"], default="leave")
    parser.add_argument("--bots", default="hard", help="the bots' level (default: hard)")
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    runs = []
    for n in range(args.repeats):
        server = start_process([sys.executable, "-m", "server", "serve", "--port", "0"])
        try:
            run = asyncio.run(one_run(server.url, args.bots, args.how))
        finally:
            server.stop()
        note(f"run {n + 1}: {run}")
        runs.append(run)
    emit(
        {
            "benchmark": "settle",
            "how": args.how,
            "bots": args.bots,
            "runs": runs,
            "median_seconds": median([r["seconds"] for r in runs]),
            "machine": machine(),
        }
    )


if __name__ == "__main__":
    main()
