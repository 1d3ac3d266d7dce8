"""How many questions are being answered at once, per asker, per member asked and in this process."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from server.asking.errors import AskError


class Busy(AskError):
    """Too many of this asker's (or to this member) questions are being answered right now."""

    status = 429

    def __init__(self, message: str, retry_after: int):
        super().__init__(message)
        self.retry_after = retry_after


@dataclass(frozen=True)
class AskLimits:
    """Questions being answered at once, per asking principal and per member asked, in this process:
    a burst of asks waits for nobody's answerer but its own, and a member's slow model cannot be
    queued without end."""

    per_asker: int = 4
    per_member: int = 8
    total: int = (
        16  # in this process: beyond what the answering workers can clear in a few seconds' turns
    )
    retry_after: int = 5  # seconds: what a refused ask is told to wait


class InFlight:
    """Counts of questions being answered, held for the duration of an answerer's work."""

    def __init__(self, limits: AskLimits):
        self.limits = limits
        self.askers: Counter[int] = Counter()
        self.members: Counter[int] = Counter()
        self.total = 0

    @contextmanager
    def hold(self, asker_id: int, member_id: int) -> Iterator[None]:
        limits = self.limits
        if self.askers[asker_id] >= limits.per_asker:
            raise Busy(
                f"busy: {limits.per_asker} of your questions are already being answered; retry in "
                f"{limits.retry_after} s",
                limits.retry_after,
            )
        if self.members[member_id] >= limits.per_member:
            raise Busy(
                f"busy: this member's agent is answering {limits.per_member} questions already; retry in "
                f"{limits.retry_after} s",
                limits.retry_after,
            )
        if self.total >= limits.total:
            raise Busy(
                f"busy: the club's answering agents have {limits.total} questions in hand; retry in "
                f"{limits.retry_after} s",
                limits.retry_after,
            )
        self.askers[asker_id] += 1
        self.members[member_id] += 1
        self.total += 1
        try:
            yield
        finally:
            self.total -= 1
            for counter, key in ((self.askers, asker_id), (self.members, member_id)):
                counter[key] -= 1
                if counter[key] <= 0:
                    del counter[key]
