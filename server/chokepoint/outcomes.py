"""How a tool call ended, as the audit row, the metrics and the console's activity page name it.

A StrEnum: each value equals its text, so audit rows, metric labels and the console read exactly as
before; compare with these, never with a literal."""

from __future__ import annotations

from enum import StrEnum


class Outcome(StrEnum):
    OK = "ok"
    TOOL_ERROR = "tool_error"  # the tool refused (a ParleyError), after every rule passed
    INVALID_INPUT = "invalid_input"
    UNKNOWN_TOOL = (
        "unknown_tool"  # not visible to this caller: answered as a tool that does not exist
    )
    INTERNAL_ERROR = "internal_error"
    RULE_DENIED = "rule_denied"
    SOURCE_BLOCKED = (
        "source_blocked"  # a context source the rules need did not answer (fail closed)
    )
    RULE_ERROR = "rule_error"
    RULE_BROKEN = "rule_broken"  # a rule that no longer compiles blocks its binding


OUTCOMES = tuple(Outcome)
