"""What a member's confirmed examples teach the matcher: the member's own words for a note.

When the principal settles an escalated question by pointing at the note that answers it, the question
becomes an example of that note (`contract.Note.examples`): a labelled pair in the member's vocabulary
and across the two languages ("does she drive?" meant "Não tenho carro"). The matcher reads a note's
examples as part of that note, never as a note of their own (an example as an extra entry competes
with its own note in the margin test):
- by their words (`view`): the note's text is read with its examples' words beside it, ranked with
  BM25 among the member's notes, so a word of an example that no other note holds ties the member's
  word to that note strongly, and one that many notes hold weighs little;
- by their meaning (`nearest`): questions resemble each other more than they resemble notes, so an
  example's cosine is read against the member's other examples (its z-score over them), never against
  the notes' cosines; when the question's nearest example stands EXAMPLE_APART above the rest, its
  note counts as the encoder's choice too, so the member's example can make the two rankers agree
  (it never unmakes an agreement the note itself made, and never ranks notes); but only where the
  note's own words rank it first: when the words' lead comes from that same example's words, the
  example's meaning and its words are one opinion, not two (round h46: on the corpora fitted, this
  joined "which country is ravi living in?" to "What does Ravi do for a living?", and "o Tomás dá
  aula de violão?" to "does Tomás teach woodworking?").
A question asked again in the very words of an example (`settled`: case, accents and punctuation
aside) is the member's own decision, not a guess: its note is quoted whatever the rankers say, when
that example belongs to one note only (an example the member gave two notes is theirs to settle again).
Otherwise `sureness.decide` applies unchanged; besides, an example that escalated though its note ranked first
calibrates what is sure for that note and this member (`sureness.confirmed_alike`), never below the
kind and yes-or-no floors that do not depend on the member.
Only the notes handed to the answerer carry examples (an asker's view of a member's notes carries
those notes' examples only), so an example can never make a note the asker may not see a candidate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

import numpy as np
import numpy.typing as npt

from server.answering.word_ranking import EXAMPLES_BELOW, as_asked

Note = tuple[str, str, str]
Vector = npt.NDArray[np.float64]
TaughtNote = tuple[str, str, str, tuple[str, ...]]  # a note and its examples
EXAMPLES_AMONG = 4  # an example's z-score is read among this many examples at least
EXAMPLE_APART = 2.0


@dataclass(frozen=True)
class View:
    """A member's notes as the matcher reads them once taught."""

    notes: tuple[Note, ...]  # each note with its examples' text after its own (`expanded`)
    examples: tuple[str, ...]  # every example, in a fixed order
    owners: tuple[int, ...]  # the position of the note each example belongs to
    # each example's words as asked (`as_asked`) -> the positions of the notes it is an example of
    asked: Mapping[tuple[str, ...], frozenset[int]]

    def settled(self, question: str) -> int | None:
        """The position of the note the member already said answers this very question (asked in
        the same words as one of its examples), if exactly one note holds it; else None."""
        owners = self.asked.get(as_asked(question), frozenset())
        return next(iter(owners)) if len(owners) == 1 else None


def with_examples(
    notes: Sequence[Note], examples: Mapping[str, Sequence[str]]
) -> tuple[TaughtNote, ...]:
    """The notes with their confirmed examples, as `view` reads them (cached by content)."""
    return tuple((*note, tuple(examples.get(note[0], ()))) for note in notes)


@lru_cache(maxsize=256)
def view(notes: tuple[TaughtNote, ...]) -> View:
    """Built once per notes and examples (cached by content, as the notes' index is)."""
    expanded = tuple(
        (note_id, topic, text + EXAMPLES_BELOW + "\n".join(sorted(examples)) if examples else text)
        for note_id, topic, text, examples in notes
    )
    pairs = [
        (example, position)
        for position, (_, _, _, examples) in enumerate(notes)
        for example in sorted(examples)
    ]
    asked: dict[tuple[str, ...], frozenset[int]] = {}
    for example, position in pairs:
        words = as_asked(example)
        asked[words] = asked.get(words, frozenset()) | {position}
    return View(
        expanded,
        tuple(example for example, _ in pairs),
        tuple(position for _, position in pairs),
        asked,
    )


def nearest(similarity: Vector, owners: Sequence[int]) -> int | None:
    """The note whose example is nearest the question, when that example stands EXAMPLE_APART
    standard deviations above the member's other examples (among EXAMPLES_AMONG at least); else
    None."""
    if len(similarity) < EXAMPLES_AMONG:
        return None
    spread = float(similarity.std())
    first = int(np.argmax(similarity))
    if spread <= 0 or (similarity[first] - similarity.mean()) / spread < EXAMPLE_APART:
        return None
    return owners[first]
