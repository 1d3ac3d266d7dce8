"""Vocabulary files: the words a club's users say for its tools' nouns, per language.

Also the adjectives and adverbs of the tools (a parameter's name or value, an option like
`permanent`) with words of the same and of the opposite sense: they choose between tools a turn
already reached and fill the parameter they name, and never reach a tool on their own.

Each file's digest is recorded in `digests.json` beside it; a file altered after it was recorded
is refused at load (`parley vocabulary record` records a deliberate edit). Every plan names the
digest of the vocabulary it was read with.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import yaml

from server import defaults_dir
from server.router.reader import LANGUAGES, fold

VOCABULARY_DIR = defaults_dir() / "vocabulary"
DIGESTS = "digests.json"


class VocabularyError(ValueError):
    pass


@dataclass(frozen=True)
class Adjective:
    means: str  # the tool-side word: a parameter name, an enum value, or a word of a tool's name
    synonyms: tuple[str, ...] = ()
    antonyms: tuple[str, ...] = ()


@dataclass(frozen=True)
class Vocabulary:
    language: str
    nouns: dict[str, str] = field(default_factory=dict)  # folded user word or phrase → tool noun
    adjectives: tuple[Adjective, ...] = ()
    digest: str = ""

    @cached_property
    def phrase_sizes(self) -> tuple[int, ...]:
        """The lengths, in words, of the phrases among the nouns (3, 2), longest first."""
        return tuple(sorted({len(k.split()) for k in self.nouns if " " in k}, reverse=True))

    def noun(self, word: str) -> str | None:
        """The tool noun a user's word or phrase names; plural and singular both count."""
        folded = fold(word)
        for candidate in (folded, folded + "s", folded[:-1] if folded.endswith("s") else None):
            if candidate and candidate in self.nouns:
                return self.nouns[candidate]
        return None

    def adjective(self, word: str) -> tuple[str, bool] | None:
        """(the tool-side word, True for same sense / False for opposite) for a turn's word.
        A word that is a synonym of one adjective and an antonym of another reads as the synonym."""
        folded = fold(word)
        for adjective in self.adjectives:
            if folded == fold(adjective.means) or folded in adjective.synonyms:
                return adjective.means, True
        for adjective in self.adjectives:
            if folded in adjective.antonyms:
                return adjective.means, False
        return None


def canonical(data: dict[str, object]) -> bytes:
    return json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode(
        "utf-8"
    )


def parse(data: object, source: str = "<vocabulary>") -> Vocabulary:
    """A vocabulary from its data as read from YAML (anything: it is checked here)."""
    if not isinstance(data, dict):
        raise VocabularyError(
            f"{source}: a vocabulary is a mapping with language, nouns and adjectives"
        )
    language = data.get("language")
    if language not in LANGUAGES:
        raise VocabularyError(f"{source}: language must be one of {', '.join(LANGUAGES)}")
    unknown = sorted(set(data) - {"language", "nouns", "adjectives"})
    if unknown:
        raise VocabularyError(f"{source}: unknown key(s) {', '.join(unknown)}")
    nouns_raw = data.get("nouns") or {}
    if not isinstance(nouns_raw, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in nouns_raw.items()
    ):
        raise VocabularyError(f"{source}: nouns maps a user's word to a tool noun, both text")
    nouns = {fold(k).strip(): v.strip().lower() for k, v in nouns_raw.items()}
    adjectives = []
    for entry in data.get("adjectives") or []:
        if not isinstance(entry, dict) or not isinstance(entry.get("means"), str):
            raise VocabularyError(
                f"{source}: each adjective needs 'means' (and synonyms, antonyms lists)"
            )
        adjectives.append(
            Adjective(
                means=entry["means"].lower(),
                synonyms=tuple(sorted(fold(w) for w in entry.get("synonyms") or [])),
                antonyms=tuple(sorted(fold(w) for w in entry.get("antonyms") or [])),
            )
        )
    body = {
        "language": language,
        "nouns": dict(sorted(nouns.items())),
        "adjectives": [
            a.__dict__ | {"synonyms": list(a.synonyms), "antonyms": list(a.antonyms)}
            for a in adjectives
        ],
    }
    digest = "sha256:" + hashlib.sha256(canonical(body)).hexdigest()
    return Vocabulary(language, dict(sorted(nouns.items())), tuple(adjectives), digest)


def file_digest(path: Path) -> str:
    return "sha256:" + hashlib.sha256(path.read_bytes()).hexdigest()


def load(language: str, directory: Path | None = None) -> Vocabulary:
    """Load a language's vocabulary, refusing a file that changed since its digest was recorded."""
    directory = Path(directory) if directory else VOCABULARY_DIR
    path = directory / f"{language}.yaml"
    if not path.is_file():
        return parse({"language": language}, str(path))
    recorded = _recorded(directory)
    if path.name not in recorded:
        raise VocabularyError(
            f"{path}: no recorded digest; run 'parley vocabulary record' after reviewing it"
        )
    if recorded[path.name] != file_digest(path):
        raise VocabularyError(f"{path} was altered after its digest was recorded; refusing it")
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise VocabularyError(f"{path}: not valid YAML: {exc}") from None
    vocabulary = parse(data, str(path))
    if vocabulary.language != language:
        raise VocabularyError(f"{path}: says language {vocabulary.language}, expected {language}")
    return vocabulary


def _recorded(directory: Path) -> dict[str, str]:
    path = directory / DIGESTS
    if not path.is_file():
        return {}
    recorded = json.loads(path.read_text())
    if not isinstance(recorded, dict):
        raise VocabularyError(f"{path}: a mapping of vocabulary file names to digests")
    return {str(name): str(digest) for name, digest in recorded.items()}


def record(directory: Path | None = None) -> dict[str, str]:
    """Record the digest of every vocabulary file after validating it."""
    directory = Path(directory) if directory else VOCABULARY_DIR
    digests = {}
    for path in sorted(directory.glob("*.yaml")):
        try:
            data = yaml.safe_load(path.read_text(encoding="utf-8"))
        except yaml.YAMLError as exc:
            raise VocabularyError(f"{path}: not valid YAML: {exc}") from None
        parse(data, str(path))
        digests[path.name] = file_digest(path)
    (directory / DIGESTS).write_text(json.dumps(digests, indent=2, sort_keys=True) + "\n")
    return digests
