"""Asking members' answering agents: the ask, the output checks, and the decision queue.

Imports: answering, identity, access, manifest, store, errors.
"""

from server.asking.escalations import AlreadyDecided, Asked, AskError, Escalations, NoSuchEscalation

__all__ = ["AlreadyDecided", "AskError", "Asked", "Escalations", "NoSuchEscalation"]
