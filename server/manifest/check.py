"""`parley tools check`: the manifest's errors and warnings, each with the line it is on.

Errors are what loading refuses (unknown scope, unreachable entry row, …). Warnings are what loads
but is probably a mistake: an agent no entry row can ever select, a tool no lane or no agent can
reach, a knowledge base or link declared but unused, a rule that reads an unknown field.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import yaml

from server.manifest.loading import Manifest, ManifestError, load_manifest


@dataclass(frozen=True)
class Finding:
    level: str  # error | warning
    line: int | None
    message: str

    def __str__(self) -> str:
        where = f"line {self.line}" if self.line else "manifest"
        return f"{self.level}: {where}: {self.message}"


def _line(root: yaml.Node | None, path: list[str | int]) -> int | None:
    """1-based line of the node at `path` (mapping keys or sequence indexes), or of its nearest parent."""
    node, line = root, (root.start_mark.line + 1 if root is not None else None)
    for step in path:
        if isinstance(node, yaml.MappingNode):
            match = next(((k, v) for k, v in node.value if k.value == str(step)), None)
            if match is None:
                return line
            line = match[0].start_mark.line + 1
            node = match[1]
        elif isinstance(node, yaml.SequenceNode) and isinstance(step, int) and step < len(node.value):
            node = node.value[step]
            line = node.start_mark.line + 1
        else:
            return line
    return line


def _path_of(problem: str) -> list[str | int]:
    """The manifest path a load error names: 'tools.secret.needs: …' or 'entry row 3: …'."""
    row = re.match(r"entry row (\d+)", problem)
    if row:
        return ["entry", int(row.group(1)) - 1]
    head = problem.split(":", 1)[0].strip()
    return [int(p) if p.isdigit() else p for p in head.split(".")] if head else []


def check(path: Path | str) -> list[Finding]:
    path = Path(path)
    text = path.read_text(encoding="utf-8")
    try:
        root = yaml.compose(text)
    except yaml.YAMLError as exc:
        return [Finding("error", None, f"not valid YAML: {exc}")]
    try:
        manifest = load_manifest(path)
    except ManifestError as exc:
        message = str(exc).split(": ", 1)[1] if str(exc).startswith(str(path)) else str(exc)
        problems = [p.strip()[2:] for p in message.splitlines() if p.strip().startswith("- ")] or [message]
        found = []
        for problem in problems:
            explicit = re.search(r"at line (\d+)", problem)
            line = int(explicit.group(1)) if explicit else _line(root, _path_of(problem))
            found.append(Finding("error", line, problem))
        return found
    return warnings(manifest, root)


def warnings(manifest: Manifest, root: yaml.Node | None = None) -> list[Finding]:
    found: list[Finding] = []
    reachable: set[str] = set()
    for number, row in enumerate(manifest.entry):
        if row.authenticated is False and row.claims:
            found.append(Finding("warning", _line(root, ["entry", number]),
                                 f"entry row {number + 1} can never match: a guest carries no claims"))
            continue
        reachable.add(row.agent)
        if row.unconditional:
            break
    for name in manifest.agents:
        if name not in reachable:
            found.append(Finding("warning", _line(root, ["agents", name]),
                                 f"agent '{name}' can never be selected: no reachable entry row names it"))
    offered = {tool for name, agent in manifest.agents.items() if name in reachable for tool in agent.tools}
    lanes = {scope for lane in manifest.lanes.values() for scope in lane.ceiling}
    for name, tool in manifest.tools.items():
        if tool.needs is not None and tool.needs not in lanes:
            found.append(Finding("warning", _line(root, ["tools", name]), f"tool '{name}': no lane can reach it"))
        elif name not in offered:
            found.append(Finding("warning", _line(root, ["tools", name]),
                                 f"tool '{name}' is in no selectable agent's tools, so no caller ever sees it"))
    used_knowledge = {base for agent in manifest.agents.values() for base in agent.knowledge}
    for name in manifest.knowledge:
        if name not in used_knowledge:
            found.append(Finding("warning", _line(root, ["knowledge", name]),
                                 f"knowledge base '{name}' is declared but no agent uses it"))
    used_links = {link for agent in manifest.agents.values() if isinstance(agent.links, list) for link in agent.links}
    for name in manifest.links:
        if name not in used_links:
            found.append(Finding("warning", _line(root, ["links", name]), f"link '{name}' is declared but no agent uses it"))
    return found + rule_findings(manifest, root)


def rule_findings(manifest: Manifest, root: yaml.Node | None) -> list[Finding]:
    """Rules that do not compile: an unknown field or attribute, a wrong operator, not a boolean."""
    from server import tools
    from server.chokepoint.context_sources import ContextSources
    from server.chokepoint.rulebook import RuleBook
    from server.chokepoint.rules import RuleError

    specs = tools.load_all()
    schemas = {name: specs[name].input_schema() for name in manifest.tools if name in specs}
    try:
        book = RuleBook(manifest, None, ContextSources(manifest.context_sources, None), schemas, compile_manifest=False)
    except ValueError as exc:
        return [Finding("error", _line(root, ["context_sources"]), str(exc))]
    found = []
    for number, decl in enumerate(manifest.rules):
        try:
            book.compile(decl, f"manifest:{number}")
        except RuleError as exc:
            found.append(Finding("error", _line(root, ["rules", number]), str(exc)))
    return found
