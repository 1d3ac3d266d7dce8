"""Loading a manifest: YAML without duplicate keys, the models, then the cross-references.

Every problem is collected with its path (and line, where YAML gives one), so `parley tools check`
and `parley serve` can say exactly where to look. The default club travels inside the package
(`server/defaults`, built from the top-level `manifests/` folder) or sits beside it in a checkout;
`server.defaults_dir` finds it from the imported package's own location.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Hashable, Iterable
from pathlib import Path

import yaml
from pydantic import ValidationError

from server import defaults_dir
from server.manifest.schema import DEFAULT_AGENT, LANES, Manifest, ManifestError, Problem


def default_manifest_path() -> Path:
    return defaults_dir() / "club.yaml"


Report = Callable[[tuple[str | int, ...], str], None]
"""Records one problem at a path in the manifest."""


def _check(manifest: Manifest) -> list[Problem]:
    """Every cross-reference the models cannot check alone, in the order a reader meets them."""
    problems: list[Problem] = []

    def problem(path: tuple[str | int, ...], message: str) -> None:
        label = (
            f"entry row {int(path[1]) + 1}" if path[:1] == ("entry",) and len(path) == 2 else None
        )
        problems.append(Problem(path, message, label=label))

    _check_lanes(manifest, problem)
    _check_tools(manifest, problem)
    for kind, n in Counter(manifest.evidence_kinds).items():
        if n > 1:
            problem(("evidence_kinds",), f"duplicate kind '{kind}'")
    _check_agents(manifest, problem)
    _check_entry(manifest, problem)
    return problems


def _check_lanes(manifest: Manifest, problem: Report) -> None:
    """The three lanes, each ceiling made of known scopes, once each; the guest holds none."""
    known = set(manifest.scopes)
    missing_lanes = [lane for lane in LANES if lane not in manifest.lanes]
    if missing_lanes:
        problem(
            ("lanes",),
            f"missing {', '.join(missing_lanes)} (the three lanes are {', '.join(LANES)})",
        )
    extra_lanes = [lane for lane in manifest.lanes if lane not in LANES]
    if extra_lanes:
        problem(
            ("lanes",),
            f"unknown lane {', '.join(extra_lanes)} (the three lanes are {', '.join(LANES)})",
        )
    for lane, decl in manifest.lanes.items():
        for scope in decl.ceiling:
            if scope not in known:
                problem(("lanes", lane, "ceiling"), f"unknown scope '{scope}'")
        for scope, n in Counter(decl.ceiling).items():
            if n > 1:
                problem(("lanes", lane, "ceiling"), f"duplicate scope '{scope}'")
    if manifest.lanes.get("guest") and manifest.lanes["guest"].ceiling:
        problem(
            ("lanes", "guest", "ceiling"), "the guest lane has no credential and can hold no scope"
        )


def _check_tools(manifest: Manifest, problem: Report) -> None:
    """A tool's scope is known and some lane's ceiling reaches it, or no caller could use it."""
    known = set(manifest.scopes)
    reachable = {scope for decl in manifest.lanes.values() for scope in decl.ceiling}
    for name, tool in manifest.tools.items():
        if tool.needs is None:
            continue
        if tool.needs not in known:
            problem(("tools", name, "needs"), f"unknown scope '{tool.needs}'")
        elif tool.needs not in reachable:
            problem(
                ("tools", name),
                f"no lane's ceiling holds '{tool.needs}', so no caller can reach it",
            )


def _check_agents(manifest: Manifest, problem: Report) -> None:
    """An agent names only tools, knowledge bases and links the manifest declares."""
    for name, agent in manifest.agents.items():
        for tool_name in agent.tools:
            if tool_name not in manifest.tools:
                problem(("agents", name, "tools"), f"unknown tool '{tool_name}'")
        for base in agent.knowledge:
            if base not in manifest.knowledge:
                problem(("agents", name, "knowledge"), f"unknown knowledge base '{base}'")
        if isinstance(agent.links, list):
            for link in agent.links:
                if link not in manifest.links:
                    problem(("agents", name, "links"), f"unknown link '{link}'")


def _check_entry(manifest: Manifest, problem: Report) -> None:
    """The entry table: known agents, every row reachable, and a last row that catches everyone."""
    if not manifest.entry:
        problem(("entry",), "the entry table needs at least one row")
    for number, row in enumerate(manifest.entry, start=1):
        if row.agent not in manifest.agents:
            problem(("entry", number - 1), f"unknown agent '{row.agent}'")
        if row.unconditional and number < len(manifest.entry):
            problem(
                ("entry", number),
                f"unreachable, row {number} has no conditions and matches everyone first",
            )
    if manifest.entry and not manifest.entry[-1].unconditional:
        problem(
            ("entry", len(manifest.entry) - 1),
            "the last row must have no conditions, "
            "or a caller who matches no row has no agent to talk to",
        )


class _DuplicateKey(Exception):
    def __init__(self, key: object, line: int, first: int):
        super().__init__(key)
        self.key, self.line, self.first = key, line, first


class _UniqueKeyLoader(yaml.SafeLoader):
    """A YAML loader that refuses duplicate keys, which plain YAML silently overwrites."""


def _construct_mapping(
    loader: _UniqueKeyLoader, node: yaml.MappingNode, deep: bool = False
) -> dict[Hashable, object]:
    # what YAML holds is untyped until the manifest's models validate it
    seen: dict[object, int] = {}
    for key_node, _ in node.value:
        key = loader.construct_object(key_node, deep=deep)
        if key in seen:
            raise _DuplicateKey(key, key_node.start_mark.line + 1, seen[key] + 1)
        seen[key] = key_node.start_mark.line
    return yaml.SafeLoader.construct_mapping(loader, node, deep=deep)


_UniqueKeyLoader.add_constructor(yaml.resolver.BaseResolver.DEFAULT_MAPPING_TAG, _construct_mapping)


def _with_agents(data: dict[str, object], source: str) -> dict[str, object]:  # YAML, not validated
    """The short form `agent:` and a manifest without agents both become `agents:` with an entry table."""
    if "agent" in data:
        if "agents" in data:
            raise ManifestError(
                source,
                [
                    Problem(
                        ("agent",), "give either agent: (one agent) or agents: (several), not both"
                    )
                ],
            )
        data = dict(data)
        data["agents"] = {DEFAULT_AGENT: data.pop("agent")}
        data.setdefault("entry", [{"agent": DEFAULT_AGENT}])
    if "agents" not in data:  # a manifest without agents serves one agent with every tool
        club, tools = data.get("club"), data.get("tools") or {}
        name = club.get("name", "agent") if isinstance(club, dict) else "agent"
        data = {
            **data,
            "agents": {
                DEFAULT_AGENT: {
                    "name": name,
                    "instructions": "",
                    "tools": list(tools) if isinstance(tools, Iterable) else tools,
                }
            },
        }
        data.setdefault("entry", [{"agent": DEFAULT_AGENT}])
    return data


def parse_manifest(text: str, source: str = "<manifest>", source_dir: str = "") -> Manifest:
    try:
        data = yaml.load(text, Loader=_UniqueKeyLoader)  # noqa: S506 - a SafeLoader subclass
    except _DuplicateKey as dup:
        raise ManifestError(
            source,
            [
                Problem(
                    (),
                    f"duplicate name '{dup.key}' at line {dup.line} (first declared "
                    f"at line {dup.first})",
                    dup.line,
                )
            ],
        ) from None
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        raise ManifestError(
            source, [Problem((), f"not valid YAML: {exc}", mark.line + 1 if mark else None)]
        ) from None
    if not isinstance(data, dict):
        raise ManifestError(
            source,
            [Problem((), "the manifest must be a mapping with club, scopes, lanes and tools")],
        )
    data = {**_with_agents(data, source), "source_dir": source_dir}
    try:
        manifest = Manifest.model_validate(data)
    except ValidationError as exc:
        raise ManifestError(
            source,
            [Problem(tuple(err["loc"]), err["msg"]) for err in exc.errors(include_url=False)],
        ) from None
    problems = _check(manifest)
    if problems:
        raise ManifestError(source, problems)
    return manifest


def load_manifest(path: Path | str | None = None) -> Manifest:
    path = Path(path) if path else default_manifest_path()
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ManifestError(
            str(path), [Problem((), f"cannot read manifest: {exc.strerror}")]
        ) from None
    manifest = parse_manifest(text, source=str(path), source_dir=str(path.parent))
    for name, base in manifest.knowledge.items():
        if not (path.parent / base.file).is_file():
            raise ManifestError(
                str(path),
                [Problem(("knowledge", name, "file"), f"no file {base.file} beside the manifest")],
            )
    return manifest
