"""Vocabulary files (digests recorded, altered files refused) and the seed's own store examples."""

from __future__ import annotations

import shutil

import pytest

from server.router import plan
from server.router.vocabulary import VOCABULARY_DIR, VocabularyError, load, record
from tests.router.conftest import catalogue, vocabulary


def show(turn: str, language: str) -> list[str]:
    """The seed's show(): outcome, then kind | decided_by | tool | arguments | sources per step."""
    result = plan(turn, catalogue("store"), language, vocabulary("store", language))
    lines = [f"{turn!r}: {result.outcome}"]
    for step in result.steps:
        lines.append(
            f"  {step.kind} | {step.decided_by} | {step.selection.tool or '-'} | "
            f"{dict(step.selection.arguments)} | from {dict(step.selection.sources)}"
        )
    if result.outcome != "run":
        lines.append(f"  says: {result.guidance.render}")
    return lines


def test_the_seeds_store_examples_in_portuguese():
    transcript = []
    for turn in [
        "mostre o pedido 4411",
        "cobre o pedido 4411 em 40,00",
        "cobre 40,00 do pedido 4411",
        "cobre o pedido 4411",
        "apague o pedido 4411",
        "zork o frobnicador",
    ]:
        transcript += show(turn, "pt-BR")
    assert transcript == [
        "'mostre o pedido 4411': run",
        "  tool | tool: admission | get_order | {'order_id': '4411'} | from {'order_id': 'turn'}",
        "'cobre o pedido 4411 em 40,00': run",
        "  tool | tool: derived | charge_card | {'amount': '40,00', 'order_id': '4411'} "
        "| from {'amount': 'turn', 'order_id': 'turn'}",
        "'cobre 40,00 do pedido 4411': run",
        "  tool | tool: derived | charge_card | {'amount': '40,00', 'order_id': '4411'} "
        "| from {'amount': 'turn', 'order_id': 'turn'}",
        "'cobre o pedido 4411': ask",
        "  ask | ask: incomplete | charge_card | {'order_id': '4411'} | from {'order_id': 'turn'}",
        "  says: Posso charge card, mas preciso de amount.",
        "'apague o pedido 4411': unread",
        "  unread | unread: no tool | - | {} | from {}",
        '  says: Posso get "pedido", mas nada aqui consegue apagar isso.',
        "'zork o frobnicador': unread",
        "  unread | unread: no tool | - | {} | from {}",
        "  says: Não reconheci nada nisso. Posso charge card, get order, hand off, read inbox ou send receipt. "
        "Pode dizer qual ferramenta ou qual item você quer?",
    ]


def test_the_seeds_store_examples_in_english():
    transcript = []
    for turn in [
        "show order 4411",
        "charge order 4411 40.00",
        "charge 40.00 to order 4411",
        "charge order 4411",
        "delete order 4411",
        "zork the frobnicator",
    ]:
        transcript += show(turn, "en")
    assert transcript == [
        "'show order 4411': run",
        "  tool | tool: admission | get_order | {'order_id': '4411'} | from {'order_id': 'turn'}",
        "'charge order 4411 40.00': run",
        "  tool | tool: derived | charge_card | {'amount': '40.00', 'order_id': '4411'} "
        "| from {'amount': 'turn', 'order_id': 'turn'}",
        "'charge 40.00 to order 4411': run",
        "  tool | tool: derived | charge_card | {'amount': '40.00', 'order_id': '4411'} "
        "| from {'amount': 'turn', 'order_id': 'turn'}",
        "'charge order 4411': ask",
        "  ask | ask: incomplete | charge_card | {'order_id': '4411'} | from {'order_id': 'turn'}",
        "  says: I can charge card, but I need amount.",
        "'delete order 4411': unread",
        "  unread | unread: no tool | - | {} | from {}",
        '  says: I can get "order", but nothing here can delete that.',
        "'zork the frobnicator': unread",
        "  unread | unread: no tool | - | {} | from {}",
        "  says: I didn't recognise anything in that. I can charge card, get order, hand off, read inbox or "
        "send receipt. Can you say which tool or which item you want?",
    ]


def test_portuguese_reads_the_same_with_or_without_accents_and_informally():
    same = [
        "você pode cancelar o pedido 4411?",
        "voce pode cancelar o pedido 4411?",
        "vc pode cancelar o pedido 4411?",
        "cancela o pedido 4411",
    ]
    plans = [plan(t, catalogue("store"), "pt-BR", vocabulary("store", "pt-BR")) for t in same]
    assert {(p.outcome, p.guidance.outcome, p.form.predicate) for p in plans} == {
        ("unread", "unmet_action", "cancel")
    }


def test_language_is_chosen_never_guessed():
    with pytest.raises(ValueError, match="never guesses"):
        plan("show order 4411", catalogue("store"), "es", vocabulary("store", "en"))
    with pytest.raises(ValueError, match="vocabulary is for en"):
        plan("mostre o pedido 4411", catalogue("store"), "pt-BR", vocabulary("store", "en"))
    for turn, language in (
        ("show order 4411", "pt-BR"),
        ("zeig mir die Bestellung 4411", "en"),
        ("mostre o pedido 4411", "en"),
        ("delete order 4411", "pt-BR"),
    ):
        result = plan(turn, catalogue("store"), language, vocabulary("store", language))
        assert result.outcome == "unread" and all(s.kind == "unread" for s in result.steps), (
            turn,
            language,
        )


def test_every_plan_names_its_vocabulary_digest():
    club = load("pt-BR")
    assert club.digest.startswith("sha256:")
    result = plan("mostre meu perfil", catalogue("club"), "pt-BR", club)
    assert result.vocabulary_digest == club.digest


def test_an_altered_vocabulary_file_is_refused(tmp_path):
    folder = tmp_path / "vocabulary"
    shutil.copytree(VOCABULARY_DIR, folder)
    assert load("en", folder).language == "en"
    path = folder / "en.yaml"
    path.write_text(path.read_text() + "\n# an unreviewed edit\n")
    with pytest.raises(VocabularyError, match="altered after its digest was recorded"):
        load("en", folder)
    record(folder)
    assert load("en", folder).language == "en"
    (folder / "digests.json").write_text("{}")
    with pytest.raises(VocabularyError, match="no recorded digest"):
        load("en", folder)


@pytest.mark.parametrize(
    "body, message",
    [
        ("language: fr\n", "language must be one of"),
        ("language: en\nnouns: [a, b]\n", "nouns maps"),
        ("language: en\nadjectives: [{synonyms: [x]}]\n", "needs 'means'"),
        ("language: en\nverbs: {}\n", "unknown key"),
    ],
)
def test_bad_vocabulary_files_are_refused_with_reasons(tmp_path, body, message):
    (tmp_path / "en.yaml").write_text(body.replace("\\\n", "\n"))
    with pytest.raises(VocabularyError, match=message):
        record(tmp_path)


def test_the_vocabulary_folder_is_found_in_the_installed_package(tmp_path):
    """Installed, manifests/ ships inside the package as server/defaults; a checkout has it beside the
    package. Both are found from the package's own folder (`server.defaults_dir`)."""
    from server import PACKAGE, defaults_dir
    from server.router import vocabulary as module

    assert module.VOCABULARY_DIR.parts[-2:] == ("manifests", "vocabulary")
    assert module.VOCABULARY_DIR == defaults_dir(PACKAGE) / "vocabulary"
    installed = tmp_path / "site-packages" / "server"
    shutil.copytree(module.VOCABULARY_DIR.parent, installed / "defaults")
    assert defaults_dir(installed) == installed / "defaults"
    assert load("pt-BR", defaults_dir(installed) / "vocabulary").language == "pt-BR"
    with pytest.raises(FileNotFoundError, match="no default club"):
        defaults_dir(tmp_path / "elsewhere" / "server")
