"""The Notes page: what a principal's answering agent may quote, and the notes their agents proposed.

Notes an agent wrote wait here for approval; nothing pending is ever quoted. Each pending note shows
what to look at twice (instructions to an agent, links and contact details, prices and offers,
invisible or look-alike characters, the invisible ones made visible), and approving it asks
whether the agent may relay it as written. A note the principal writes here is approved as written.
"""

from __future__ import annotations

import unicodedata
from dataclasses import asdict
from typing import cast

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.asking import briefing, examples
from server.asking.coverage import coverage
from server.errors import NotFound, ParleyError
from server.identity import mandates, principals
from server.identity.principals import Principal
from server.web.frame import Frame, path_id

VISIBILITIES = {
    "public": "Anyone who asks",
    "members": "Members only",
    "private": "Nobody (kept for you)",
}
STATUS_ORDER = {"pending": 0, "approved": 1, "rejected": 2}


def shown(text: str) -> list[tuple[str, bool]]:
    """The note as segments (text, is_marker): each invisible character becomes a visible marker."""
    segments: list[tuple[str, bool]] = []
    plain = ""
    for ch in text:
        if unicodedata.category(ch) == "Cf":
            if plain:
                segments.append((plain, False))
                plain = ""
            segments.append((f"[{unicodedata.name(ch, f'U+{ord(ch):04X}').lower()}]", True))
        else:
            plain += ch
    if plain:
        segments.append((plain, False))
    return segments


def _revision(value: object) -> int:
    """The revision of the note the member was shown, as the form sends it back."""
    text = str(value or "")
    if not text.isdecimal() or not 1 <= int(text) <= 2**31:
        raise ParleyError(
            "the form did not say which version of the note you read; reload the page"
        )
    return int(text)


class NotePages(Frame):
    def _notes_page(
        self,
        request: Request,
        me: Principal,
        status_code: int = 200,
        error: str | None = None,
        form: dict[str, str] | None = None,
    ) -> Response:
        rows = briefing.notes(self.db, me.id)
        taught = examples.by_note(self.db, me.id)  # the questions each note was confirmed to answer
        rows.sort(key=lambda row: (STATUS_ORDER.get(row.status, 3), row.topic, row.id))
        mandate = mandates.current(self.db, self.key, me.id)
        notes = [
            {
                **asdict(row),
                "segments": shown(row.text),
                "written_by_agent": (row.written_by or "").startswith("agent:"),
                "by": _proposed_by((row.written_by or "").removeprefix("agent:")),
                "concerns": briefing.concerns(row.topic, row.text, me.handle),
                "examples": taught.get(row.id, []),
                "held": bool(briefing.held(row.topic, row.text, me.handle)),
                "coverage": coverage(mandate, row.topic, row.visibility),
            }
            for row in rows
        ]
        pending = sum(1 for row in rows if row.status == "pending")
        return self._page(
            request,
            me,
            "console_notes.html",
            status_code=status_code,
            notes=notes,
            pending=pending,
            visibilities=VISIBILITIES,
            error=error,
            form=form or {},
        )

    async def notes(self, request: Request) -> Response:
        me = self._signed_in(request)
        if isinstance(me, Response):
            return me
        return self._notes_page(request, me)

    async def add(self, request: Request) -> Response:
        """A note the principal writes: approved as written (a replaced one too, by its id)."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        kept = {key: str(form.get(key, "")) for key in ("topic", "text", "visibility", "relay")}
        try:
            note_id = path_id(request, "note_id") if "note_id" in request.path_params else None
            if kept["visibility"] not in VISIBILITIES:
                raise ParleyError("choose who may hear this note")
            visibility = cast(briefing.Visibility, kept["visibility"])
            row = await anyio.to_thread.run_sync(
                lambda: briefing.write_note(
                    self.db,
                    me.id,
                    kept["topic"],
                    kept["text"],
                    visibility,
                    agent=None,
                    note_id=note_id,
                    relay=kept["relay"] == "yes",
                )
            )
        except NotFound:
            return self._not_found(request)
        except ParleyError as exc:
            return self._notes_page(
                request, me, 400, error=str(exc)[:1].upper() + str(exc)[1:] + ".", form=kept
            )
        return self._done(
            request,
            f"Saved your note on \u201c{row.topic}\u201d. Your agent may quote it now.",
            "/console/notes",
        )

    async def review(self, request: Request) -> Response:
        """Approve (perhaps adding the note's topic to the mandate in the same step) or reject the
        revision of a note the member read; delete a note. A note changed since it was shown is
        neither approved nor rejected: the page shows it again, with its new text."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        action = str(form.get("action", ""))
        add_topic = action == "approve_add"
        try:
            note_id = path_id(request, "note_id")
            if action == "delete":
                await anyio.to_thread.run_sync(briefing.delete, self.db, me.id, note_id)
                return self._done(
                    request, "Deleted the note. Your agent no longer knows it.", "/console/notes"
                )
            if action not in ("approve", "approve_add", "relay", "reject"):
                raise ParleyError("approve, reject or delete")
            verdict: briefing.Review = "reject" if action == "reject" else "approve"
            read = _revision(form.get("revision"))
            relay = form.get("relay") == "yes" or action == "relay"
            row = await anyio.to_thread.run_sync(
                lambda: briefing.review(
                    self.db, me.id, note_id, verdict, revision=read, relay=relay
                )
            )
            if add_topic:
                await anyio.to_thread.run_sync(self._add_topic, me, row.topic)
        except NotFound:
            return self._not_found(request)
        except briefing.Changed as exc:
            now_reads = "".join(part for part, _ in shown(exc.note.text))
            return self._notes_page(
                request,
                me,
                409,
                error=f"Note {exc.note.id} changed after you read it, so nothing was approved or "
                f"rejected. It now reads: \u201c{now_reads}\u201d (topic \u201c{exc.note.topic}\u201d). "
                "Read it below and review it again.",
            )
        except ParleyError as exc:
            return self._notes_page(
                request, me, 400, error=str(exc)[:1].upper() + str(exc)[1:] + "."
            )
        if action == "reject":
            return self._done(
                request,
                f"Rejected the note on \u201c{row.topic}\u201d: your agent will never quote it.",
                "/console/notes",
            )
        status = await anyio.to_thread.run_sync(mandates.current, self.db, self.key, me.id)
        added = f" Added \u201c{row.topic}\u201d to your mandate." if add_topic else ""
        said = briefing.reach(row, me.handle, status)
        covered = coverage(status, row.topic, row.visibility)
        offer = (
            f" {covered.summary} The note offers to add \u201c{row.topic}\u201d to your "
            "mandate, so that your agent may quote it."
            if covered.offer_topic
            else ""
        )
        return self._done(
            request,
            f"Approved the note on \u201c{row.topic}\u201d.{added} {said}{offer}",
            "/console/notes",
        )

    def _add_topic(self, me: Principal, topic: str) -> None:
        """Sign the mandate again with one more topic (the rest carried over)."""
        status = mandates.current(self.db, self.key, me.id)
        if not status.valid or status.body is None:
            raise ParleyError("your mandate is not valid: sign one on the Mandate page first")
        body = status.body
        if topic in body.topics:
            return
        mandates.amend(
            self.db,
            self.key,
            principal_id=me.id,
            topics=[*body.topics, topic],
            known_scopes=frozenset(self.manifest.scopes),
            agent_scopes=self.manifest.agent_scopes,
        )

    def routes(self) -> list[Route]:
        return [
            Route("/console/notes", self.notes, methods=["GET"]),
            Route("/console/notes", self.add, methods=["POST"]),
            Route("/console/notes/{note_id}", self.add, methods=["POST"]),
            Route("/console/notes/{note_id}/review", self.review, methods=["POST"]),
        ]


def _proposed_by(agent: str) -> str:
    """Who proposed a note, in the words Activity and `parley audit tail` use too."""
    who = principals.acted_through(agent)
    return who if who != agent else f"your agent “{agent}”"
