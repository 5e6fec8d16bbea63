"""The review tier's queue: the coach's reviews as jobs on a Redis Stream.

Game servers on Redis compute no review: a hand that ended and a match to review are
added to one stream (:meth:`ReviewJobs.add_review_job`), and ``kings-corner worker``
processes (:mod:`server.review_worker`) read it through one consumer group, compute each
job and acknowledge it. Keys::

    kc:{reviews}:jobs           the stream; each entry one field ``job``: JSON
                                {"kind": "hand", "hand": N, "record": ...} (the record so far)
                                or {"kind": "match", "record": ...} (the finished record)
    consumer group "workers"    on that stream; consumers PROCESS-N
    kc:{match:ID}:review-job    "a job for this match's review was added" (SET NX, with a TTL)

The stream is one key under its own hash tag: on a Cluster it lives on one shard, which
carries a few commands per job (a job is seconds of CPU; the shard is far from the limit).

An entry is read by one consumer and stays in the group's pending list until that
consumer acknowledges it; one pending longer than the lease without a sign of life
(:meth:`hold_review_job` renews it while the job is computed) is taken over by another
consumer (``XAUTOCLAIM``). So a worker killed mid-job leaves the job to another: at least
once, and the results are the same whoever computes them. An acknowledged entry is deleted
at once, and ``XADD`` trims the stream to about ``backlog`` entries (``MAXLEN ~``): the
stream holds only the work not done yet, and cannot grow without end.
"""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from typing import Any

import orjson
import redis.exceptions as rexc

from .core import RedisCore, dump, reachable

#: The consumer group every worker reads the stream through.
GROUP = "workers"
#: Entries the stream keeps at most, about (``XADD MAXLEN ~``), unless told otherwise.
BACKLOG = 10_000

#: A job read or taken over: its entry id, the job, and how often it has been delivered.
Job = tuple[str, dict[str, Any], int]


class ReviewJobs(RedisCore):
    """The review jobs' stream: added to by game servers, read by review workers."""

    def _jobs_key(self) -> str:
        return f"{self.prefix}:{{reviews}}:jobs"

    async def add_review_job(
        self,
        job: dict[str, Any],
        *,
        once_for: str | None = None,
        ttl: float = 300.0,
        backlog: int = BACKLOG,
    ) -> bool:
        """Add ``job`` to the stream; False when ``once_for`` (a match id) already had a job
        added in the last ``ttl`` seconds (then nothing is added)."""
        marker = f"{self.prefix}:{{match:{once_for}}}:review-job" if once_for else None
        with reachable():
            ttl_ms = max(1, int(ttl * 1000))
            if marker is not None and not await self._redis.set(marker, b"1", nx=True, px=ttl_ms):
                return False
            try:
                await self._redis.xadd(
                    self._jobs_key(), {"job": dump(job)}, maxlen=max(1, backlog), approximate=True
                )
            except BaseException:
                if marker is not None:  # not added: the next ask may add it
                    with contextlib.suppress(Exception):
                        await self._redis.delete(marker)
                raise
        return True

    async def review_jobs_group(self) -> None:
        """Create the consumer group (and the stream) unless it exists; it reads from the
        start, so jobs added before the first worker ever ran are not skipped."""
        with reachable():
            try:
                await self._redis.xgroup_create(self._jobs_key(), GROUP, id="0", mkstream=True)
            except rexc.ResponseError as exc:
                if "BUSYGROUP" not in str(exc):
                    raise

    async def read_review_jobs(self, consumer: str, count: int, block_ms: int) -> list[Job]:
        """Up to ``count`` jobs nobody has read yet, for ``consumer``; waits up to
        ``block_ms`` for one. A missing group (the stream was deleted) is created again."""
        try:
            with reachable():
                found: Any = await self._redis.xreadgroup(
                    GROUP, consumer, {self._jobs_key(): ">"}, count=count, block=block_ms
                )
        except rexc.ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            await self.review_jobs_group()
            return []
        jobs: list[Job] = []
        for _, entries in found or []:
            jobs.extend((_text(entry), _job(fields), 1) for entry, fields in entries)
        return jobs

    async def claim_review_jobs(self, consumer: str, idle_ms: int, count: int) -> list[Job]:
        """Up to ``count`` jobs pending for longer than ``idle_ms`` (their consumer died or
        hangs), now ``consumer``'s, with how often each was delivered (this time counted).
        Entries trimmed off the stream meanwhile leave the pending list here."""
        try:
            with reachable():
                answer = await self._redis.xautoclaim(
                    self._jobs_key(), GROUP, consumer, idle_ms, start_id="0-0", count=count
                )
        except rexc.ResponseError as exc:
            if "NOGROUP" not in str(exc):
                raise
            await self.review_jobs_group()
            return []
        entries = answer[1] if len(answer) > 1 else []
        jobs: list[Job] = []
        for entry, fields in entries:
            if fields is None:
                continue
            ident = _text(entry)
            with reachable():
                pending = await self._redis.xpending_range(
                    self._jobs_key(), GROUP, min=ident, max=ident, count=1
                )
            times = int(pending[0]["times_delivered"]) if pending else 1
            jobs.append((ident, _job(fields), times))
        return jobs

    async def hold_review_job(self, consumer: str, ident: str) -> None:
        """Renew ``consumer``'s hold on a job it is computing (its idle time starts again)."""
        with reachable():
            await self._redis.xclaim(self._jobs_key(), GROUP, consumer, 0, [ident], justid=True)

    async def finish_review_job(self, ident: str) -> None:
        """The job is done (or dropped): acknowledge it and delete its entry."""
        with reachable():
            async with self._redis.pipeline(transaction=True) as pipe:
                pipe.xack(self._jobs_key(), GROUP, ident)
                pipe.xdel(self._jobs_key(), ident)
                await pipe.execute()

    async def review_jobs_waiting(self) -> int:
        """Entries in the stream: jobs not read yet and jobs being computed."""
        with reachable():
            return int(await self._redis.xlen(self._jobs_key()))

    async def forget_review_consumers(self, consumers: Sequence[str] = (), idle_ms: int = 0) -> int:
        """Delete consumers that hold no job: those named (none named: every consumer idle
        for longer than ``idle_ms``, e.g. of workers that are gone). How many went."""
        with reachable():
            try:
                found = await self._redis.xinfo_consumers(self._jobs_key(), GROUP)
            except rexc.ResponseError:
                return 0
            gone = 0
            for info in found:
                name = _text(info["name"])
                chosen = name in consumers if consumers else int(info["idle"]) > idle_ms
                if chosen and int(info["pending"]) == 0:
                    await self._redis.xgroup_delconsumer(self._jobs_key(), GROUP, name)
                    gone += 1
        return gone


def _job(fields: dict[Any, Any]) -> dict[str, Any]:
    raw = fields.get(b"job", fields.get("job"))
    return dict(orjson.loads(raw)) if raw is not None else {}


def _text(value: Any) -> str:
    return value.decode() if isinstance(value, bytes) else str(value)
