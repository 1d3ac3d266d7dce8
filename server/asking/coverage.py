"""Whether a member's signed mandate lets their answering agent quote a note: the answering path's
own test (`reveals`, which `escalations.revealable` applies to every note it hands an answerer), and
the sentence that says so to the member and their agent, computed from that same test.

A note the mandate does not cover is still approved, and kept; but a question it would answer goes
to the member in person, and the member is told so at approval, with the offer to add its topic.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from server.identity.mandates import MandateStatus

Gap = Literal["no_mandate", "private", "topic", "visibility"]


def reveals(
    body_topics: list[str],
    body_reveal: list[str],
    topic: str,
    visibility: str,
    asker_is_member: bool,
) -> bool:
    """Whether a mandate (its topics and reveal tiers) hands a note of this topic and visibility to an
    asker of this kind. A private note is never handed."""
    reveal = set(body_reveal) - {"private"}
    if not asker_is_member:
        reveal.discard("members")
    return visibility in reveal and topic in body_topics


@dataclass(frozen=True)
class Coverage:
    """What the mandate does with a note: quoted to some asker (`gap` None), or why not."""

    topic: str
    gap: Gap | None
    summary: str  # the mandate's terms in a sentence, or that there is none

    @property
    def offer_topic(self) -> bool:
        """Adding the note's topic to the mandate is all it would take for the agent to quote it."""
        return self.gap == "topic"

    def sentence(self, who: str = "you") -> str:
        """What happens to a question this note would answer, said to `who` ("you", the member; or
        "your principal", their agent)."""
        if self.gap is None:
            return ""
        reason = {
            "no_mandate": "there is no valid signed mandate, so the answering agent answers nothing",
            "private": "the note is private, and a private note is never quoted",
            "topic": f"the signed mandate does not cover the topic \u201c{self.topic}\u201d",
            "visibility": "the signed mandate reveals no notes of this visibility",
        }[self.gap]
        return (
            f"Questions on \u201c{self.topic}\u201d will still come to {who} in person: {reason}."
        )


def summary(status: MandateStatus) -> str:
    """The mandate's terms that decide which notes are quoted, in a sentence."""
    body = status.body if status.valid else None
    if body is None:
        return "No valid mandate is signed."
    topics = ", ".join(body.topics) or "no topics"
    reveal = ", ".join(r for r in body.reveal if r != "private") or "nobody"
    return f"Your mandate covers: {topics}; it reveals notes to: {reveal}."


def coverage(status: MandateStatus, topic: str, visibility: str) -> Coverage:
    """How the current mandate treats a note of this topic and visibility."""
    body = status.body if status.valid else None
    gap: Gap | None = None
    if body is None:
        gap = "no_mandate"
    elif visibility == "private":
        gap = "private"
    elif reveals(body.topics, body.reveal, topic, visibility, True):
        gap = None
    elif topic not in body.topics:
        gap = "topic"
    else:
        gap = "visibility"
    return Coverage(topic, gap, summary(status))
