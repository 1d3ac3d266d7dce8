"""Other people's words can only travel as `Quoted`, by the output models' construction: every text
field of what `inbox` (and `parley://inbox`), `search_directory`, `view_member` and the evidence
tools return is either inside a `Quoted` value or one Parley fills itself (handles, kinds, times, its
own sentences). A new text field fails here until it is one or the other."""

from __future__ import annotations

import types
import typing

from pydantic import BaseModel

from server.quoting import Quoted
from server.tools.directory import Directory, MemberView
from server.tools.evidence import EvidenceItem, EvidenceList
from server.tools.inbox import Inbox

# Text Parley itself writes or checks: handles (a fixed pattern), enumerations, dates, its sentences.
PARLEYS_OWN = {
    "Inbox.threads.with_member",
    "Inbox.threads.role",
    "Inbox.threads.subject",
    "Inbox.threads.updated_at",
    "Inbox.threads.messages.kind",
    "Inbox.threads.messages.status",
    "Inbox.threads.messages.decided_by",
    "Inbox.threads.messages.body",
    "Inbox.threads.messages.created_at",
    "Inbox.application.status",
    "Inbox.application.applied_at",
    "Inbox.application.decided_at",
    "Directory.members.handle",
    "MemberView.handle",
    "MemberView.admitted_at",
    "EvidenceList.items.kind",
    "EvidenceList.items.url",
    "EvidenceList.items.created_at",
    "EvidenceItem.kind",
    "EvidenceItem.url",
    "EvidenceItem.created_at",
}


def _text_fields(model: type[BaseModel], path: str) -> set[str]:
    """Paths of the str fields outside any Quoted value."""
    found: set[str] = set()
    for name, field in model.model_fields.items():
        for kind in _leaves(field.annotation):
            if isinstance(kind, type) and issubclass(kind, Quoted):
                continue
            if isinstance(kind, type) and issubclass(kind, BaseModel):
                found |= _text_fields(kind, f"{path}.{name}")
            elif kind is str:
                found.add(f"{path}.{name}")
    return found


def _leaves(annotation: object) -> list[object]:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple, typing.Union, types.UnionType, typing.Literal):
        if origin is typing.Literal:
            return []  # a fixed set of Parley's words
        return [leaf for arg in typing.get_args(annotation) for leaf in _leaves(arg)]
    return [annotation]


def test_foreign_text_has_no_field_but_quoted():
    found = set()
    for model in (Inbox, Directory, MemberView, EvidenceList, EvidenceItem):
        found |= _text_fields(model, model.__name__)
    assert found <= PARLEYS_OWN, sorted(found - PARLEYS_OWN)
