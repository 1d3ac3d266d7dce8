"""Per-minute request budgets: one per guest client address, one per token.

A token bucket per key: a burst up to the per-minute budget, refilled evenly, so a refusal can
say exactly when the next request will be accepted. One process keeps its buckets in memory;
processes sharing a PostgreSQL store share their buckets there (`SharedBudget`), so a budget is
the cluster's, not multiplied by the number of processes.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from server.store.database import Database
from server.store.opening import shared_store
from server.store.postgres import PostgresDatabase


class Budget(Protocol):
    def take(self, key: str) -> float | None:
        """Spend one request for `key`; None if allowed, else seconds until one is allowed."""


@dataclass
class _Bucket:
    tokens: float
    stamp: float


class RateLimiter:
    def __init__(
        self, per_minute: int, clock: Callable[[], float] = time.monotonic, max_keys: int = 50_000
    ):
        self.capacity = float(per_minute)
        self.rate = per_minute / 60.0
        self.clock = clock
        self.max_keys = max_keys
        self._buckets: dict[str, _Bucket] = {}

    def take(self, key: str) -> float | None:
        """Spend one request for `key`; None if allowed, else seconds until one is allowed."""
        moment = self.clock()
        bucket = self._buckets.get(key)
        if bucket is None:
            if len(self._buckets) >= self.max_keys:
                self._prune(moment)
            bucket = self._buckets[key] = _Bucket(self.capacity, moment)
        else:
            bucket.tokens = min(self.capacity, bucket.tokens + (moment - bucket.stamp) * self.rate)
            bucket.stamp = moment
        if bucket.tokens >= 1.0:
            bucket.tokens -= 1.0
            return None
        return max(0.001, (1.0 - bucket.tokens) / self.rate)

    def _prune(self, moment: float) -> None:
        full = [
            k
            for k, b in self._buckets.items()
            if b.tokens + (moment - b.stamp) * self.rate >= self.capacity
        ]
        for key in full:
            del self._buckets[key]
        if len(self._buckets) >= self.max_keys:
            self._buckets.clear()


class SharedBudget:
    """The same budget for every process of a cluster: one statement per request on the store."""

    def __init__(self, db: PostgresDatabase, per_minute: int, scope: str):
        self.db = db
        self.per_minute = per_minute
        self.scope = scope

    def take(self, key: str) -> float | None:
        return self.db.take_budget(f"{self.scope}:{key}", self.per_minute)

    def take_reading_revision(self, key: str) -> tuple[float | None, int]:
        """`take` and the store's revision, in one round trip (see
        `PostgresDatabase.take_budgets_reading_revision`)."""
        return self.db.take_budget_reading_revision(f"{self.scope}:{key}", self.per_minute)

    @property
    def together(self) -> bool:
        """Whether requests' budget statements go together now (not while the store is down: then
        each request takes its own path, which refuses at once and tries the store now and then)."""
        return self.db.together.usable

    async def take_together(self, key: str) -> tuple[float | None, int]:
        """`take_reading_revision` in one statement with the requests waiting beside this one
        (`server.store.batching`)."""
        return await self.db.together.take(f"{self.scope}:{key}", self.per_minute)


def budget(db: Database, per_minute: int, scope: str) -> Budget:
    """A shared budget on PostgreSQL, else this process's own."""
    shared = shared_store(db)
    if shared is not None:
        return SharedBudget(shared, per_minute, scope)
    return RateLimiter(per_minute)


def retry_after_header(seconds: float) -> str:
    return str(max(1, math.ceil(seconds)))
