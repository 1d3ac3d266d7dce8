"""Right, wrong and unanswerable answered, counted question by question (issue #46's figures)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # answer_rate builds its own figures on this tally
    from tests.answering.answer_rate import Question


@dataclass
class Tally:
    """Right, wrong and unanswerable answered on a set of questions, and right by language: the one
    way every report counts them (`answer_rate.Figures` adds the screen's figures)."""

    answerable: int = 0
    right: int = 0
    wrong: int = 0
    unanswerable: int = 0
    unanswerable_answered: int = 0
    by_language: dict[str, list[int]] = field(default_factory=dict)
    mistakes: list[str] = field(default_factory=list)
    most_quoted: int = 0  # the most notes one answer quoted

    def add(self, q: Question, quoted: tuple[str, ...]) -> None:
        self.most_quoted = max(self.most_quoted, len(quoted))
        if q.note is None:
            self.unanswerable += 1
            if quoted:
                self.unanswerable_answered += 1
                self.mistakes.append(f"answered unanswerable {q.text!r} with {quoted}")
            return
        self.answerable += 1
        tally = self.by_language.setdefault(q.language, [0, 0])
        tally[1] += 1
        if q.note in quoted:
            self.right += 1
            tally[0] += 1
        elif quoted:
            self.wrong += 1
            self.mistakes.append(f"wrong {q.text!r}: {quoted}, wanted {q.note}")

    def line(self) -> str:
        def rate(part: int, whole: int) -> float:
            return part / whole if whole else 0.0

        languages = ", ".join(
            f"{lang} {rate(*self.by_language.get(lang, [0, 0])):.3f}" for lang in ("en", "pt-BR")
        )
        return (
            f"right {rate(self.right, self.answerable):.3f} ({self.right}/{self.answerable}), "
            f"wrong {rate(self.wrong, self.answerable):.3f} ({self.wrong}), unanswerable answered "
            f"{rate(self.unanswerable_answered, self.unanswerable):.3f} "
            f"({self.unanswerable_answered}/{self.unanswerable}); {languages}"
        )

    @property
    def wrong_rate(self) -> float:
        return self.wrong / self.answerable if self.answerable else 0.0

    @property
    def unanswerable_rate(self) -> float:
        return self.unanswerable_answered / self.unanswerable if self.unanswerable else 0.0

    @property
    def right_rate(self) -> float:
        return self.right / self.answerable if self.answerable else 0.0
