"""Asking members' answering agents: the ask, the output checks, and the decision queue.

Imports: answering, identity, access, manifest, store, errors.
"""

from server.asking.errors import AlreadyDecided, AskError, NoSuchEscalation
from server.asking.escalations import Asked, Escalations

__all__ = ["AlreadyDecided", "AskError", "Asked", "Escalations", "NoSuchEscalation"]
