"""A small demo club: two members (ana, a steward; bruno), one applicant (carla), briefings, mandates."""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import timedelta
from typing import TypedDict

from server.access import default_scopes
from server.identity import mandates, principals, tokens
from server.keys.mandate import SigningKey
from server.manifest.schema import Manifest
from server.store import principals as principal_rows
from server.store import records
from server.store.database import Database, now, write


class Person(TypedDict):
    """One demo principal: who they are, what their mandate covers, and their notes."""

    handle: str
    name: str
    status: str  # their lane: member or applicant
    steward: bool
    bio: str
    tags: list[str]
    topics: list[str]  # what their mandate lets their agent speak of
    quotable: bool
    notes: list[tuple[str, str, str]]  # (topic, text, visibility)


PEOPLE: list[Person] = [
    {
        "handle": "ana",
        "name": "Ana Ribeiro",
        "status": "member",
        "steward": True,
        "bio": "Runs a small design studio in Lisbon; club steward.",
        "tags": ["design", "studio", "lisbon"],
        "topics": ["design", "availability", "studio"],
        "quotable": True,
        "notes": [
            (
                "design",
                "Ana prefers projects with a clear brief and a single decision maker.",
                "public",
            ),
            ("availability", "Ana is taking on new work from February; not before.", "members"),
            (
                "studio",
                "The studio is three people; Ana handles client relations herself.",
                "members",
            ),
            (
                "fees",
                "Ana's day rate is negotiated case by case and never quoted by her agent.",
                "private",
            ),
        ],
    },
    {
        "handle": "bruno",
        "name": "Bruno Costa",
        "status": "member",
        "steward": False,
        "bio": "Backend engineer; writes about databases and small teams.",
        "tags": ["engineering", "databases", "sqlite"],
        "topics": ["databases", "hiring", "writing"],
        "quotable": False,
        "notes": [
            (
                "databases",
                "Bruno favours SQLite for single-node services and Postgres beyond.",
                "public",
            ),
            (
                "hiring",
                "Bruno is not hiring this quarter but answers questions about interviews.",
                "members",
            ),
            ("writing", "Bruno's newsletter goes out on the first Monday of the month.", "public"),
            ("salary", "Bruno's current salary is private.", "private"),
        ],
    },
    {
        "handle": "carla",
        "name": "Carla Mendes",
        "status": "applicant",
        "steward": False,
        "bio": "Product manager moving into developer tools.",
        "tags": ["product", "devtools"],
        "topics": [],
        "quotable": False,
        "notes": [],
    },
]


def password() -> str:
    """A sign-in password shown once; never one starting with '-', which a command line (and a person
    pasting it after a flag) takes for an option."""
    while (made := secrets.token_urlsafe(12)).startswith("-"):
        pass
    return made


@dataclass(frozen=True)
class DemoTokens:
    applicant: tokens.MintedToken
    member: tokens.MintedToken
    steward_principal: tokens.MintedToken
    passwords: dict[str, str]  # handle → the sign-in password, shown once like the tokens


def prepare(db: Database, key: SigningKey, manifest: Manifest) -> DemoTokens | None:
    """Create the demo club in an empty store; None if the store already has principals."""
    if principal_rows.count(db):
        return None
    minted: dict[str, tokens.MintedToken] = {}
    passwords = {person["handle"]: password() for person in PEOPLE}
    with write(db):
        for person in PEOPLE:
            principal = principals.add_principal(
                db,
                person["handle"],
                person["name"],
                status=person["status"],
                steward=person["steward"],
                bio=person["bio"],
                tags=person["tags"],
            )
            agent_id = principals.add_agent(db, principal.handle)
            principals.set_password(db, principal.handle, passwords[principal.handle])
            mandates.sign_mandate(
                db,
                key,
                principal_id=principal.id,
                topics=person["topics"],
                reveal=["public", "members"],
                quotable=person["quotable"],
                scopes=sorted(default_scopes(manifest, person["status"])),
                known_scopes=frozenset(manifest.scopes),
                agent_scopes=manifest.agent_scopes,
                valid_for=timedelta(days=365),
            )
            stamp = now()
            for topic, text, visibility in person["notes"]:
                records.add_note(
                    db,
                    principal.id,
                    topic,
                    text,
                    visibility,
                    stamp,
                    status="approved",
                    written_by="principal",
                )
            minted[principal.handle] = tokens.mint(
                db, principal_id=principal.id, agent_id=agent_id, scopes=manifest.agent_scopes
            )
            if principal.handle == "carla":
                records.add_application(
                    db, principal.id, "I want to learn from people who ship.", stamp
                )
                records.add_evidence(
                    db,
                    principal.id,
                    "reference",
                    "Introduced by Bruno",
                    "Worked together on an internal tools team.",
                    None,
                    stamp,
                )
        ana = principals.find_principal(db, "ana")
        steward_token = tokens.mint(
            db, principal_id=ana.id, agent_id=None, scopes=frozenset(manifest.scopes)
        )
    return DemoTokens(
        applicant=minted["carla"],
        member=minted["bruno"],
        steward_principal=steward_token,
        passwords=passwords,
    )
