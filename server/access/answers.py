"""Pure tools' answers to a caller, kept beside the caller rather than inside it (a `Caller` is
immutable): by who is calling (the token's digest, or the lane of a guest) at the store revision the
caller was resolved at (`server.identity.cache`), for that very caller object (Access makes one a
credential and revision, and one guest a revision). A caller of another revision, or another object
for the same credential, starts with none."""

from __future__ import annotations

from dataclasses import dataclass, field

from mcp_types import CallToolResult

from server.access.caller import Caller
from server.identity.cache import AtRevision

ANSWERS_KEPT = 64  # a few pure tools over a few revisions; guests' only while rules change
CALLERS_ANSWERED = 100_000  # callers whose answers are kept, as many as the resolver keeps chains


@dataclass(slots=True)
class KeptAnswers:
    """Pure tools' answers to one caller (see `server.chokepoint`): each by (tool, the revision of
    the rules in force), and the SDK's wire form of one by (tool, protocol version), beside the very
    answer it was shaped from."""

    caller: Caller  # whose answers these are
    results: dict[tuple[str, int | None], CallToolResult] = field(default_factory=dict)
    wire: dict[tuple[str, str], tuple[CallToolResult, dict[str, object]]] = field(
        default_factory=dict
    )
    audit_path: str | None = None  # the audit path of this caller's calls that met no rule

    def keep(self, tool: str, rules: int | None, result: CallToolResult) -> None:
        if len(self.results) >= ANSWERS_KEPT:
            self.results.clear()
        self.results[(tool, rules)] = result

    def keep_wire(
        self, tool: str, version: str, result: CallToolResult, wire: dict[str, object]
    ) -> None:
        if len(self.wire) >= ANSWERS_KEPT:
            self.wire.clear()
        self.wire[(tool, version)] = (result, wire)


_KEPT: AtRevision[str, KeptAnswers] = AtRevision(CALLERS_ANSWERED)


def answers_for(caller: Caller) -> KeptAnswers:
    """The answers kept for this caller at its revision (made empty the first time it asks)."""
    key = caller.token_hash or caller.lane
    kept = _KEPT.get(key, caller.revision)
    if kept is None or kept.caller is not caller:
        kept = _KEPT.put(key, caller.revision, KeptAnswers(caller))
    return kept
