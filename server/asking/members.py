"""The principal an ask names, that principal's newest signed mandate and the notes it hands an
answering agent, kept per store revision.

All come from what moves the store's revision when it changes (`store.triggers`: principals and
mandates through `WATCHED`, approved briefing notes through `HANDED_WHEN`; triggers on SQLite and on
PostgreSQL), so the rows read at a revision are the rows the store holds at it: an ask that knows the
revision its caller was resolved at reads none of them again while the revision stands, and the
first ask after a change reads them afresh. The rows are read after that revision was, so they are
never older than it. What is kept is rows and what follows from them alone, never a verdict: the
mandate's signature and expiry are checked on every ask (`mandates.check`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field

from server.answering import Terms
from server.answering.grounding import Approved
from server.identity.mandates import MandateBody
from server.store import mandates as mandate_rows
from server.store import principals as principal_rows
from server.store.database import Database, revision
from server.store.principals import PrincipalRow

# What a verified mandate hands an answering agent: its terms, and the approved notes it reveals, by id.
Handed = tuple[Terms, Mapping[str, Approved]]


@dataclass(frozen=True)
class Named:
    """A principal as the store holds it, and the newest version of its mandate (body, signature,
    key id), or None when it never signed one."""

    principal: PrincipalRow
    mandate: tuple[str, str, str] | None
    # per asker's kind (a member or not): the mandate body it was read for, and what it hands over
    _handed: dict[bool, tuple[MandateBody, Handed]] = field(default_factory=dict, compare=False)

    def handed(
        self, body: MandateBody, asker_is_member: bool, read: Callable[[], Handed]
    ) -> Handed:
        """What `body` (this principal's mandate, verified by the caller) hands an answering agent
        for this kind of asker: read once at this revision, then kept."""
        kept = self._handed.get(asker_is_member)
        if kept is not None and kept[0] is body:
            return kept[1]
        found = read()
        self._handed[asker_is_member] = (body, found)
        return found


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
            found = kept[handle] = Named(row, mandate_rows.latest(self.db, row.id))
        return found
