"""`parley tools check`: the manifest's errors and warnings, each with the line it is on.

Errors are what loading refuses (unknown scope, unreachable entry row, …), plus whatever the
caller's `more` check finds (the rule book's compile errors). Warnings are what loads but is
probably a mistake: a persona no entry row can select, a tool no lane or persona can reach, a
knowledge base or link declared but unused.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import yaml

from server.manifest.loading import load_manifest
from server.manifest.schema import Manifest, ManifestError, Problem


@dataclass(frozen=True)
class Finding:
    level: str  # error | warning
    line: int | None
    message: str
    place: str | None = None  # where, when not a line of the manifest ("store:12", a stored rule)

    def __str__(self) -> str:
        where = self.place or (f"line {self.line}" if self.line else "manifest")
        return f"{self.level}: {where}: {self.message}"


def line_of(root: yaml.Node | None, path: tuple[str | int, ...]) -> int | None:
    """1-based line of the node at `path` (mapping keys or sequence indexes), or of its nearest parent."""
    node, line = root, (root.start_mark.line + 1 if root is not None else None)
    for step in path:
        if isinstance(node, yaml.MappingNode):
            match = next(((k, v) for k, v in node.value if k.value == str(step)), None)
            if match is None:
                return line
            line = match[0].start_mark.line + 1
            node = match[1]
        elif (
            isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value)
        ):
            node = node.value[step]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _found(level: str, problem: Problem, root: yaml.Node | None) -> Finding:
    return Finding(level, problem.line or line_of(root, problem.path), str(problem))


def check(
    path: Path | str, more: Callable[[Manifest], list[Problem]] | None = None
) -> list[Finding]:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        return [Finding("error", None, f"cannot read manifest: {exc.strerror}")]
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        return [Finding("error", None, f"not valid YAML: {exc}")]
    try:
        manifest = load_manifest(path)
    except ManifestError as exc:
        return [_found("error", problem, root) for problem in exc.problems]
    errors = [_found("error", problem, root) for problem in (more(manifest) if more else [])]
    return errors + warnings(manifest, root)


def warnings(manifest: Manifest, root: yaml.Node | None = None) -> list[Finding]:
    found: list[Finding] = []

    def warn(path: tuple[str | int, ...], message: str) -> None:
        found.append(Finding("warning", line_of(root, path), message))

    reachable: set[str] = set()
    for number, row in enumerate(manifest.entry):
        if row.authenticated is False and row.claims:
            warn(
                ("entry", number),
                f"entry row {number + 1} can never match: a guest carries no claims",
            )
            continue
        reachable.add(row.agent)
        if row.unconditional:
            break
    for name in manifest.agents:
        if name not in reachable:
            warn(
                ("agents", name),
                f"agent '{name}' can never be selected: no reachable entry row names it",
            )
    offered = {
        tool for name, agent in manifest.agents.items() if name in reachable for tool in agent.tools
    }
    lanes = {scope for lane in manifest.lanes.values() for scope in lane.ceiling}
    for name, tool in manifest.tools.items():
        if tool.needs is not None and tool.needs not in lanes:
            warn(("tools", name), f"tool '{name}': no lane can reach it")
        elif name not in offered:
            warn(
                ("tools", name),
                f"tool '{name}' is in no selectable agent's tools, so no caller ever sees it",
            )
    used_knowledge = {base for agent in manifest.agents.values() for base in agent.knowledge}
    for name in manifest.knowledge:
        if name not in used_knowledge:
            warn(("knowledge", name), f"knowledge base '{name}' is declared but no agent uses it")
    used_links = {
        link
        for agent in manifest.agents.values()
        if isinstance(agent.links, list)
        for link in agent.links
    }
    for name in manifest.links:
        if name not in used_links:
            warn(("links", name), f"link '{name}' is declared but no agent uses it")
    return found
