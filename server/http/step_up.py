"""Lane and scopes at the gate: a tools/call an OAuth token lacks the scope for, but its principal
could grant, answers 403 insufficient_scope so the client can step up.

A scope beyond the mandate or the lane is no step-up: that tool stays unknown, as every hidden
tool is (the chokepoint answers it so).
"""

from __future__ import annotations

from server.access import Access, Caller
from server.http.request_state import RequestState
from server.manifest.schema import Manifest


def step_up_scope(
    manifest: Manifest, access: Access, caller: Caller, state: RequestState
) -> str | None:
    """The scope the request's tools/call needs that this OAuth token lacks but could be granted."""
    message = state.message
    if not isinstance(message, dict) or message.get("method") != "tools/call":
        return None  # a batch, another method, or a body that did not parse (the SDK answers that)
    params = message.get("params")
    name = params.get("name") if isinstance(params, dict) else None
    tool = manifest.tools.get(name) if isinstance(name, str) else None
    if tool is None or tool.needs is None or tool.needs in caller.token_scopes:
        return None
    return tool.needs if tool.needs in access.grantable(caller) else None
