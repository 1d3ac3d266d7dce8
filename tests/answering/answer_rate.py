"""The answer rate of an answering agent on the paraphrase corpus (issue #33): does it quote the note
that answers a question asked in other words, and keep quiet when no note does?

Usage: scripts/answer-rate [--answerer NAME|module:function] [--corpus NAME]... [--newest] [--mistakes]
           (each corpus on its own, first ask: `corpora`; those never fitted on only with --newest)
       scripts/answer-rate --learn [--corpus NAME]... [--newest]
           (first ask, the member teaches through `parley queue answer`, ask again: `learning`)
       scripts/answer-rate --split tuning|holdout|fresh|more|all   (the paraphrase corpus's old splits)
       scripts/answer-rate --speed   (the matcher's p50 and p99: 200 notes and 1,000 examples, and
                                      each member's own notes)
       scripts/answer-rate --fit     (refits the matcher's gates leaving whole corpora out: fit_gates)

An answerer is either
- `deterministic` (today's `server.answering.deterministic.answer`), or any `module:function` with the
  same signature `(ScopedRequest, Terms, list[Note]) -> Answer`: the notes it quoted are the notes whose
  text its findings carry verbatim (answers are composed of notes quoted verbatim), or whose ids a
  result that names its selection (`.notes`, `.chosen`, or a sequence of ids) names;
- `matcher`: `server.answering.screen.classify` then `server.answering.matching.match`, the pure pieces
  the answerer is built from.
The mandate's topics do not block here: every note of the member is revealable to the asker, so the
figures measure understanding, not the mandate. The held-out third (every third entry of each list,
see the corpus header) is scored only with `--split holdout` or `all`; the fresh held-out set
(paraphrase_fresh.yaml, written after that third had been looked at) only with `--split fresh` or `all`.
The tuning split also holds the later tuning questions (the corpus's `tuning_more`, never held out);
`--split more` scores them alone.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.answering.tally import Tally

CORPUS = Path(__file__).with_name("paraphrase_corpus.yaml")
FRESH = Path(__file__).with_name("paraphrase_fresh.yaml")
SPLITS = ("tuning", "holdout", "fresh", "more", "all")


@dataclass(frozen=True)
class Question:
    member: str
    note: str | None
    language: str
    text: str
    held_out: bool


@dataclass(frozen=True)
class Corpus:
    notes: dict[str, list[tuple[str, str, str]]]  # member -> (id, topic, text)
    names: dict[str, str]
    questions: list[Question]
    commitments: list[Question]
    false_friends: list[Question]
    fresh: list[Question]  # the fresh held-out set: questions only, of the same members
    more: list[Question]  # more tuning questions, written later (`tuning_more`): tuning only


def _held_out(index: int) -> bool:
    return index % 3 == 2


def load(path: Path = CORPUS, fresh: Path = FRESH) -> Corpus:
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    fresh_data = yaml.safe_load(fresh.read_text(encoding="utf-8"))
    notes = {
        member: [(n["id"], n["topic"], n["text"]) for n in body["notes"]]
        for member, body in data["members"].items()
    }
    names = {member: body["name"] for member, body in data["members"].items()}

    def questions(key: str, source: dict[str, Any] = data) -> list[Question]:
        return [
            Question(q.get("member", ""), q.get("note"), q["lang"], q["q"], _held_out(i))
            for i, q in enumerate(source[key])
        ]

    return Corpus(
        notes,
        names,
        questions("questions"),
        questions("commitments"),
        questions("false_friends"),
        questions("questions", fresh_data),
        [  # tuning data only: never held out, whatever its position
            Question(q["member"], q["note"], q["lang"], q["q"], False)
            for q in data.get("tuning_more", ())
        ],
    )


def in_split(items: Sequence[Question], split: str) -> list[Question]:
    """The corpus's entries of a split; `fresh` has none of them (see `questions_of`)."""
    if split == "all":
        return list(items)
    if split in ("fresh", "more"):
        return []
    return [q for q in items if q.held_out == (split == "holdout")]


def questions_of(corpus: Corpus, split: str) -> list[Question]:
    """The questions of a split: the corpus's two parts, the fresh set, or all three."""
    if split == "fresh":
        return list(corpus.fresh)
    if split == "more":
        return list(corpus.more)
    if split == "all":
        return list(corpus.questions) + list(corpus.more) + list(corpus.fresh)
    if split == "tuning":
        return in_split(corpus.questions, split) + list(corpus.more)
    return in_split(corpus.questions, split)


# --- answerers: each turns (question, language, member's notes) into (quoted note ids, escalation) ---

Selection = tuple[
    tuple[str, ...], str | None
]  # the note ids quoted, and why it did not answer (or None)
Answerer = Callable[[str, str, str, list[tuple[str, str, str]]], Selection]


def matcher_answerer(
    question: str, language: str, principal: str, notes: list[tuple[str, str, str]]
) -> Selection:
    from server.answering.matching import match
    from server.answering.screen import classify

    refused, escalate = classify(question, language)
    if refused is not None:
        return (), refused
    if escalate is not None:
        return (), escalate
    chosen = match(question, language, notes, names=(principal,)).chosen
    return chosen, None if chosen else "outside_mandate"


def _note_for(contract: Any, note_id: str, topic: str, text: str) -> Any:
    """A contract Note with whatever fields this version of the contract declares."""
    fields = getattr(contract.Note, "model_fields", {})
    values: dict[str, Any] = {"topic": topic, "text": text}
    if "id" in fields:
        values["id"] = note_id
    if "date" in fields:
        values["date"] = "2026-12-01"
    return contract.Note(**values)


def contract_answerer(function: Callable[..., Any]) -> Answerer:
    """Adapts an answerer with the answering contract's signature to a selection of note ids."""
    from server.answering import contract

    def run(
        question: str, language: str, principal: str, notes: list[tuple[str, str, str]]
    ) -> Selection:
        topics = tuple(dict.fromkeys(topic for _, topic, _ in notes))
        terms = contract.Terms(principal=principal, topics=topics, quotable=True)
        request = contract.ScopedRequest(question=question, asker="asker", language=language)
        result = function(request, terms, [_note_for(contract, *note) for note in notes])
        return _selection(result, notes)

    return run


def _selection(result: Any, notes: list[tuple[str, str, str]]) -> Selection:
    """The note ids a result quotes, and why it quotes none: a Selection (`notes`, `escalate`, `refused`),
    a Match (`chosen`), a sequence of ids, or an Answer whose findings carry notes verbatim."""
    known = {note_id for note_id, _, _ in notes}
    reason = getattr(result, "escalate", None) or getattr(result, "refused", None)
    for attribute in ("notes", "chosen"):
        named = getattr(result, attribute, None)
        if isinstance(named, (tuple, list)) and all(isinstance(n, str) for n in named):
            quoted = tuple(n for n in named if n in known)
            return quoted, reason or (None if quoted else "nothing quoted")
    if isinstance(result, (tuple, list)):
        quoted = tuple(n for n in result if n in known)
        return quoted, None if quoted else "nothing quoted"
    findings = getattr(result, "findings", None) or ""
    quoted = (
        tuple(note_id for note_id, _, text in notes if text in findings) if reason is None else ()
    )
    return quoted, reason or (None if quoted else "nothing quoted")


def resolve(name: str) -> Answerer:
    if name == "matcher":
        return matcher_answerer
    if name == "deterministic":
        name = "server.answering.deterministic:answer"
    module, _, attribute = name.partition(":")
    if not attribute:
        raise SystemExit(
            f"answer-rate: --answerer takes 'deterministic', 'matcher' or module:function, not {name!r}"
        )
    return contract_answerer(getattr(importlib.import_module(module), attribute))


# --- the figures -------------------------------------------------------------------------------


@dataclass
class Figures(Tally):
    """A tally of one split, with what else #33's report reads: unanswered questions, escalations as
    commitments, notes quoted per answer, and the question screen's figures."""

    unanswered: int = 0
    escalated_as_commitment: int = 0
    quoted_counts: list[int] = field(default_factory=list)
    commitments: int = 0
    commitments_escalated: int = 0
    commitments_missed: list[str] = field(default_factory=list)
    false_friends: int = 0
    false_friends_fired: list[str] = field(default_factory=list)

    def rate(self, part: int, whole: int) -> float:
        return part / whole if whole else 0.0

    @property
    def commitment_escalation_rate(self) -> float:
        return self.rate(self.escalated_as_commitment, self.answerable)

    def language_rate(self, language: str) -> float:
        right, asked = self.by_language.get(language, [0, 0])
        return self.rate(right, asked)

    @property
    def median_quoted(self) -> float:
        return statistics.median(self.quoted_counts) if self.quoted_counts else 0.0


def measure(
    answerer: Answerer, corpus: Corpus, split: str, screen: Screen | None = None
) -> Figures:
    """The figures of an answerer and of a question screen (the new one unless told) on one split."""
    screen = screen or new_screen()
    figures = Figures()
    for q in questions_of(corpus, split):
        quoted, reason = answerer(
            q.text, q.language, corpus.names[q.member], corpus.notes[q.member]
        )
        if quoted:
            figures.quoted_counts.append(len(quoted))
        figures.add(q, quoted)
        if q.note is None:
            continue
        if reason == "commitment":
            figures.escalated_as_commitment += 1
        if not quoted:
            figures.unanswered += 1
            figures.mistakes.append(f"unanswered {q.text!r} ({reason}), wanted {q.note}")
    for q in in_split(corpus.commitments, split):
        figures.commitments += 1
        if screen(q.text, q.language) == (None, "commitment"):
            figures.commitments_escalated += 1
        else:
            figures.commitments_missed.append(q.text)
    for q in in_split(corpus.false_friends, split):
        figures.false_friends += 1
        if screen(q.text, q.language) != (None, None):
            figures.false_friends_fired.append(q.text)
    return figures


Screen = Callable[[str, str], tuple[Any, Any]]


def new_screen() -> Screen:
    from server.answering.screen import classify

    return classify


def screen_of(name: str) -> Screen:
    """The question screen an answerer uses: its module's `classify` (today's reads en and pt-BR), else the new one."""
    if name == "matcher":
        return new_screen()
    module = importlib.import_module(
        "server.answering.deterministic" if name == "deterministic" else name.partition(":")[0]
    )
    classify = getattr(module, "classify", None)
    if classify is None:
        return new_screen()
    return lambda question, language: classify(question, "en" if language == "en" else "pt-BR")


def report(figures: Figures, title: str) -> str:
    lines = [
        f"{title}",
        f"  answerable {figures.answerable}: right {figures.right_rate:.3f} ({figures.right}), "
        f"wrong {figures.wrong_rate:.3f} ({figures.wrong}), unanswered {figures.unanswered}",
        f"  right by language: en {figures.language_rate('en'):.3f}, pt-BR {figures.language_rate('pt-BR'):.3f}",
        f"  unanswerable {figures.unanswerable}: "
        f"answered {figures.unanswerable_rate:.3f} ({figures.unanswerable_answered})",
        f"  notes quoted per answer: median {figures.median_quoted:g}, "
        f"max {max(figures.quoted_counts, default=0)}, "
        f"answers quoting more than one {sum(n > 1 for n in figures.quoted_counts)}",
        f"  answerable escalated as commitments: "
        f"{figures.commitment_escalation_rate:.3f} ({figures.escalated_as_commitment})",
        f"  commitment requests escalated: {figures.commitments_escalated}/{figures.commitments}; "
        f"false friends fired: {len(figures.false_friends_fired)}/{figures.false_friends}",
    ]
    return "\n".join(lines)


def speed(corpus: Corpus, size: int = 200, rounds: int = 5, examples_count: int = 1000) -> str:
    """p50 and p99 of one `match`, warm caches, CPU time of this thread (wall time also counts the time
    a loaded machine ran others), on two kinds of note sets:
    - `size` notes: the corpus's notes repeated under new ids. Every note has identical twins, so the
      words are never clearly ahead of a runner-up and nearly every question asks the encoder: the
      worst case for the encoder's share, not a member's briefing;
    - the same notes with `examples_count` examples among them (questions a member confirmed);
    - each member's own notes (14 to 16), every question asked of its member, as the corpus asks them.
    For each: the share of questions that asked the sentence encoder, the whole match (every question
    encoded anew: its cached vector is forgotten before each match), the match with the question's
    vector already cached (what selection costs once the question is encoded), and the match with the
    encoder left out (the words, the subjects and the question's kind alone)."""
    import time

    from server.answering import matching, meaning

    every = [note for notes in corpus.notes.values() for note in notes]
    repeated = [
        (f"{note_id}-{i // len(every)}", topic, text)
        for i, (note_id, topic, text) in ((i, every[i % len(every)]) for i in range(size))
    ]
    # 1,000 examples over the 200 notes: every question of the corpora, each taught to the notes of
    # its own note's copies in turn (5 a note), so each note answers questions like its own
    asked = [q for q in corpus.questions + corpus.more + corpus.fresh if q.note is not None]
    examples: dict[str, list[str]] = {}
    for i in range(examples_count):
        q = asked[i % len(asked)]
        copies = [n for n, _, _ in repeated if n.startswith(f"{q.note}-")]
        target = copies[(i // len(asked)) % len(copies)]
        examples.setdefault(target, []).append(f"{q.text} ({i})" if i >= len(asked) else q.text)
    matching.warm()
    meaning.warm()
    asked_encoder = [0]
    similarities = meaning.similarities

    def counted(question: str, notes: Sequence[tuple[str, str, str]]) -> list[float]:
        asked_encoder[0] += 1
        return similarities(question, notes)

    def quantiles(timings: list[float]) -> str:
        timings.sort()
        return (
            f"p50 {timings[len(timings) // 2] * 1e3:.3f} ms, "
            f"p99 {timings[int(len(timings) * 0.99)] * 1e3:.3f} ms"
        )

    def timed(
        notes_of: Callable[[Question], list[tuple[str, str, str]]],
        encoded: bool = False,
        taught: dict[str, list[str]] | None = None,
    ) -> tuple[str, float]:
        for q in corpus.questions:  # builds every index and note vector once
            matching.match(q.text, q.language, notes_of(q), (q.member,), taught)
        cpu, wall = [], []
        asked_encoder[0] = 0
        for _ in range(rounds):
            for q in corpus.questions:
                if not encoded:  # the question's vector forgotten (the notes' stay cached)
                    meaning._text_vector.cache_clear()
                start, start_cpu = time.perf_counter(), time.thread_time()
                matching.match(q.text, q.language, notes_of(q), (q.member,), taught)
                cpu.append(time.thread_time() - start_cpu)
                wall.append(time.perf_counter() - start)
        return f"CPU {quantiles(cpu)}; wall {quantiles(wall)}", asked_encoder[0] / len(cpu)

    lines = []
    sets: list[tuple[str, Callable[[Question], list[tuple[str, str, str]]], Any]] = [
        (f"{size} notes (the corpus's, repeated)", lambda q: repeated, None),
        (f"{size} notes and {examples_count} examples", lambda q: repeated, examples),
        ("each member's own notes", lambda q: corpus.notes[q.member], None),
    ]
    meaning.similarities = counted  # counts the encoder's turns
    try:
        for title, notes_of, taught in sets:
            whole, share = timed(notes_of, taught=taught)
            lines.append(
                f"match over {title}, {rounds * len(corpus.questions)} questions, "
                f"{share:.2f} asking the encoder: {whole}"
            )
            lines.append(
                f"match over {title}, the question already encoded (selection): "
                f"{timed(notes_of, encoded=True, taught=taught)[0]}"
            )
    finally:
        meaning.similarities = similarities
    encoder = []
    for q in corpus.questions:  # the encoder alone, as the matcher asks it
        meaning._text_vector.cache_clear()
        start_cpu = time.thread_time()
        similarities(q.text, repeated)
        encoder.append(time.thread_time() - start_cpu)
    lines.append(f"the sentence encoder alone, when asked: CPU {quantiles(encoder)}")
    return "\n".join(lines)


_PART = {
    "tuning": "tuning two-thirds and the later tuning questions",
    "holdout": "held-out third",
    "fresh": "fresh held-out set",
    "more": "later tuning questions alone",
}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="scripts/answer-rate", description=__doc__.splitlines()[0]
    )
    parser.add_argument(
        "--answerer",
        default="deterministic",
        help="deterministic (default), matcher, or module:function with the answering contract",
    )
    parser.add_argument(
        "--split",
        choices=SPLITS,
        help="the paraphrase corpus's old splits (#33) instead of the corpora one by one",
    )
    parser.add_argument(
        "--corpus",
        action="append",
        help="a corpus by name (ana, ravi, lucia, joana, daniel, tomas, iara); default: the fitted ones",
    )
    parser.add_argument(
        "--newest",
        action="store_true",
        help="the newest corpora too (rafael, yuki), never fitted on: score them only once the "
        "matcher is frozen",
    )
    parser.add_argument("--mistakes", action="store_true", help="list each miss")
    parser.add_argument(
        "--learn",
        action="store_true",
        help="first ask, the member teaches through `parley queue answer`, then ask again",
    )
    parser.add_argument(
        "--speed",
        action="store_true",
        help="time the matcher over 200 notes with 1,000 examples, and each member's own notes",
    )
    parser.add_argument(
        "--fit",
        action="store_true",
        help="refit the matcher's gates leaving whole corpora out (fit_gates.py)",
    )
    args = parser.parse_args(argv)
    if args.fit:
        from tests.answering.fit_gates import main as fit_gates

        return fit_gates()
    corpus = load()
    if args.speed:
        print(speed(corpus))
        return 0
    if args.split is None:
        return _by_corpus(args)
    answerer = resolve(args.answerer)
    splits = ("tuning", "holdout", "fresh") if args.split == "all" else (args.split,)
    for split in splits:
        figures = measure(answerer, corpus, split, screen_of(args.answerer))
        print(
            report(
                figures,
                f"{args.answerer} on the {_PART[split]}",
            )
        )
        if args.mistakes:
            for line in (
                figures.mistakes
                + [f"commitment missed {t!r}" for t in figures.commitments_missed]
                + [f"false friend fired {t!r}" for t in figures.false_friends_fired]
            ):
                print("   ", line)
    return 0


def _by_corpus(args: argparse.Namespace) -> int:
    """Each corpus on its own: first ask, or first ask and after the member taught (`--learn`)."""
    from tests.answering import corpora, learning

    names = args.corpus or [*corpora.FITTED, *(corpora.NEVER_FITTED if args.newest else ())]
    for name in names:
        member = corpora.corpus(name)
        newest = (
            " (the newest corpus)"
            if name in corpora.NEWEST
            else " (never fitted on)"
            if name in corpora.NEVER_FITTED
            else ""
        )
        if args.learn:
            found = learning.learn(member)
            print(
                f"{name}{newest}: {found.taught} first questions taught through parley queue answer"
            )
            print(f"  first ask, the other questions: {found.first_ask.line()}")
            print(f"  after learning, the same:       {found.learned.line()}")
            print(
                f"  the taught questions asked again: {found.again.line()}; "
                f"{found.held} held for the member's consent"
            )
            mistakes = found.learned.mistakes
        else:
            tally = corpora.first_ask(member, args.answerer)
            print(f"{name}{newest}, first ask: {tally.line()}")
            mistakes = tally.mistakes
        if args.mistakes:
            for line in mistakes:
                print("   ", line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
