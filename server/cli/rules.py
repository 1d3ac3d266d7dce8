"""`parley rules`: list, draft, publish and remove rules on tool calls."""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from server.cli.context import Context, UsageError, add_json, emit_json
from server.errors import ParleyError

# The rule book and the tools' schemas are imported when a command reads rules, not for `--help`.
if TYPE_CHECKING:
    from pathlib import Path

    from server.chokepoint.rulebook import RuleBook
    from server.manifest.check import Finding
    from server.manifest.schema import Manifest
    from server.store.database import Database


def _scalar(text: str) -> object:
    text = text.strip().strip('"').strip("'")
    for kind in (int, float):
        try:
            return kind(text)
        except ValueError:
            continue
    return text


def condition(text: str) -> dict[str, object]:
    """'amount is at most 500' → a builder condition; a value like subject.limit compares with an attribute."""
    from server.chokepoint.rules import OPERATORS

    for op in sorted(
        {op for by_type in OPERATORS.values() for op in by_type}, key=len, reverse=True
    ):
        if f" {op}" in f" {text} " and text.find(f" {op}") > 0:
            field, _, rest = text.partition(f" {op}")
            rest = rest.strip()
            found: dict[str, object] = {"field": field.strip(), "op": op}
            if not rest:
                return found
            if rest.startswith(("subject.", "resource.")):
                found["attribute"] = rest
            elif rest.startswith("[") and rest.endswith("]"):
                found["value"] = [_scalar(item) for item in rest[1:-1].split(",") if item.strip()]
            else:
                found["value"] = _scalar(rest)
            return found
    raise UsageError(f"no operator in '{text}' (e.g. 'amount is at most 500')")


def _book(ctx: Context) -> RuleBook:
    from server import tools
    from server.chokepoint.context_sources import ContextSources
    from server.chokepoint.rulebook import RuleBook

    return RuleBook(
        ctx.manifest,
        ctx.db,
        ContextSources(ctx.manifest.context_sources, ctx.db),
        tools.input_schemas(ctx.manifest),
    )


def stored_rule_findings(manifest: Manifest, db: Database) -> list[Finding]:
    """The store's rules checked against this manifest: a published rule that no longer compiles is an
    error (its tool refuses every call until a steward fixes or removes it), a draft one a warning."""
    from server import tools
    from server.chokepoint.context_sources import ContextSources
    from server.chokepoint.rulebook import RuleBook
    from server.manifest.check import Finding

    book = RuleBook(
        manifest,
        db,
        ContextSources(manifest.context_sources, db),
        tools.input_schemas(manifest),
        compile_manifest=False,
    )
    found = [
        Finding(
            "error",
            None,
            f"published rule '{rule.name}' on {rule.binding} no longer compiles "
            f"({rule.reason}): every call to {rule.tool} is refused until a steward fixes "
            f"or removes it (parley rules remove {rule.rule_id})",
            place=f"store:{rule.rule_id}",
        )
        for rule in book.broken()
    ]
    found += [
        Finding(
            "warning",
            None,
            f"draft rule '{row['name']}' on {row['binding']} no longer compiles "
            f"({row['problem']}): it cannot be published",
            place=row["id"],
        )
        for row in book.listing()
        if row["state"] == "draft" and row["problem"]
    ]
    return found


def store_findings(manifest_path: Path) -> list[Finding]:
    """`stored_rule_findings` for the configured store, when there is one (a fresh checkout has none);
    a store that cannot be read is an error: its rules cannot be vouched for."""
    from server.manifest.check import Finding
    from server.manifest.loading import load_manifest
    from server.manifest.schema import ManifestError
    from server.settings import Settings
    from server.store.migrations import require_current
    from server.store.opening import open_db

    settings = Settings.from_env()
    if not settings.shared_store and not settings.db_path.exists():
        return []
    try:
        manifest = load_manifest(manifest_path)
    except ManifestError:
        return []  # reported by the manifest's own check
    try:
        db = open_db(settings.store, create=False)
    except (ParleyError, OSError) as exc:
        return [
            Finding(
                "error",
                None,
                f"cannot read the rules in {settings.store_name}: {exc}",
                place="store",
            )
        ]
    try:
        if db.shared:
            require_current(db)
        return stored_rule_findings(manifest, db)
    except (ParleyError, ValueError) as exc:
        return [
            Finding(
                "error",
                None,
                f"cannot check the rules in {settings.store_name}: {exc}",
                place="store",
            )
        ]
    finally:
        db.close()


def _rule_id(text: str) -> int:
    raw = text.removeprefix("store:")
    if not raw.isdigit() or len(raw) > 12:
        raise UsageError(f"'{text}' is not a rule id (store:N or N; parley rules list shows them)")
    return int(raw)


def rules_list(args: argparse.Namespace) -> int:
    rows = _book(Context()).listing()
    if args.json:
        emit_json(rows)
        return 0
    for row in rows:
        state = (
            "removing" if row["removal_drafted"] else row["state"]
        )  # removed at the next publish
        print(
            f"{row['id']:<12} {state:<9} {row['binding']:<40} {row['name']}\n{'':<12} reads as: "
            f"{row['reads_as']}"
        )
    return 0


def rules_draft(args: argparse.Namespace) -> int:
    if bool(args.when) == bool(args.cel):
        raise UsageError("give either --when (one or more) or --cel")
    from pydantic import ValidationError

    from server.manifest.schema import RuleDecl

    book = _book(Context())
    try:
        decl = RuleDecl.model_validate(
            {
                "name": args.name,
                "binding": {"agent": args.agent, "tool": args.tool},
                "match": "any" if args.any else "all",
                "conditions": [condition(w) for w in args.when or []],
                "cel": args.cel,
            }
        )
    except ValidationError as exc:
        raise UsageError(
            "; ".join(f"{'.'.join(map(str, e['loc']))}: {e['msg']}" for e in exc.errors())
        ) from None
    ids = book.draft(decl)
    print(
        f"drafted {', '.join(f'store:{i}' for i in ids)}: {book.compile(decl, 'draft')[0].reads_as}"
    )
    print("publish it with: parley rules publish " + " ".join(str(i) for i in ids))
    return 0


def rules_publish(args: argparse.Namespace) -> int:
    if bool(args.id) == bool(args.all):
        raise UsageError(
            "name the draft to publish (parley rules publish N), or --all to publish every draft"
        )
    published = _book(Context()).publish(_rule_id(args.id) if args.id else None)
    print(f"published {', '.join(f'store:{i}' for i in published) or 'nothing (no drafts)'}")
    return 0


def rules_remove(args: argparse.Namespace) -> int:
    _book(Context()).remove(_rule_id(args.id), at_publish=args.at_publish)
    print(
        f"removal of {args.id} drafted: it stays in force until the next publish"
        if args.at_publish
        else f"removed {args.id}"
    )
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("rules", help="list, draft, publish or remove rules on tool calls")
    actions = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    s = actions.add_parser("list", help="every rule in force or drafted, read as a sentence")
    add_json(s)
    s.set_defaults(func=rules_list)
    s = actions.add_parser("draft", help="draft a rule on one binding (agent · parley · tool)")
    s.add_argument("--agent", required=True, help="the manifest agent (persona) of the binding")
    s.add_argument("--tool", required=True, help="the tool of the binding")
    s.add_argument("--name", required=True, help="the rule's name, shown in denials")
    s.add_argument(
        "--when", action="append", help="a condition, e.g. 'amount is at most 500'; repeat for more"
    )
    s.add_argument(
        "--any", action="store_true", help="allow when any condition holds (default: all)"
    )
    s.add_argument("--cel", help="a CEL expression instead of conditions")
    s.set_defaults(func=rules_draft)
    s = actions.add_parser("publish", help="put a draft in force (or every draft with --all)")
    s.add_argument("id", nargs="?", help="the draft's id (N or store:N)")
    s.add_argument("--all", action="store_true", help="publish every draft")
    s.set_defaults(func=rules_publish)
    s = actions.add_parser("remove", help="remove a draft or published rule")
    s.add_argument("id", help="the rule's id (N or store:N)")
    s.add_argument(
        "--at-publish",
        action="store_true",
        help="a rule in force stays so until the next publish, "
        "which also puts its replacement in force",
    )
    s.set_defaults(func=rules_remove)
