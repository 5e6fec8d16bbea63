"""The arena: duplicate, seat-rotated matches between bot levels, with honest intervals.

Every match seed is played once with the candidate in each seat and the same decks, so the
luck of the deal cancels out. Reported for the candidate: hand-win rate (the lowest penalty
of a hand wins it, ties share) with a 95% Wilson interval, mean penalty per hand minus the
others' mean with a paired bootstrap interval (one pair per match seed), match-win rate,
blocked-hand rate and decision latency. Run ``python -m protocol.bots.arena --help``.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections.abc import Iterator, Mapping, Sequence
from concurrent.futures import ProcessPoolExecutor
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import Any, TextIO

from protocol.engine import Options, new_match, seat_view
from protocol.errors import BadOptions

from .levels import ARENA_LEVELS, DEFAULT_BUDGET_MS, make_bot
from .stats import bootstrap_mean, percentile, wilson


@dataclass(frozen=True, slots=True)
class Game:
    """One match of a duplicate set: who sits where, and the shared seed."""

    levels: tuple[str, ...]
    seed: str
    candidate: int
    target: int
    budget_ms: float | None
    #: Other rules of the match (``Options`` fields by name, e.g. ``{"scoring": "corners"}``).
    rules: tuple[tuple[str, Any], ...] = ()


@dataclass(slots=True)
class GameResult:
    """What the arena keeps of one match, from the candidate's side."""

    seed: str
    candidate: int
    levels: tuple[str, ...] = ()
    totals: tuple[int, ...] = ()
    penalties: list[tuple[int, ...]] = field(default_factory=list)
    blocked: int = 0
    winners: tuple[int, ...] = ()
    call_ms: list[float] = field(default_factory=list)
    turn_ms: list[float] = field(default_factory=list)


def play_game(game: Game) -> GameResult:
    """Play one match to its target and record it."""
    options = Options(seats=len(game.levels), target=game.target, **dict(game.rules))
    match = new_match(options, seed=game.seed)
    bots = [
        make_bot(level, f"{game.seed}:{seat}", budget_ms=game.budget_ms, arena=True)
        for seat, level in enumerate(game.levels)
    ]
    out = GameResult(game.seed, game.candidate, game.levels)
    turn_total = 0.0
    while match.phase != "finished":
        if match.phase == "hand_over":
            match = match.next_hand()
            continue
        seat = match.position.turn
        view = seat_view(match, seat)
        started = time.perf_counter()
        action = bots[seat].choose(view)
        spent = (time.perf_counter() - started) * 1000.0
        if seat == game.candidate:
            out.call_ms.append(spent)
            turn_total += spent
        match = match.apply(action, seat)
        result = match.position.result
        if seat == game.candidate and (action.text() == "end" or result is not None):
            out.turn_ms.append(turn_total)
            turn_total = 0.0
        if result is not None:
            out.penalties.append(result.penalties)
            out.blocked += result.reason == "blocked"
    out.winners = match.winners
    out.totals = match.totals
    return out


def game_record(res: GameResult) -> dict[str, Any]:
    """One finished match as a JSON line of ``--games``: who sat where and the totals."""
    return {
        "seed": res.seed,
        "levels": list(res.levels),
        "totals": list(res.totals),
        "winners": list(res.winners),
    }


def duplicate_games(
    candidate: str,
    opponents: Sequence[str],
    seats: int,
    matches: int,
    *,
    seed: str = "arena",
    target: int = 25,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    rules: Mapping[str, Any] | None = None,
) -> Iterator[Game]:
    """The matches of a duplicate run: each seed once per candidate seat.

    ``opponents`` lists the other seats' levels in clockwise order from the candidate's
    left (one level repeats for every seat).
    """
    others = list(opponents) if len(opponents) > 1 else list(opponents) * (seats - 1)
    if len(others) != seats - 1:
        raise ValueError(f"need 1 or {seats - 1} opponent levels, got {len(opponents)}")
    for k in range(matches):
        for seat in range(seats):
            levels = [""] * seats
            levels[seat] = candidate
            for j, level in enumerate(others):
                levels[(seat + 1 + j) % seats] = level
            kept = tuple(sorted((rules or {}).items()))
            yield Game(tuple(levels), f"{seed}:{k}", seat, target, budget_ms, kept)


def _share(seat: int, winners: Sequence[int] | Sequence[tuple[int, ...]]) -> float:
    return 1.0 / len(winners) if seat in winners else 0.0


def summarize(results: Sequence[GameResult], seats: int) -> dict[str, Any]:
    """The candidate's figures over a duplicate run."""
    hands = 0
    hand_wins = 0.0
    blocked = 0
    by_seed: dict[str, list[float]] = {}
    deals: set[tuple[str, int]] = set()
    match_wins = 0.0
    mine: list[float] = []
    theirs: list[float] = []
    call_ms: list[float] = []
    turn_ms: list[float] = []
    for res in results:
        me = res.candidate
        diffs = by_seed.setdefault(res.seed, [])
        for index, penalties in enumerate(res.penalties):
            deals.add((res.seed, index))
            low = min(penalties)
            lowest = [s for s, p in enumerate(penalties) if p == low]
            hands += 1
            hand_wins += 1.0 / len(lowest) if me in lowest else 0.0
            others = (sum(penalties) - penalties[me]) / (seats - 1)
            diffs.append(penalties[me] - others)
            mine.append(penalties[me])
            theirs.append(others)
        blocked += res.blocked
        if me in res.winners:
            match_wins += 1.0 / len(res.winners)
        call_ms += res.call_ms
        turn_ms += res.turn_ms
    per_seed = [sum(d) / len(d) for d in by_seed.values() if d]
    games = len(results)
    return {
        "seats": seats,
        "matches": games,
        "deals": len(deals),
        "hands": hands,
        "hand_win": hand_wins / hands if hands else 0.0,
        "hand_win_ci": list(wilson(hand_wins, hands)),
        "penalty": sum(mine) / hands if hands else 0.0,
        "others_penalty": sum(theirs) / hands if hands else 0.0,
        "penalty_diff": sum(per_seed) / len(per_seed) if per_seed else 0.0,
        "penalty_diff_ci": list(bootstrap_mean(per_seed)),
        "match_win": match_wins / games if games else 0.0,
        "match_win_ci": list(wilson(match_wins, games)),
        "blocked": blocked / hands if hands else 0.0,
        "call_ms_p50": percentile(call_ms, 0.5),
        "call_ms_p99": percentile(call_ms, 0.99),
        "turn_ms_p99": percentile(turn_ms, 0.99),
        "turn_ms_max": max(turn_ms, default=0.0),
    }


def run(
    candidate: str,
    opponents: Sequence[str],
    seats: int,
    matches: int,
    *,
    seed: str = "arena",
    target: int = 25,
    budget_ms: float | None = DEFAULT_BUDGET_MS,
    jobs: int = 1,
    games_out: TextIO | None = None,
    rules: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """Play a duplicate run and summarize it (``jobs`` worker processes); every match is
    also written to ``games_out`` as a JSON line when given."""
    games = list(
        duplicate_games(
            candidate,
            opponents,
            seats,
            matches,
            seed=seed,
            target=target,
            budget_ms=budget_ms,
            rules=rules,
        )
    )
    if jobs > 1:
        with ProcessPoolExecutor(jobs) as pool:
            results = list(pool.map(play_game, games, chunksize=4))
    else:
        results = [play_game(g) for g in games]
    if games_out is not None:
        for res in results:
            games_out.write(json.dumps(game_record(res)) + "\n")
        games_out.flush()
    summary = summarize(results, seats)
    summary["candidate"] = candidate
    summary["opponents"] = list(opponents)
    summary["seed"] = seed
    summary["target"] = target
    summary["budget_ms"] = budget_ms
    if rules:
        summary["options"] = dict(rules)
    return summary


def _pct(x: float) -> str:
    return f"{100 * x:.1f}%"


def format_summary(s: dict[str, Any]) -> str:
    """A few readable lines for one run."""
    lo, hi = s["hand_win_ci"]
    dlo, dhi = s["penalty_diff_ci"]
    mlo, mhi = s["match_win_ci"]
    return "\n".join(
        [
            f"{s['candidate']} vs {','.join(s['opponents'])} ({s['seats']} seats, "
            f"{s['matches']} matches, {s['deals']} deals, {s['hands']} hands)",
            f"  hand wins    {_pct(s['hand_win'])}  95% CI [{_pct(lo)}, {_pct(hi)}]",
            f"  penalty/hand {s['penalty']:.2f} vs {s['others_penalty']:.2f}  "
            f"diff {s['penalty_diff']:+.2f} [{dlo:+.2f}, {dhi:+.2f}]",
            f"  match wins   {_pct(s['match_win'])}  95% CI [{_pct(mlo)}, {_pct(mhi)}]",
            f"  blocked      {_pct(s['blocked'])}",
            f"  latency      call p50 {s['call_ms_p50']:.2f} ms, p99 {s['call_ms_p99']:.2f} ms; "
            f"turn p99 {s['turn_ms_p99']:.2f} ms, max {s['turn_ms_max']:.2f} ms",
        ]
    )


def table(
    levels: Sequence[str], seats: int, matches: int, **kwargs: Any
) -> tuple[str, list[dict[str, Any]]]:
    """Every level as candidate against every level in the other seats: a markdown table of
    hand-win rates (95% Wilson interval) and the summaries behind it."""
    rows = []
    summaries = []
    header = "| candidate \\ others | " + " | ".join(levels) + " |"
    rule = "|---|" + "---|" * len(levels)
    for candidate in levels:
        cells = []
        for opponent in levels:
            s = run(candidate, [opponent], seats, matches, **kwargs)
            summaries.append(s)
            lo, hi = s["hand_win_ci"]
            cells.append(f"{_pct(s['hand_win'])} [{100 * lo:.0f}-{100 * hi:.0f}]")
        rows.append(f"| {candidate} | " + " | ".join(cells) + " |")
    return "\n".join([header, rule, *rows]), summaries


def main(argv: Sequence[str] | None = None) -> int:
    """``kings-corner arena``: play a duplicate run (or a table of runs) and report it."""
    parser = argparse.ArgumentParser(prog="kings-corner arena", description=__doc__)
    parser.add_argument("--candidate", default="expert", choices=ARENA_LEVELS)
    parser.add_argument(
        "--opponents", default="heuristic", help="one level, or one per other seat, comma-separated"
    )
    parser.add_argument("--seats", type=int, default=4, choices=(2, 3, 4))
    parser.add_argument(
        "--matches", type=int, default=50, help="match seeds (each played per seat)"
    )
    parser.add_argument("--target", type=int, default=25)
    parser.add_argument("--seed", default="arena")
    parser.add_argument(
        "--budget-ms", type=float, default=DEFAULT_BUDGET_MS, help="per-turn budget; 0 = no clock"
    )
    parser.add_argument("--jobs", type=int, default=1, help="worker processes")
    parser.add_argument(
        "--table", metavar="LEVELS", help="comma-separated levels: play all against all"
    )
    parser.add_argument("--json", action="store_true", help="print JSON lines")
    parser.add_argument(
        "--options",
        default="{}",
        help='other rules as JSON, e.g. \'{"scoring": "corners", "opening_refill": true}\'',
    )
    parser.add_argument(
        "--games", metavar="FILE", help="append every match (levels, totals) to FILE as JSON lines"
    )
    args = parser.parse_args(argv)
    budget = args.budget_ms if args.budget_ms > 0 else None
    try:
        rules = json.loads(args.options)
        Options(seats=args.seats, target=args.target, **rules)
    except (ValueError, TypeError, BadOptions) as exc:
        parser.error(f"--options: {exc}")
    common: dict[str, Any] = {
        "seed": args.seed,
        "target": args.target,
        "budget_ms": budget,
        "jobs": args.jobs,
        "rules": rules,
    }
    with ExitStack() as stack:
        if args.games:
            common["games_out"] = stack.enter_context(open(args.games, "a", encoding="utf-8"))
        return _play(parser, args, common)


def _play(parser: argparse.ArgumentParser, args: argparse.Namespace, common: dict[str, Any]) -> int:
    if args.table:
        levels = [lv.strip() for lv in args.table.split(",") if lv.strip()]
        unknown = [lv for lv in levels if lv not in ARENA_LEVELS]
        if unknown:
            parser.error(f"unknown levels: {', '.join(unknown)}")
        text, summaries = table(levels, args.seats, args.matches, **common)
        if args.json:
            for s in summaries:
                print(json.dumps(s))
        print(text)
        return 0
    opponents = [lv.strip() for lv in args.opponents.split(",") if lv.strip()]
    unknown = [lv for lv in opponents if lv not in ARENA_LEVELS]
    if unknown:
        parser.error(f"unknown levels: {', '.join(unknown)}")
    if len(opponents) not in (1, args.seats - 1):
        parser.error(f"give 1 or {args.seats - 1} opponent levels")
    summary = run(args.candidate, opponents, args.seats, args.matches, **common)
    print(json.dumps(summary) if args.json else format_summary(summary))
    return 0


if __name__ == "__main__":
    sys.exit(main())
