"""The router: a deterministic reader of turns (English, Brazilian Portuguese) into plans of steps."""

from server.router.catalogue import Catalogue
from server.router.model import TurnPlan
from server.router.planner import plan
from server.router.vocabulary import Vocabulary, VocabularyError, load

__all__ = ["Catalogue", "TurnPlan", "Vocabulary", "VocabularyError", "load", "plan"]
