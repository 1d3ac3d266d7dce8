"""A member's examples: the questions they confirmed their notes answer, for their Notes page alone.

They are made only by the member's decisions in their queue (`asking.queue`), ride with their note to
the member's answering agent (`asking.escalations.revealable`), and go with it when it is deleted or
its text replaced. Here the member reads them and removes one.
"""

from __future__ import annotations

from server.asking.errors import AskError
from server.errors import NotFound
from server.store import examples as example_rows
from server.store.database import Database, write
from server.store.examples import Example


class NoSuchExample(AskError, NotFound):
    """No such example among this member's (whether it exists elsewhere is not said)."""


def by_note(db: Database, principal_id: int) -> dict[int, list[Example]]:
    """This member's examples by note id, newest first."""
    found: dict[int, list[Example]] = {}
    for row in example_rows.of_principal(db, principal_id):
        found.setdefault(row.note_id, []).append(row)
    return found


def remove(db: Database, principal_id: int, example_id: int) -> None:
    with write(db):
        if not example_rows.remove(db, principal_id, example_id):
            raise NoSuchExample(f"you have no example {example_id}")
