"""Member pages in the member's words: what a page shows (its text, not its markup) names no scope
(`briefing:write`), no dotted field (`subject.admitted_days`) and none of the nouns the code uses for
what a member calls otherwise. An applicant gets a console of their own: nothing they cannot use."""

from __future__ import annotations

import re
from html.parser import HTMLParser

from server.manifest.loading import load_manifest
from tests.console_helpers import ConsoleUser

# The code's nouns, where a member says something else: "lane" (what they may reach), "principal"
# (they are a member, or "you"), "binding" and "persona" (a kind of caller), "router" and "model"
# (their agent), "scope" (what their agents may do), "documents" (their notes).
INTERNAL = re.compile(
    r"\b(lanes?|principals?|bindings?|personas?|router|scopes?|documents|your model|rephrase)\b",
    re.I,
)
DOTTED = re.compile(r"\b(?:subject|resource|args)\.[a-z_]+\b")


class Visible(HTMLParser):
    """The text a page shows (and reads out): everything but scripts, styles and attribute values."""

    def __init__(self) -> None:
        super().__init__()
        self.skipping = 0
        self.parts: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in ("script", "style"):
            self.skipping += 1

    def handle_endtag(self, tag: str) -> None:
        if tag in ("script", "style"):
            self.skipping -= 1

    def handle_data(self, data: str) -> None:
        if not self.skipping and data.strip():
            self.parts.append(" ".join(data.split()))


def visible_text(html: str) -> str:
    reader = Visible()
    reader.feed(html)
    return " | ".join(reader.parts)


def words_out_of_place(text: str) -> list[str]:
    scopes = [name for name in load_manifest().scopes if name in text]
    return scopes + DOTTED.findall(text) + [m.group(0) for m in INTERNAL.finditer(text)]


MEMBER_PAGES = [
    "/console",
    "/console/mandate",
    "/console/settings",
    "/console/activity",
    "/console/agents",
]
STEWARD_PAGES = ["/console/members", "/console/applicants"]


async def test_member_and_steward_pages_speak_the_members_words(club):
    found: dict[str, list[str]] = {}
    for handle, pages in (("bruno", MEMBER_PAGES), ("ana", MEMBER_PAGES + STEWARD_PAGES)):
        async with ConsoleUser(club.live.base, handle, club.tokens.passwords[handle]) as person:
            for path in pages:
                page = await person.get(path)
                assert page.status_code == 200, (handle, path, page.status_code)
                wrong = words_out_of_place(visible_text(page.text))
                if wrong:
                    found[f"{handle} {path}"] = wrong
    assert found == {}


async def test_an_applicant_gets_their_own_console_not_the_members_tools(club):
    async with ConsoleUser(club.live.base, "carla", club.tokens.passwords["carla"]) as carla:
        home = visible_text((await carla.get("/console")).text)
        assert "What to do meanwhile" in home and "waiting for a steward" in home
        assert "Waiting for you" not in home and "Your week" not in home  # a member's queue, stats
        assert "Queue" not in home.split(" | Home | ")[0]  # the navigation offers no Queue
        for path, page_name in (("/console/queue", "Queue"), ("/console/notes", "Notes")):
            page = await carla.get(path)
            shown = visible_text(page.text)
            assert page.status_code == 200 and "This page is for members" in shown, shown
            assert f"| {page_name} | This page is for members" in shown
            assert "Approve" not in shown and "Answer question" not in shown
        for path in ("/console", "/console/mandate", "/console/settings"):
            wrong = words_out_of_place(visible_text((await carla.get(path)).text))
            assert wrong == [], (path, wrong)


async def test_the_members_page_says_applied_for_an_applicant_and_joined_for_a_member(club):
    async with ConsoleUser(club.live.base, "ana", club.tokens.passwords["ana"]) as ana:
        shown = visible_text((await ana.get("/console/members")).text)
    carla = shown.split("Carla Mendes")[1].split("Suspend")[0]
    bruno = shown.split("Bruno Costa")[1].split("Suspend")[0]
    assert "applied" in carla and "joined" not in carla, carla
    assert "joined" in bruno and "applied" not in bruno, bruno
