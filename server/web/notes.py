"""The Notes page: what a principal's answering agent may quote, and the notes their agents proposed.

Notes an agent wrote wait here for approval; nothing pending is ever quoted. Each pending note shows
what to look at twice (instructions to an agent, links and contact details, prices and offers,
invisible or look-alike characters, the invisible ones made visible), and approving it asks
whether the agent may relay it as written. A note the principal writes here is approved as written.
"""

from __future__ import annotations

import unicodedata
from typing import cast

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.asking import briefing, examples
from server.errors import NotFound, ParleyError
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
        rows.sort(key=lambda row: (STATUS_ORDER.get(row["status"], 3), row["topic"], row["id"]))
        notes = [
            {
                **row,
                "segments": shown(row["text"]),
                "written_by_agent": str(row["written_by"] or "").startswith("agent:"),
                "agent": str(row["written_by"] or "").removeprefix("agent:"),
                "concerns": briefing.concerns(row["topic"], row["text"], me.handle),
                "examples": taught.get(int(row["id"]), []),
            }
            for row in rows
        ]
        pending = sum(1 for row in rows if row["status"] == "pending")
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
            f"Saved your note on \u201c{row['topic']}\u201d. Your agent may quote it now.",
            "/console/notes",
        )

    async def review(self, request: Request) -> Response:
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        action = str(form.get("action", ""))
        try:
            note_id = path_id(request, "note_id")
            if action == "delete":
                await anyio.to_thread.run_sync(briefing.delete, self.db, me.id, note_id)
                return self._done(
                    request, "Deleted the note. Your agent no longer knows it.", "/console/notes"
                )
            if action not in ("approve", "reject"):
                raise ParleyError("approve, reject or delete")
            verdict = cast(briefing.Review, action)
            row = await anyio.to_thread.run_sync(
                lambda: briefing.review(
                    self.db, me.id, note_id, verdict, relay=form.get("relay") == "yes"
                )
            )
        except NotFound:
            return self._not_found(request)
        except ParleyError as exc:
            return self._notes_page(
                request, me, 400, error=str(exc)[:1].upper() + str(exc)[1:] + "."
            )
        if action == "reject":
            return self._done(
                request,
                f"Rejected the note on \u201c{row['topic']}\u201d: your agent will never quote it.",
                "/console/notes",
            )
        held = briefing.concerns(row["topic"], row["text"], me.handle) and not row["relay"]
        return self._done(
            request,
            f"Approved the note on \u201c{row['topic']}\u201d."
            + (
                " It is flagged, so a question it would answer comes to you instead of being answered."
                if held
                else " Your agent may quote it now."
            ),
            "/console/notes",
        )

    def routes(self) -> list[Route]:
        return [
            Route("/console/notes", self.notes, methods=["GET"]),
            Route("/console/notes", self.add, methods=["POST"]),
            Route("/console/notes/{note_id}", self.add, methods=["POST"]),
            Route("/console/notes/{note_id}/review", self.review, methods=["POST"]),
        ]
