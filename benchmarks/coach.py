"""What the coach costs against what serving the match costs, and how good it is.

A fresh server subprocess (memory store, the load driver's settings); matches of four
scripted people (``--seats``), each its own WebSocket connection, played at full speed as
the shared load driver's seats play (a random legal action that is not ``end`` four times
in five, else ``end``), ``--rooms`` at once. Each next hand is dealt at once.

* **Serving**: the server process's own CPU (user + system, its review and bot workers are
  other processes) over the whole run, per move.
* **Review**: each finished match's record is fetched (``GET /api/matches/ID``) and
  reviewed here, hand by hand and then summarised, as the server's workers do; its CPU per
  match against ``moves x serving CPU per move``: the issue's target is a median of at most
  10x (moonshot 3x).
* **The server's own**: every match's review is asked of the server until its workers have
  it, and must equal the one made here.
* **Exactness**: every turn marked ``could_go_out`` is checked by listing every end of that
  turn without a limit (and every turn that could have gone out is marked).
* ``--compare COMMIT``: the same records reviewed by that commit's coach (its tree exported
  to a temporary directory, run in a subprocess): its CPU, and for how many seats every
  turn the coach names is among that commit's five costliest turns (ties at the fifth
  included; the target is at least 80% of seats over at least 50 matches). ::

    python -m benchmarks.coach --matches 24
    python -m benchmarks.coach --matches 50 --compare ccc2f12
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import random
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from clients.net import GameClient
from protocol.bots.base import Seen
from protocol.bots.review import DEFAULT_REVIEW, decisions, review_hand, summarize
from protocol.bots.turnsearch import turn_ends
from protocol.engine import NEXT_HAND, action_from_text

from ._common import (
    emit,
    export_commit,
    game_server_argv,
    machine,
    median,
    note,
    percentile,
    proc_sample,
    python_env,
    running,
)

#: What a scripted seat does: a random legal action that is not ``end``, this often.
EAGERNESS = 0.8


def _get(url: str) -> Any:
    with urllib.request.urlopen(url, timeout=30) as reply:
        return json.load(reply)


def _dealt(client: GameClient) -> bool:
    return client.game is not None and client.game["phase"] != "hand_over"


async def _seat(client: GameClient, rng: random.Random) -> None:
    """Play a seat to the end of the match."""
    while True:
        await client.until(
            lambda c: (
                c.game is not None and (c.my_turn or c.game["phase"] in ("finished", "hand_over"))
            ),
            120,
        )
        game = client.game
        assert game is not None
        if game["phase"] == "finished":
            return
        if game["phase"] == "hand_over":
            await client.until(_dealt, 60)  # the server deals at once (no hand pause)
            continue
        legal = list(game["legal"])
        others = [a for a in legal if a != "end"]
        if others and (rng.random() < EAGERNESS or "end" not in legal):
            choice = rng.choice(others)
        else:
            choice = "end" if "end" in legal else rng.choice(legal)
        reply = await client.act(action_from_text(choice).wire())
        if reply["type"] == "error" and reply["code"] != "not_your_turn":
            raise RuntimeError(f"refused {choice}: {reply}")


async def _match(url: str, seats: int, seed: int) -> str:
    """One match of ``seats`` scripted people; its id."""
    people = [await GameClient(url, f"P{seed}x{i}").connect() for i in range(seats)]
    host = people[0]
    code = await host.create(seats=seats, bots=[None] * seats)
    for person in people[1:]:
        await person.join(code)
        await person.ready()
    await host.start()
    rng = random.Random(seed)
    await asyncio.gather(*(_seat(p, random.Random(rng.random())) for p in people))
    http = url.replace("ws://", "http://").rstrip("/")
    player = str(host.player_id)
    for _ in range(200):
        listing = await asyncio.to_thread(_get, f"{http}/api/players/{player}/matches")
        if listing["matches"]:
            break
        await asyncio.sleep(0.05)
    for person in people:
        await person.close()
    return str(listing["matches"][0]["id"])


async def _play(url: str, matches: int, rooms: int, seats: int) -> list[str]:
    ids: list[str] = []
    for start in range(0, matches, rooms):
        batch = range(start, min(matches, start + rooms))
        ids += await asyncio.gather(*(_match(url, seats, seed) for seed in batch))
    return ids


def _review(record: dict[str, Any]) -> tuple[dict[str, Any], dict[int, list[dict[str, Any]]]]:
    seats = [i for i, s in enumerate(record["seats"]) if s and s["kind"] == "human"]
    turns: dict[int, list[dict[str, Any]]] = {s: [] for s in seats}
    for hand in range(1 + record["log"].count(NEXT_HAND)):
        for seat, items in review_hand(record, hand, seats).items():
            turns[seat].extend(items)
    return summarize(record, turns), turns


def _exact(record: dict[str, Any], turns: dict[int, list[dict[str, Any]]]) -> tuple[int, int]:
    """(turns marked could_go_out, of them or unmarked, turns where the mark is wrong)."""
    marked = {(t["seat"], t["step"]): t["could_go_out"] for s in turns.values() for t in s}
    flagged = wrong = 0
    for decision in decisions(record, list(turns)):
        seen = Seen.from_view(decision.view)
        ends, complete = turn_ends(seen.hand, seen.piles, limit=10**7)
        assert complete
        exists = any(not e.hand and not seen.refills(e.hand, e.piles) for e in ends)
        match = decision.match
        for action in decision.actions:
            match = match.apply(action)
        went_out = match.position.result is not None and not match.position.hands[decision.seat]
        says = marked[(decision.seat, decision.step)]
        flagged += says
        wrong += says != (exists and not went_out)
    return flagged, wrong


#: Run in a subprocess with another commit's tree first on the path: its review of each
#: record (one JSON per line on stdin), the CPU it took and every judged turn.
_OTHER = """
import json, sys, time
from protocol.bots.review import review_hand
from protocol.engine import NEXT_HAND
for line in sys.stdin:
    record = json.loads(line)
    seats = [i for i, s in enumerate(record["seats"]) if s and s["kind"] == "human"]
    started = time.process_time()
    turns = {s: [] for s in seats}
    for hand in range(1 + record["log"].count(NEXT_HAND)):
        for seat, items in review_hand(record, hand, seats).items():
            turns[seat].extend(items)
    cpu = time.process_time() - started
    print(json.dumps({"cpu": cpu, "turns": turns}), flush=True)
"""


def _compare(commit: str, records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    with tempfile.TemporaryDirectory(prefix="kc-coach-") as tmp:
        tree = export_commit(commit, Path(tmp))
        done = subprocess.run(
            [sys.executable, "-c", _OTHER],
            input="".join(json.dumps(r) + "\n" for r in records),
            capture_output=True,
            text=True,
            cwd=tree,
            env=python_env(tree),
            check=True,
        )
    return [json.loads(line) for line in done.stdout.splitlines()]


def _agrees(named: list[dict[str, Any]], full: list[dict[str, Any]]) -> bool:
    """Every named turn is among the five costliest of ``full`` (ties at the fifth count)."""
    ranked = sorted((t["cost"] for t in full), reverse=True)
    if not ranked:
        return not named
    fifth = ranked[min(4, len(ranked) - 1)]
    top = {t["step"] for t in full if t["cost"] >= fifth and t["cost"] >= DEFAULT_REVIEW.threshold}
    return all(t["step"] in top for t in named)


def _served_reviews(http: str, ids: list[str], within: float = 300.0) -> dict[str, Any]:
    """Every match's review as the server's own workers made it (asked for until ready)."""
    served: dict[str, Any] = {}
    deadline = time.monotonic() + within
    while len(served) < len(ids) and time.monotonic() < deadline:
        for match_id in ids:
            if match_id in served:
                continue
            with contextlib.suppress(urllib.error.HTTPError):
                served[match_id] = _get(f"{http}/api/matches/{match_id}/review")
            if served.get(match_id, {}).get("status") == "pending":
                del served[match_id]
        time.sleep(0.2)
    return served


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--matches", type=int, default=24)
    parser.add_argument("--rooms", type=int, default=4, help="matches played at once")
    parser.add_argument("--seats", type=int, default=4)
    parser.add_argument("--compare", metavar="COMMIT", help="another commit's coach to compare")
    args = parser.parse_args(argv)
    info = machine()
    with running(game_server_argv(extra=["--hand-pause", "0"])) as server:
        http = server.url.replace("ws://", "http://").rstrip("/")
        before = proc_sample(server.pid)
        started = time.monotonic()
        ids = asyncio.run(_play(server.url, args.matches, args.rooms, args.seats))
        after = proc_sample(server.pid)
        note(f"{len(ids)} matches played in {time.monotonic() - started:.1f} s")
        records = [_get(f"{http}/api/matches/{match_id}") for match_id in ids]
        served = _served_reviews(http, ids)
    moves = sum(sum(1 for e in r["log"] if e != NEXT_HAND) for r in records)
    serving = (after.cpu - before.cpu) / moves
    ratios: list[float] = []
    per_move: list[float] = []
    flagged = wrong = 0
    documents = []
    same = 0
    for record in records:
        count = sum(1 for e in record["log"] if e != NEXT_HAND)
        begun = time.process_time()
        document, turns = _review(record)
        cpu = time.process_time() - begun
        documents.append(document)
        same += served.get(str(record["id"])) == json.loads(json.dumps(document))
        ratios.append(cpu / (count * serving))
        per_move.append(cpu / count * 1e6)
        marked, bad = _exact(record, turns)
        flagged += marked
        wrong += bad
    ratios.sort()
    result: dict[str, Any] = {
        "bench": "coach",
        **info,
        "matches": len(records),
        "seats": args.seats,
        "moves_per_match": round(moves / len(records), 1),
        "serving_us_per_move": round(serving * 1e6, 1),
        "review_us_per_move_median": round(median(per_move) or 0, 1),
        "review_over_serving_median": round(median(ratios) or 0, 2),
        "review_over_serving_p90": round(percentile(ratios, 90) or 0, 2),
        "review_over_serving_max": round(ratios[-1], 2),
        "could_go_out_marked": flagged,
        "could_go_out_wrong": wrong,
        "served_reviews_equal": same,
    }
    if args.compare:
        note(f"reviewing the same matches with {args.compare}'s coach")
        theirs = _compare(args.compare, records)
        agree = seats = 0
        other_ratios = []
        for record, document, other in zip(records, documents, theirs, strict=True):
            count = sum(1 for e in record["log"] if e != NEXT_HAND)
            other_ratios.append(other["cpu"] / (count * serving))
            for seat, full in other["turns"].items():
                named = document["seats"][int(seat)]["costliest"]
                seats += 1
                agree += _agrees(named, full)
        result["compare"] = {
            "commit": args.compare,
            "review_over_serving_median": round(median(other_ratios) or 0, 2),
            "seats_agreeing": agree,
            "seats": seats,
            "share": round(agree / max(1, seats), 3),
        }
    emit(result)


if __name__ == "__main__":
    main()
