"""The answer-rate corpora as whole, separate corpora, for fitting by leaving one out (issue #46).

Each corpus is one member's notes and the questions asked of them:
- `ana`, `ravi`, `lucia`: the paraphrase corpus of #33 (paraphrase_corpus.yaml: its questions, both
  thirds, and its later tuning questions) and the fresh set written after it (paraphrase_fresh.yaml),
  per member; one hand wrote all three, at three times;
- `joana`: corpus_joana.yaml, written for #46 before the round's matcher changes;
- `daniel`: corpus_daniel.yaml, written with joana's and kept aside as the newest of round i46m; it was
  scored after that round's freeze, so it is no longer clean and is now fitted on;
- `tomas`: corpus_tomas.yaml, written before round r46 changed the matcher and kept aside as the newest
  of that round; scored after its freeze, so it is no longer clean and is now fitted on;
- `iara`: corpus_iara.yaml (16 notes, 58 questions, 15 unanswerable), written before round h46 changed
  anything and without running the matcher on it, the newest of that round; scored after its freeze,
  fitted on since round c46;
- `bento`, `marisa`: corpus_bento.yaml and corpus_marisa.yaml (16 notes, 60 questions, 15 unanswerable
  each), written by hand at the start of round c46 by two helpers that never read the matcher's code
  nor ran it; scored once against round h46's frozen matcher (each had one unanswerable question
  answered), then fitted on;
- `rafael`, `yuki`: corpus_rafael.yaml and corpus_yuki.yaml (16 notes, 60 questions, 15 unanswerable
  each), written the same way in round c46 before its matcher changes: the NEWEST corpora, never fitted
  on, scored once the matcher was frozen for the round (`NEWEST`).
A fit reads the `FITTED` corpora only, and each of its figures is reported on a corpus left out of it.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import yaml

from tests.answering.answer_rate import Question, load
from tests.answering.tally import Tally

HERE = Path(__file__).parent
FITTED = ("ana", "ravi", "lucia", "joana", "daniel", "tomas", "iara", "bento", "marisa")
NEWEST = ("rafael", "yuki")
NEVER_FITTED = NEWEST  # scored only after a round's freeze
ALL = (*FITTED, *NEVER_FITTED)


@dataclass(frozen=True)
class MemberCorpus:
    name: str  # the corpus's name (its member's handle)
    member_name: str
    notes: list[tuple[str, str, str]]  # (id, topic, text)
    questions: list[Question]  # answerable ones name their note; the others have None


def _written_for_46(member: str) -> MemberCorpus:
    data = yaml.safe_load((HERE / f"corpus_{member}.yaml").read_text(encoding="utf-8"))
    notes = [(n["id"], n["topic"], n["text"]) for n in data["notes"]]
    questions = [Question(member, q["note"], q["lang"], q["q"], False) for q in data["questions"]]
    return MemberCorpus(member, data["name"], notes, questions)


def _of_the_paraphrase_corpus(member: str) -> MemberCorpus:
    corpus = load()
    asked = [q for q in corpus.questions + corpus.more + corpus.fresh if q.member == member]
    return MemberCorpus(member, corpus.names[member], corpus.notes[member], asked)


def corpus(name: str) -> MemberCorpus:
    """One corpus by name (see the module's docstring)."""
    if name in ("ana", "ravi", "lucia"):
        return _of_the_paraphrase_corpus(name)
    if name in ("joana", "daniel", "tomas", "iara", "bento", "marisa", *NEVER_FITTED):
        return _written_for_46(name)
    raise SystemExit(f"answer-rate: no corpus {name!r}; there are {', '.join(ALL)}")


def first_ask(member: MemberCorpus, answerer: str = "deterministic") -> Tally:
    """Every question of the corpus asked once of an answerer (the deterministic one unless told)
    that has never been taught: the member's handle as the principal, every note revealable."""
    from tests.answering.answer_rate import resolve

    answer = resolve(answerer)
    tally = Tally()
    for q in member.questions:
        quoted, _ = answer(q.text, q.language, member.name, member.notes)
        tally.add(q, quoted)
    return tally
