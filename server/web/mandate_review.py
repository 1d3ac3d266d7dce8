"""What a new mandate version changes, in a member's words, shown before they sign it: the topics
their agent starts or stops answering about, what it may reveal, what every issued token gains or
loses from its next request, and the expiry (kept unless changed)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from server.identity.mandates import MandateBody
from server.store.database import format_time, parse_time


def _listed(items: list[str]) -> str:
    quoted = [f"“{item}”" for item in items]
    return quoted[0] if len(quoted) == 1 else ", ".join(quoted[:-1]) + " and " + quoted[-1]


def new_expiry(body: MandateBody | None, valid: bool, days: int | None) -> str:
    """The expiry the new version gets: the current one kept when no number of days is given."""
    if days is None and body is not None and valid:
        return body.expires_at
    return format_time(datetime.now(UTC) + timedelta(days=days or 365))


def changes(
    body: MandateBody | None,
    valid: bool,
    topics: list[str],
    reveal: list[str],
    quotable: bool,
    scopes: list[str],
    expires_at: str,
    describe: dict[str, str],
) -> list[str]:
    """Sentences, one a change; an empty list when the new version changes nothing."""
    before_topics = set(body.topics) if body else set()
    after_topics = {t.strip().lower() for t in topics if t.strip()}
    lines = []
    if after_topics - before_topics:
        lines.append(
            f"Your agent starts answering about {_listed(sorted(after_topics - before_topics))}."
        )
    if before_topics - after_topics:
        lines.append(
            f"Your agent stops answering about {_listed(sorted(before_topics - after_topics))}: "
            "such questions come to you instead."
        )
    before_reveal, after_reveal = set(body.reveal) if body else set(), set(reveal)
    for visibility in sorted(after_reveal - before_reveal):
        lines.append(f"Your agent may now reveal notes marked {visibility}.")
    for visibility in sorted(before_reveal - after_reveal):
        lines.append(f"Your agent no longer reveals notes marked {visibility}.")
    if body is None or body.quotable != quotable:
        lines.append(
            "Answers may be quoted with attribution." if quotable else "Answers may not be quoted."
        )
    before_scopes = set(body.scopes) if body and valid else set()
    lost, gained = sorted(before_scopes - set(scopes)), sorted(set(scopes) - before_scopes)
    if lost:
        lines.append(
            "From its very next request, every token you issued (including ones you forgot) can no longer: "
            f"{'; '.join(describe.get(s, s).rstrip('.').lower() for s in lost)}."
        )
    if gained:
        lines.append(
            f"Your agents may again: {'; '.join(describe.get(s, s).rstrip('.').lower() for s in gained)} "
            "(tokens minted with it get it back; new tokens can have it)."
        )
    if body is not None and valid and expires_at == body.expires_at:
        lines.append(f"It still expires on {parse_time(expires_at):%-d %b %Y}, as now.")
    else:
        lines.append(f"It expires on {parse_time(expires_at):%-d %b %Y}.")
    return lines
