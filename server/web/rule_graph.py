"""The Rules page's graph of bindings, laid out on the server as SVG: the club's agents, Parley, each tool
with a `{} N` mark for its rules in force, and a dashed line from a tool to each context source whose
trusted attributes its rules read. Plain geometry: the template draws it, and every tool is a link."""

from __future__ import annotations

from dataclasses import dataclass, field

ROW = 44
TOP = 36
COLUMNS = {"agent": (10, 140), "server": (190, 100), "tool": (340, 300), "source": (720, 160)}
WIDTH = 890


@dataclass
class Node:
    kind: str  # agent | server | tool | source
    label: str
    y: int
    href: str | None = None
    marks: list[str] = field(default_factory=list)  # "{} 2", "1 in draft", "blocked"
    selected: bool = False
    idle: bool = False  # a tool no agent offers

    @property
    def x(self) -> int:
        return COLUMNS[self.kind][0]

    @property
    def width(self) -> int:
        return COLUMNS[self.kind][1]

    @property
    def height(self) -> int:
        return ROW - 10

    @property
    def middle(self) -> int:
        return self.y + self.height // 2

    @property
    def name(self) -> str:
        """What a screen reader hears for a tool's link."""
        return ", ".join([self.label, *self.marks])


@dataclass
class Edge:
    x1: int
    y1: int
    x2: int
    y2: int
    dashed: bool = False

    @property
    def path(self) -> str:
        bend = (self.x2 - self.x1) // 2
        return f"M{self.x1} {self.y1} C{self.x1 + bend} {self.y1} {self.x2 - bend} {self.y2} {self.x2} {self.y2}"


@dataclass
class Graph:
    height: int
    nodes: list[Node]
    edges: list[Edge]
    width: int = WIDTH
    headings: dict[str, int] = field(
        default_factory=lambda: {kind: x for kind, (x, _) in COLUMNS.items()}
    )


@dataclass(frozen=True)
class ToolFacts:
    """What the graph says of one tool: its rules in force, drafts, broken rules and the sources they read."""

    name: str
    offered: bool
    in_force: int
    drafts: int
    removals: int  # rules in force whose removal is drafted
    broken: int
    sources: tuple[str, ...]


def _column(count: int, height: int) -> list[int]:
    """Tops of `count` nodes centred in a column of `height`."""
    start = TOP + (height - TOP - count * ROW) // 2
    return [start + i * ROW for i in range(count)]


def layout(
    agents: list[str], tools: list[ToolFacts], sources: list[str], selected: str | None
) -> Graph:
    height = TOP + max(len(agents), len(tools), len(sources), 1) * ROW + 8
    agent_nodes = [
        Node("agent", name, y) for name, y in zip(agents, _column(len(agents), height), strict=True)
    ]
    server = Node("server", "parley", _column(1, height)[0])
    tool_nodes = []
    for facts, y in zip(tools, _column(len(tools), height), strict=True):
        marks = [f"{{}} {facts.in_force}"] if facts.in_force else []
        marks += [f"+{facts.drafts} draft"] if facts.drafts else []
        marks += [f"−{facts.removals} at publish"] if facts.removals else []
        marks += ["blocked"] if facts.broken else []
        tool_nodes.append(
            Node(
                "tool",
                facts.name,
                y,
                href=f"/console/rules?tool={facts.name}#panel",
                marks=marks,
                selected=facts.name == selected,
                idle=not facts.offered,
            )
        )
    source_nodes = {
        name: Node("source", name, y)
        for name, y in zip(sources, _column(len(sources), height), strict=True)
    }
    edges = [
        Edge(node.x + node.width, node.middle, server.x, server.middle) for node in agent_nodes
    ]
    edges += [
        Edge(server.x + server.width, server.middle, node.x, node.middle)
        for node in tool_nodes
        if not node.idle
    ]
    for facts, node in zip(tools, tool_nodes, strict=True):
        for source in facts.sources:
            target = source_nodes[source]
            edges.append(
                Edge(node.x + node.width, node.middle, target.x, target.middle, dashed=True)
            )
    return Graph(height, [*agent_nodes, server, *tool_nodes, *source_nodes.values()], edges)
