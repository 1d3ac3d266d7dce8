"""Console: Activity, where a member investigates their agents' calls (a steward, the club's): a list
filtered by agent, tool, outcome, rule and time, paged, each call opening an inspector that draws the
path of the decision — lane, scopes, mandate, binding, each context source reached or failed, each rule
by name passed or not met — and, for a refusal, "Rule not met: <the rule's sentence>".

The audit never holds a call's values, arguments or attributes, so neither can these pages.
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from datetime import UTC, datetime, timedelta

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.access import Lane
from server.chokepoint.outcomes import Outcome
from server.errors import NotFound
from server.identity import principals
from server.store import audit as audit_rows
from server.store.audit import AuditedCall, AuditEntry
from server.store.database import format_time
from server.web.frame import Frame, bounded_id, path_id

OUTCOMES = {
    "ok": "done",
    "tool_error": "refused by the tool",
    "invalid_input": "invalid input",
    "unknown_tool": "unknown tool",
    "internal_error": "server error",
    "rule_denied": "denied by a rule",
    "source_blocked": "blocked: a context source failed",
    "rule_error": "a rule could not be evaluated",
    "rule_broken": "blocked: a rule no longer compiles",
}
SINCE = {
    "hour": ("the last hour", timedelta(hours=1)),
    "day": ("the last 24 hours", timedelta(days=1)),
    "week": ("the last 7 days", timedelta(days=7)),
    "month": ("the last 30 days", timedelta(days=30)),
}
PAGE = 25
MANDATE_STATES = {
    "valid": "signed and verified",
    "missing": "none signed",
    "invalid_signature": "signature does not verify: counts as none",
    "expired": "expired: counts as none",
    "wrong_principal": "names another principal: counts as none",
    "none": "none (no principal: the guest lane)",
}


@dataclass(frozen=True)
class Step:
    """One step of a decision's path: what was checked, what it found, and whether it let the call on."""

    what: str
    found: str
    state: str  # passed | failed | skipped
    detail: str = ""
    chips: tuple[str, ...] = ()


class ActivityPages(Frame):
    """Rules are read as sentences through `Frame.say_rule` (the `rule_sentence` it is given)."""

    # --- the list --------------------------------------------------------------------------------

    async def activity(self, request: Request) -> Response:
        me = self._signed_in(request)
        if isinstance(me, Response):
            return me
        query = request.query_params
        club_wide = me.steward and query.get("scope") == "club"
        principal = None if club_wide else me.handle
        filters = {column: str(query.get(column, ""))[:120] for column in audit_rows.FILTERED}
        since_key = query.get("since", "")
        since = format_time(datetime.now(UTC) - SINCE[since_key][1]) if since_key in SINCE else None
        number = bounded_id(query.get("page", "1")) or 1
        number = min(number, 10_000)
        rows = audit_rows.page(self.db, principal, filters, since, (number - 1) * PAGE, PAGE + 1)
        calls = [
            {**asdict(call), "sentence": self.say_rule(call), "acted": _acted(call, me.handle)}
            for call in rows[:PAGE]
        ]
        options = {
            column: audit_rows.names(self.db, column, principal)
            for column in ("agent", "tool", "rule")
        }
        kept = {
            key: value
            for key, value in {
                **filters,
                "since": since_key if since_key in SINCE else "",
                "scope": "club" if club_wide else "",
            }.items()
            if value
        }
        return self._page(
            request,
            me,
            "activity.html",
            calls=calls,
            outcomes=OUTCOMES,
            since=SINCE,
            filters=filters,
            since_key=since_key,
            options=options,
            club_wide=club_wide,
            number=number,
            more=len(rows) > PAGE,
            kept=kept,
            filtered=any(filters.values()) or since is not None,
        )

    # --- the inspector ---------------------------------------------------------------------------

    async def inspect(self, request: Request) -> Response:
        me = self._signed_in(request)
        if isinstance(me, Response):
            return me
        try:
            call = audit_rows.one(self.db, path_id(request, "call_id"))
        except NotFound:
            call = None
        if call is None or (call.principal != me.handle and not me.steward):
            return self._not_found(request)  # another member's call answers exactly like none
        steps, result = self._path(call)
        return self._page(
            request,
            me,
            "activity_call.html",
            call={**asdict(call), "acted": _acted(call, me.handle)},
            steps=steps,
            result=result,
            outcome=OUTCOMES.get(call.outcome, call.outcome),
            recorded=call.path is not None,
        )

    def _path(self, call: AuditedCall) -> tuple[list[Step], str]:
        """The steps the chokepoint took for this call, in order, and the result as a person reads it."""
        recorded = json.loads(call.path) if call.path else {}
        outcome, tool = call.outcome, call.tool
        state, version = (recorded.get("mandate") or ["none", None])[:2]
        scopes = tuple(recorded.get("scopes") or ())
        steps = [
            Step(
                "Lane",
                call.lane,
                "passed",
                f"credential: {str(recorded.get('credential', 'unknown')).replace('_', ' ')}",
            ),
            Step(
                "Scopes", f"{len(scopes)} in effect" if scopes else "none", "passed", chips=scopes
            ),
            Step(
                "Mandate",
                MANDATE_STATES.get(state, state) + (f", version {version}" if version else ""),
                "passed" if state == "valid" or call.lane == Lane.GUEST else "skipped",
                ""
                if state == "valid"
                else "The agent holds only what the lane allows without a mandate.",
            ),
            Step(
                "Binding",
                " · ".join(
                    (
                        call.binding_agent or "(no agent)",
                        call.binding_server or "parley",
                        tool,
                    )
                ),
                "passed",
                "The entry table chose this agent for the caller.",
            ),
        ]
        if outcome == "unknown_tool":
            steps.append(
                Step(
                    "Tool",
                    f"{tool} is not among this caller's tools",
                    "failed",
                    "Answered exactly as a tool that does not exist.",
                )
            )
            return steps, "Refused: unknown tool."
        steps.append(Step("Tool", f"{tool} is visible to this caller", "passed"))
        if outcome == "invalid_input":
            steps.append(
                Step(
                    "Arguments",
                    "did not match the tool's input schema",
                    "failed",
                    "What was sent is never recorded.",
                )
            )
            return steps, "Refused: invalid arguments. Nothing ran."
        steps.append(
            Step(
                "Arguments",
                "matched the tool's input schema",
                "passed",
                "What was sent is never recorded.",
            )
        )
        verdicts = {
            "reached": "passed",
            "passed": "passed",
            "not met": "failed",
            "could not be evaluated": "failed",
            "no longer compiles": "failed",
        }
        for kind, name, what in recorded.get("steps", []):
            label = "Context source" if kind == "source" else "Rule"
            detail = ""
            if kind == "rule":
                sentence = self.say_rule(call, name)
                detail = f"Reads as: {sentence}" if sentence else ""
            steps.append(
                Step(
                    label,
                    f"{name}: {what}",
                    verdicts.get(what, "failed" if what.startswith("failed") else "skipped"),
                    detail,
                )
            )
        if not recorded.get("steps") and call.path:
            steps.append(Step("Rules", "none on this binding", "passed"))
        if outcome == Outcome.RULE_DENIED:
            sentence = self.say_rule(call)
            return steps, f"Rule not met: {sentence or call.rule}" + (
                f" (rule “{call.rule}”)" if sentence else ""
            )
        if outcome == Outcome.RULE_BROKEN:
            return (
                steps,
                f"Blocked by rule “{call.rule}”: this rule no longer compiles; a steward must fix or remove it.",
            )
        if outcome == Outcome.RULE_ERROR:
            return steps, f"Rule could not be evaluated: “{call.rule}”. The call was not made."
        if outcome == Outcome.SOURCE_BLOCKED:
            return (
                steps,
                "Blocked: a context source the rules need did not answer, so the call was not made (fail closed).",
            )
        ran = {
            "ok": ("done", "passed"),
            "tool_error": ("the tool refused it", "failed"),
            "internal_error": ("failed inside the server", "failed"),
        }.get(outcome, (outcome, "failed"))
        steps.append(Step("Tool ran", ran[0], ran[1]))
        return steps, {
            "ok": "Done.",
            "tool_error": "The tool refused the call (its own check, after every rule passed).",
            "internal_error": "A server error; nothing is known to have changed.",
        }.get(outcome, outcome)

    def routes(self) -> list[Route]:
        return [
            Route("/console/activity", self.activity, methods=["GET"]),
            Route("/console/activity/{call_id}", self.inspect, methods=["GET"]),
        ]


def _acted(call: AuditEntry, reader: str) -> str:
    """The call's agent in the words Notes and `parley audit tail` use (`principals.acted_through`)."""
    if not call.principal:
        return "(no one: a guest)"
    return principals.acted_through(call.agent, yours=call.principal == reader)
