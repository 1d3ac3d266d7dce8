"""What the caller tells the planner beside the turn: values it already has, the step an earlier turn
asked about, what to do with a turn nothing reads, and the values the application knows. Read and
checked once, here, from the caller's mapping: the planner reads typed fields, never the raw data.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

ON_UNREAD = ("refuse", "model", "ask", "answer")


@dataclass(frozen=True)
class Awaiting:
    """The step an earlier turn asked about, as the caller hands it back: the tool, the values it had,
    and the ones it asked for."""

    tool: str | None = None
    arguments: dict[str, str] = field(default_factory=dict)
    missing: tuple[str, ...] = ()

    @classmethod
    def from_data(cls, data: object) -> Awaiting | None:
        if not data:
            return None
        if not isinstance(data, dict):
            raise ValueError("awaiting is the step asked about: tool, arguments and missing")
        arguments = data.get("arguments") or {}
        missing = data.get("missing") or []
        if not isinstance(arguments, dict) or not isinstance(missing, (list, tuple)):
            raise ValueError(
                "awaiting's arguments map names to values, and its missing lists names"
            )
        tool = data.get("tool")
        return cls(
            tool if isinstance(tool, str) else None,
            {str(k): str(v) for k, v in arguments.items()},
            tuple(str(m) for m in missing),
        )


@dataclass
class Context:
    values: dict[str, str] = field(default_factory=dict)
    awaiting: Awaiting | None = None
    on_unread: str = "refuse"
    rephrased: bool = False
    known_values: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @classmethod
    def from_dict(cls, data: Mapping[str, object] | None) -> Context:
        if not data:
            return cls()
        data = data or {}
        on_unread = data.get("on_unread", "refuse")
        if on_unread not in ON_UNREAD:
            raise ValueError(f"on_unread must be one of {', '.join(ON_UNREAD)}")
        given = data.get("values") or {}
        if not isinstance(given, dict):
            raise ValueError("values maps a parameter's name to its value")
        values = {str(k): str(v) for k, v in given.items()}
        known = data.get("known_values") or {}
        if not isinstance(known, dict) or not all(
            isinstance(v, (list, tuple)) for v in known.values()
        ):
            raise ValueError(
                "known_values maps a parameter's name to the list of values the application knows"
            )
        known_values = {str(k): tuple(sorted({str(x) for x in v})) for k, v in known.items()}
        return cls(
            values,
            Awaiting.from_data(data.get("awaiting")),
            str(on_unread),
            bool(data.get("rephrased")),
            known_values,
        )
