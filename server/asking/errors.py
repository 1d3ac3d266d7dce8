"""What the asking layer refuses, each with a message safe to show the person who asked or decided."""

from __future__ import annotations

from server.errors import Conflict, NotFound, ParleyError


class AskError(ParleyError):
    """A question or decision that cannot be made as asked; the message says why."""


class NoSuchEscalation(AskError, NotFound):
    """No such escalation in this principal's queue (whether it exists elsewhere is not said)."""


class AlreadyDecided(AskError, Conflict):
    """A question already decided: a decision is final."""
