"""Home as a picture of the week: small server-rendered SVG charts (no script, no library) of the
questions put to a member's answering agent and answered, what waits in their queue and for how long,
and their agents' calls refused by rule. Every chart carries its numbers as text for screen readers."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from markupsafe import Markup, escape

from server.identity.principals import Principal
from server.store import week as week_rows
from server.store.database import Database, format_time
from server.store.week import RuleRefusals

ASKED, ANSWERED, WAITING, REFUSED = (
    "#0f6b5c",
    "#a14b00",
    "#0f6b5c",
    "#b42318",
)  # each >= 3:1 on white; console.css .legend repeats the first two
AGES = [("under an hour", 1), ("under a day", 24), ("1 to 3 days", 72), ("longer", None)]


def _days(today: datetime) -> list[datetime]:
    return [today - timedelta(days=back) for back in range(6, -1, -1)]


def _svg(label: str, width: int, height: int, body: str) -> Markup:
    return Markup(
        f'<svg class="chart" role="img" aria-label="{escape(label)}" viewBox="0 0 {width} {height}" '
        f'xmlns="http://www.w3.org/2000/svg">{body}</svg>'
    )


def questions_chart(per_day: dict[str, dict[str, int]], days: list[datetime]) -> Markup:
    """Two bars a day, asked and answered, over the last seven days."""
    top = max([1] + [n for counts in per_day.values() for n in counts.values()])
    width, height, base = 320, 150, 120
    parts, said = [f'<line x1="0" y1="{base}" x2="{width}" y2="{base}" stroke="#8a8378"/>'], []
    for index, day in enumerate(days):
        key = day.strftime("%Y-%m-%d")
        counts = per_day.get(key, {"asked": 0, "answered": 0})
        x = 8 + index * 44
        for offset, (name, colour) in enumerate((("asked", ASKED), ("answered", ANSWERED))):
            tall = round(100 * counts[name] / top)
            parts.append(
                f'<rect x="{x + offset * 15}" y="{base - tall}" width="13" height="{tall}" fill="{colour}"/>'
            )
            if counts[name]:
                parts.append(
                    f'<text x="{x + offset * 15 + 6.5}" y="{base - tall - 3}" text-anchor="middle">'
                    f"{counts[name]}</text>"
                )
        parts.append(f'<text x="{x + 14}" y="{base + 16}" text-anchor="middle">{day:%a}</text>')
        said.append(f"{day:%a} {counts['asked']} asked, {counts['answered']} answered")
    return _svg("Questions this week: " + "; ".join(said), width, height, "".join(parts))


def _bars(rows: list[tuple[str, int]], colour: str, label: str) -> Markup:
    """Horizontal bars, one a row, its label above it."""
    top = max([1] + [count for _, count in rows])
    width, step = 320, 34
    parts = []
    for index, (name, count) in enumerate(rows):
        y = index * step
        long = round(250 * count / top)
        parts.append(f'<text x="0" y="{y + 11}">{escape(name[:60])}</text>')
        parts.append(
            f'<rect x="0" y="{y + 15}" width="{max(long, 2)}" height="12" fill="{colour}"/>'
        )
        parts.append(f'<text x="{max(long, 2) + 6}" y="{y + 25}">{count}</text>')
    said = "; ".join(f"{name}: {count}" for name, count in rows)
    return _svg(f"{label}: {said}", width, max(step * len(rows), step), "".join(parts))


def waiting_chart(
    open_items: list[dict[str, object]], moment: datetime
) -> tuple[Markup, str | None]:
    """Open questions by how long they have waited; and the longest wait, in words."""
    hours = []
    for item in open_items:
        created = item.get("created_at")
        try:
            since = datetime.strptime(str(created), "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)
        except ValueError:  # None, or no time we wrote
            continue
        hours.append(max((moment - since).total_seconds() / 3600, 0))
    counts = []
    for index, (name, limit) in enumerate(AGES):
        low = AGES[index - 1][1] if index else 0
        counts.append(
            (name, sum(1 for h in hours if (low or 0) <= h and (limit is None or h < limit)))
        )
    return _bars(counts, WAITING, "Questions waiting for you, by how long"), _longest(
        max(hours) if hours else None
    )


def _longest(hours: float | None) -> str | None:
    if hours is None:
        return None
    if hours < 1:
        return "less than an hour"
    if hours < 48:
        return f"{int(hours)} hour{'s' if int(hours) != 1 else ''}"
    return f"{int(hours // 24)} days"


def picture(
    db: Database,
    me: Principal,
    open_items: list[dict[str, object]],
    say_rule: Callable[[RuleRefusals], str | None],
) -> dict[str, object]:
    """Everything Home draws for the week: charts, totals and the refusals in people's words."""
    moment = datetime.now(UTC)
    days = _days(moment)
    since = format_time(days[0].replace(hour=0, minute=0, second=0, microsecond=0))
    per_day = week_rows.questions_by_day(db, me.id, since)
    refusals = week_rows.refusals_by_rule(db, me.handle, since)
    named = [(say_rule(row) or f"rule “{row.rule}”", row.count) for row in refusals]
    waiting, longest = waiting_chart(open_items, moment)
    return {
        "asked": sum(c["asked"] for c in per_day.values()),
        "answered": sum(c["answered"] for c in per_day.values()),
        "questions": questions_chart(per_day, days),
        "waiting": waiting,
        "longest": longest,
        "refusals": _bars(named, REFUSED, "Your agents' calls refused this week, by rule")
        if named
        else None,
        "refused": sum(count for _, count in named),
    }
