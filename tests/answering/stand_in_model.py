"""A model answerer on the answer-rate corpus, through the real contract: `ModelAnswerer` posts to an
OpenAI-compatible stand-in on loopback and parses its JSON reply. No small generative model installs
from the package registries here, so the stand-in states its rule: it reads the notes and question it
was sent (ids and text, as a model would see them) and replies `{"notes": [id]}` with the note the
deterministic matcher chooses, or `{"escalate": …}`. Its figures show what the JSON path keeps or
loses, not what a real model would add (choosing by meaning).

    scripts/answer-rate --answerer tests.answering.stand_in_model:answer --split all
"""

from __future__ import annotations

import json
import re
from functools import lru_cache

from server.answering import Note, ScopedRequest, Selection, Terms
from server.answering.matching import match
from server.answering.model import ModelAnswerer
from tests.grounding_helpers import Model, model_endpoint


def _rule(system: str, question: str) -> str:
    notes = [
        (found[0], found[1], found[2])
        for found in re.findall(r"^(\d+|[\w.-]+): \[([^\]]*)\] (.*)$", system, flags=re.MULTILINE)
    ]
    language = "pt-BR" if "Brazilian Portuguese" in system else "en"
    chosen = match(question, language, notes).chosen
    return json.dumps(
        {"notes": list(chosen)} if chosen else {"escalate": "no note clearly answers"}
    )


_ENDPOINTS: list = []  # held open as long as the measuring process lives


@lru_cache(maxsize=1)
def _model() -> ModelAnswerer:
    endpoint = model_endpoint(Model(_rule))
    _ENDPOINTS.append(endpoint)
    return ModelAnswerer(endpoint.__enter__(), "stand-in", timeout=10)


def answer(request: ScopedRequest, terms: Terms, notes: list[Note]) -> Selection:
    return _model()(request, terms, notes)
