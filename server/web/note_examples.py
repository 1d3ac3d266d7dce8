"""Removing an example from a note on the Notes page: the member's own decision, as making one was.

The examples themselves are drawn under their note by the Notes page (`console_notes.html` includes
`_note_examples.html`); an id in a form is looked up with the member signed in, so another member's
example answers 404, exactly like one that does not exist.
"""

from __future__ import annotations

import anyio
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.asking import examples
from server.errors import NotFound
from server.web.frame import Frame, path_id


class ExamplePages(Frame):
    async def remove(self, request: Request) -> Response:
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        try:
            example_id = path_id(request, "example_id")
            if form.get("action") != "remove":
                raise NotFound("there is nothing here for you")
            await anyio.to_thread.run_sync(examples.remove, self.db, me.id, example_id)
        except NotFound:
            return self._not_found(request)
        return self._done(
            request,
            "Removed the example. Your agent no longer counts that question as one its note answers.",
            "/console/notes",
        )

    def routes(self) -> list[Route]:
        return [Route("/console/examples/{example_id}", self.remove, methods=["POST"])]
