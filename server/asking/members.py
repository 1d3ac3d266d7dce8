"""The principal an ask names and that principal's newest signed mandate, kept per store revision.

Both come from tables whose every change bumps the store's revision (`store.schema.WATCHED`:
principals, mandates; a trigger on SQLite and on PostgreSQL), so the rows read at a revision are the
rows the store holds at it: an ask that knows the revision its caller was resolved at reads neither
again while the revision stands. The rows are read after that revision was, so they are never older
than it. What is kept is rows, never a verdict: the mandate's signature and expiry are checked on
every ask (`mandates.check`). A briefing note bumps no revision, so notes are read on every ask.
"""

from __future__ import annotations

from dataclasses import dataclass

from server.asking.rows import Row
from server.store import mandates as mandate_rows
from server.store import principals as principal_rows
from server.store.database import Database, revision


@dataclass(frozen=True)
class Named:
    """A principal as the store holds it, and the newest version of its mandate (body, signature,
    key id), or None when it never signed one."""

    principal: Row
    mandate: tuple[str, str, str] | None


class Members:
    """Principals by handle, as read at one store revision; a new revision starts afresh. Handles
    that name nobody are not kept, so the cache holds at most the club's principals."""

    def __init__(self, db: Database):
        self.db = db
        self._kept: tuple[int, dict[str, Named]] = (-1, {})  # (revision, its rows), swapped whole

    def named(self, handle: str, known: int | None = None) -> Named | None:
        """The principal `handle` names at revision `known` (read now when not given), or None."""
        current = known if known is not None else revision(self.db)
        kept_at, kept = self._kept
        if kept_at != current:
            kept = {}
            self._kept = (current, kept)
        found = kept.get(handle)
        if found is None:
            row = principal_rows.by_handle(self.db, handle)
            if row is None:
                return None
            found = kept[handle] = Named(row, mandate_rows.latest(self.db, row["id"]))
        return found
