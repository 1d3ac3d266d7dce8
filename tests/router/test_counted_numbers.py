"""A number right before a plural noun counts that noun ("10 times", "3 tickets"): it is never the
identifier the noun before it names ("service 10 times" is no service 10), and the identifier is asked
for; "service 10" alone is still that service. Turns and tools are invented for the rule."""

from __future__ import annotations

from server.router import Catalogue, plan
from server.router.vocabulary import parse

TOOLS = [
    {
        "name": "find_providers",
        "description": "Find providers of a service.",
        "inputSchema": {
            "type": "object",
            "required": ["service_id"],
            "properties": {
                "service_id": {"type": "integer", "description": "The id of the service."},
                "job_count": {"type": "integer", "description": "Jobs done at least."},
            },
        },
    }
]


def _first(turn: str):
    vocabulary = parse({"language": "en"})
    result = plan(turn, Catalogue.from_declarations(TOOLS), "en", vocabulary)
    return result.steps[0]


def test_a_number_before_a_plural_noun_is_no_identifier():
    step = _first("find providers who did service 10 times")
    assert step.selection.arguments.get("service_id") is None, step
    assert "service_id" in step.selection.missing


def test_a_number_after_its_noun_alone_is_the_identifier():
    step = _first("find providers for service 10")
    assert step.selection.arguments.get("service_id") == "10", step
