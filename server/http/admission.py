"""Identity and budget: who is calling and whether their budget allows this request, in one pass.

No credential → the guest lane, on the address's budget; a credential that verifies → its
caller, on the token's budget; a credential that fails → refused, and it spends the address's
guest budget so that guessing is throttled too. On PostgreSQL (a shared budget) a guest, and a token the resolver
remembers, cost one round trip: the statement that spends its budget also reads the revision it is
resolved at. Under load such requests share that statement with the requests beside them
(`admit_together`, `server.store.batching`).
"""

from __future__ import annotations

from typing import NamedTuple

import anyio

from server.access import Access, Caller, Lane
from server.http.ratelimit import Budget, SharedBudget
from server.http.request_state import RequestState
from server.identity.credentials import CredentialRejected


class Admission(NamedTuple):
    caller: Caller | None
    rejected: CredentialRejected | None
    wait: float | None  # seconds until the budget allows a request; None: allowed


class Admitter:
    def __init__(self, access: Access, guest_limiter: Budget, token_limiter: Budget):
        self.access = access
        self.guest_limiter = guest_limiter
        self.token_limiter = token_limiter
        self.shared_budget = token_limiter if isinstance(token_limiter, SharedBudget) else None
        self.shared_guest = guest_limiter if isinstance(guest_limiter, SharedBudget) else None

    def guest_in_one(self, state: RequestState) -> bool:
        """Whether this request is a guest's whose budget is shared: its statement reads the
        revision too, so the rules need no statement of their own."""
        return (
            self.shared_guest is not None
            and state.authorization is None
            and not state.refuses_guest
        )

    def remembered(self, state: RequestState) -> str | None:
        """The digest of a token whose chain the resolver keeps, when its budget is shared: such a
        request is admitted in one round trip."""
        if self.shared_budget is None:
            return None
        return self.access.resolver.remembered(state.authorization)

    def admit(self, state: RequestState, remembered: str | None = None) -> Admission:
        """Run in a worker thread when it may wait (a store across the network, an OAuth
        issuer's keys)."""
        if remembered is not None and self.shared_budget is not None:
            wait, current = self.shared_budget.take_reading_revision(f"token:{remembered}")
            return self.resolve_at(state, current, wait)
        if self.guest_in_one(state) and self.shared_guest is not None:
            wait, current = self.shared_guest.take_reading_revision(f"guest:{state.address}")
            return Admission(self.access.guest_at(current), None, wait)
        try:
            caller = self.access.from_header(state.authorization, None, state.last_uses)
        except CredentialRejected as exc:
            return Admission(None, exc, self.guest_limiter.take(f"guest:{state.address}"))
        if caller.lane == Lane.GUEST and state.refuses_guest:
            return Admission(caller, None, None)  # answered 401 before any budget is spent
        if caller.token_hash:
            return Admission(caller, None, self.token_limiter.take(f"token:{caller.token_hash}"))
        return Admission(caller, None, self.guest_limiter.take(f"guest:{state.address}"))

    def resolve_at(self, state: RequestState, current: int, wait: float | None) -> Admission:
        """A remembered token's request, its budget spent and the revision read: its caller at that
        revision (may read the store: run in a worker thread)."""
        try:
            caller = self.access.from_header(state.authorization, current, state.last_uses)
        except CredentialRejected as exc:
            return Admission(None, exc, self.guest_limiter.take(f"guest:{state.address}"))
        return Admission(caller, None, wait)

    async def admit_together(self, state: RequestState, remembered: str | None) -> Admission | None:
        """`admit` for a request whose admission is one statement (a remembered token's, a guest's,
        on a shared budget), sent with the requests waiting beside it (`server.store.batching`):
        no worker thread of its own. A remembered chain still valid at the revision read is
        resolved here, on the event loop (nothing to read, nothing to write now); anything else in a
        worker thread. None while the store is down: the caller takes `admit`'s path."""
        if remembered is not None and self.shared_budget is not None:
            if not self.shared_budget.together:
                return None
            wait, current = await self.shared_budget.take_together(f"token:{remembered}")
            caller = self.access.kept_at(remembered, current, state.last_uses)
            if caller is not None:
                return Admission(caller, None, wait)
            return await anyio.to_thread.run_sync(self.resolve_at, state, current, wait)
        if self.guest_in_one(state) and self.shared_guest is not None:
            if not self.shared_guest.together:
                return None
            wait, current = await self.shared_guest.take_together(f"guest:{state.address}")
            return Admission(self.access.guest_at(current), None, wait)
        return None
