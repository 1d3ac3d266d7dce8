"""Which principal and agent each MCP session belongs to."""

from __future__ import annotations

from collections import OrderedDict

from server.access import Caller


class SessionOwners:
    """Which principal and agent each MCP session belongs to: bound the first time the session is
    used with a credential (a guest session may sign in once), then refused to anyone else."""

    def __init__(self, limit: int = 100_000):
        self.limit = limit
        self._owners: OrderedDict[str, tuple[int | None, int | None]] = OrderedDict()

    def admits(self, session: str, caller: Caller) -> bool:
        owner = self._owners.get(session)
        if caller.identity is None:
            return owner is None
        me = (caller.principal_id, caller.agent_id)
        if owner is None:
            self._owners[session] = me
            if len(self._owners) > self.limit:
                self._owners.popitem(last=False)
            return True
        return owner == me
