"""Every identity and access cache, and the one rule by which each is invalid: the store's revision.

The store bumps its revision in the same transaction as any change that decides a caller's lane,
scopes or answers: principals, agents, tokens (not their last use), mandates, OAuth grants and
retired keys, rules, approved briefing notes (`server.store.schema.WATCHED`, `HANDED`). So whatever
is worked out from those rows (a credential's resolved chain, an OAuth grant's identity, a caller's
lane and tools, a pure tool's answer to that caller) stays true exactly as long as the revision it was worked out at
is the one a request reads: `AtRevision.get` answers only a value kept at the revision asked for,
and a value of any other revision is as good as absent. Each cache is bounded (emptied whole when
full) and holds nothing a request could not work out again.

What else ends a kept value is time, checked in code on every use: a remembered chain carries its
expiry (`Remembered.valid_at`: the earlier of the token's and the mandate's), a grant its mandate's.
(The entry table's memo in `Access._reach` is a pure function of the manifest: no revision applies.)
"""

from __future__ import annotations

import math
from typing import Generic, TypeVar

from server.identity.resolved import Identity

K = TypeVar("K")
V = TypeVar("V")

TOUCH_EVERY = 60.0  # seconds between writes of one token's last use


class AtRevision(Generic[K, V]):
    """Values by key, each valid only at the store revision it was kept at."""

    __slots__ = ("_kept", "limit")

    def __init__(self, limit: int):
        self.limit = limit
        self._kept: dict[K, tuple[int | None, V]] = {}

    def get(self, key: K, revision: int | None) -> V | None:
        """The value kept for `key` at `revision`; None when none is, or it is of another one."""
        kept = self._kept.get(key)
        return kept[1] if kept is not None and kept[0] == revision else None

    def last(self, key: K) -> V | None:
        """The value last kept for `key`, at whatever revision: only for what carries over from a
        stale value to its replacement (when a token's last use was written), never to answer."""
        kept = self._kept.get(key)
        return kept[1] if kept is not None else None

    def put(self, key: K, revision: int | None, value: V) -> V:
        if len(self._kept) >= self.limit and key not in self._kept:
            self._kept.clear()
        self._kept[key] = (revision, value)
        return value

    def __contains__(self, key: K) -> bool:
        """Whether anything is kept for `key`, at any revision (a request bearing it may read the
        revision with its budget, then be answered from here if nothing changed)."""
        return key in self._kept

    def __len__(self) -> int:
        return len(self._kept)


class Remembered:
    """A resolved chain as the resolver keeps it (in an `AtRevision` by token digest): one small
    record a token, read with as few memory reads as can be (10,000 callers in turn read them from
    all over the heap). `due` is the one number the common case reads: until then (wall clock,
    epoch seconds) the chain is valid and its last use needs no write (a clock set back delays a
    stamp, never a refusal: expiry is on the wall clock, as the store's rows are)."""

    __slots__ = ("due", "identity", "ends", "touched")  # what the common case reads first

    def __init__(self, identity: Identity, ends: float | None, touched: float):
        self.identity = identity
        self.ends = ends  # the earlier of the token's and the mandate's expiry, epoch seconds
        self.stamped(touched)

    def stamped(self, touched: float) -> None:
        """The token's last use was written at `touched` (wall clock): the next is due a minute on."""
        self.touched = touched
        self.due = min(touched + TOUCH_EVERY, self.ends if self.ends is not None else math.inf)

    def valid_at(self, moment: float) -> bool:
        """Whether neither the token nor the mandate it verified has expired at `moment`."""
        return self.ends is None or self.ends > moment
