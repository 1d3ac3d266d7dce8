"""What a member's confirmed examples teach the matcher: the member's own words for a note.

When the principal settles an escalated question by pointing at the note that answers it, the question
becomes an example of that note (`contract.Note.examples`): a labelled pair in the member's vocabulary
and across the two languages ("does she drive?" meant "Não tenho carro"). The matcher reads a note's
examples as part of that note, never as a note of their own (an example as an extra entry competes
with its own note in the margin test):
- by their words (`expanded`): the note's text is read with its examples' words beside it, ranked with
  BM25 among the member's notes, so a word of an example that no other note holds ties the member's
  word to that note strongly, and one that many notes hold weighs little;
- by their meaning (`nearer`): questions resemble each other more than they resemble notes, so an
  example's cosine is read against the member's other examples (its z-score over them), never against
  the notes' cosines; a note stands where the higher of its own z-score among the notes and its
  nearest example's among the examples puts it.
`sureness.decide` applies unchanged: examples move notes up, they do not loosen what "sure" means.
Only the notes handed to the answerer carry examples (an asker's view of a member's notes carries
those notes' examples only), so an example can never make a note the asker may not see a candidate.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

Note = tuple[str, str, str]
EXAMPLES_AMONG = 4  # an example's z-score is read among this many examples at least


def expanded(notes: Sequence[Note], examples: Mapping[str, Sequence[str]]) -> tuple[Note, ...]:
    """Each note with its examples' text after its own (examples in a fixed order)."""
    return tuple(
        (note_id, topic, "\n".join([text, *sorted(examples.get(note_id, ()))]))
        for note_id, topic, text in notes
    )


def flattened(
    notes: Sequence[Note], examples: Mapping[str, Sequence[str]]
) -> tuple[tuple[str, ...], tuple[int, ...]]:
    """Every example of the notes (fixed order), and the position of the note each belongs to."""
    pairs = [
        (example, position)
        for position, (note_id, _, _) in enumerate(notes)
        for example in sorted(examples.get(note_id, ()))
    ]
    return tuple(example for example, _ in pairs), tuple(position for _, position in pairs)


def nearer(note_z: list[float], example_z: list[float], owners: Sequence[int]) -> list[float]:
    """Each note's z-score: its own among the notes, or its nearest example's among the examples,
    whichever is higher (when there are EXAMPLES_AMONG examples at least)."""
    if len(example_z) < EXAMPLES_AMONG:
        return note_z
    found = list(note_z)
    for z, position in zip(example_z, owners, strict=True):
        found[position] = max(found[position], z)
    return found
