"""Lane and scopes, as a stage of the request: the one place for the lane rule, effective,
grantable and default scopes, the entry table and the tools a caller sees.

Imports: identity, manifest and errors only.
"""

from server.access.caller import Caller
from server.access.callers import Access
from server.access.entry import entry_persona, visible_tools
from server.access.lanes import (
    APPLICANT,
    GUEST,
    LANES,
    MEMBER,
    Lane,
    default_scopes,
    effective_scopes,
    grantable_scopes,
    lane_of,
    token_scopes_allowed,
)

__all__ = [
    "APPLICANT",
    "GUEST",
    "LANES",
    "MEMBER",
    "Lane",
    "Access",
    "Caller",
    "default_scopes",
    "effective_scopes",
    "entry_persona",
    "grantable_scopes",
    "lane_of",
    "token_scopes_allowed",
    "visible_tools",
]
