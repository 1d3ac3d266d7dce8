"""Console: agents, their tokens (labelled, with expiry and last use) and OAuth grants by client name.

A new token's secret is shown once. Minting answers with a redirect (Post/Redirect/Get); the secret
waits in a one-time slot of the signed session cookie, sealed with a server-side key, for at most
`SHOW_FOR` seconds and the next page read removes it, so a reload shows nothing and mints nothing.
It is never in clear in the cookie, a URL, a flash message, the store or a log.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from datetime import timedelta

from starlette.datastructures import FormData
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

from server.errors import ParleyError
from server.identity import principals, tokens
from server.identity.principals import Principal
from server.store import agents as agent_rows
from server.store import console as console_rows
from server.store import oauth as oauth_rows
from server.store.database import now
from server.web.connect import connection
from server.web.frame import Frame, bounded_id

SHOW_FOR = 300
LABEL_LIMIT = 60
LIFETIMES = {"30": 30, "90": 90, "365": 365, "never": None}


class AgentPages(Frame):
    async def agents(self, request: Request) -> Response:
        me = self._signed_in(request)
        if isinstance(me, Response):
            return me
        minted = request.session.pop("minted", None)
        if (
            not isinstance(minted, dict)
            or not isinstance(minted.get("until"), (int, float))
            or minted["until"] < time.time()
        ):
            minted = None
        else:  # sealed in the cookie (server/web/sealed.py): opened here, shown once
            token = self.pages.sealer.open(minted.get("token"))
            minted = {**minted, "token": token} if token is not None else None
        return self._agents_page(request, me, None, minted=minted)

    def _agents_page(
        self,
        request: Request,
        me: Principal,
        error: str | None,
        status_code: int = 200,
        minted: dict[str, object] | None = None,
        form: FormData | None = None,
        errors: dict[str, str] | None = None,
    ) -> Response:
        """The page; after a refused form, `form` keeps every choice made and `errors` puts each message at
        its field (the first one focused)."""
        seen = console_rows.last_activity(self.db, me.handle)
        agents = [
            {**asdict(agent), "last_seen": seen.get(agent.name)}
            for agent in agent_rows.of_principal(self.db, me.id)
        ]
        grants = [
            {**asdict(grant), "scopes": sorted(grant.scope.split())}
            for grant in oauth_rows.grants_of(self.db, me.id)
        ]
        token = minted.get("token") if minted else None  # opened from its seal: shown this once
        connect = connection(request, self.public_url, token) if isinstance(token, str) else None
        return self._page(
            request,
            me,
            "console_agents.html",
            status_code=status_code,
            agents=agents,
            connect=connect,
            errors=errors or {},
            first_error=next(iter(errors or {}), None),
            tokens=[
                {**asdict(t), "acted": principals.acted_through(t.agent)}
                for t in console_rows.tokens_of(self.db, me.id)
            ],
            grants=grants,
            error=error,
            minted=minted,
            scopes=sorted(self.manifest.agent_scopes),
            form=form,
            now_iso=now(),
            descriptions={n: d.description for n, d in self.manifest.scopes.items()},
        )

    async def add_agent(self, request: Request) -> Response:
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        name = str(form.get("name", "")).strip()[:100]
        try:
            principals.add_agent(self.db, me.handle, name)
        except ParleyError as exc:
            message = str(exc)[:1].upper() + str(exc)[1:]
            return self._agents_page(
                request,
                me,
                None,
                exc.status if exc.status < 500 else 400,
                form=form,
                errors={"name": message},
            )
        return self._done(request, f"Agent {name} added. Mint it a token below.", "/console/agents")

    async def mint(self, request: Request) -> Response:
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        chosen = bounded_id(form.get("agent"))
        row = next(
            (
                a
                for a in agent_rows.of_principal(self.db, me.id, active_only=True)
                if a.id == chosen
            ),
            None,
        )
        errors: dict[str, str] = {}
        if row is None:
            errors["agent"] = "Choose one of your active agents."
        label = " ".join(str(form.get("label", "")).split())
        if len(label) > LABEL_LIMIT:
            errors["label"] = (
                f"A label has at most {LABEL_LIMIT} characters; this one has {len(label)}."
            )
        lifetime = str(form.get("expires", "90"))
        if lifetime not in LIFETIMES:
            errors["expires"] = "Choose how long the token lasts."
        scopes = {value for value in form.getlist("scope") if isinstance(value, str)}
        if not scopes or not scopes <= self.manifest.agent_scopes:
            errors["scope"] = "Tick at least one thing the token may do."
        if errors or row is None:
            return self._agents_page(request, me, None, 400, form=form, errors=errors)
        days = LIFETIMES[lifetime]
        label = label or f"{row.name} token"
        minted = tokens.mint(
            self.db,
            principal_id=me.id,
            agent_id=row.id,
            scopes=scopes,
            ttl=timedelta(days=days) if days else None,
            label=label,
        )
        request.session["minted"] = {
            "token": self.pages.sealer.seal(minted.token),
            "public_id": minted.public_id,
            "label": label,
            "agent": row.name,
            "scopes": list(minted.scopes),
            "expires_at": minted.expires_at,
            "until": time.time() + SHOW_FOR,
        }
        return self._done(
            request,
            f"Token “{label}” minted for {row.name}. Copy it now: it is shown once.",
            "/console/agents",
        )

    async def revoke_token(self, request: Request) -> Response:
        """Revoke one of my tokens, after a confirmation that names it."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        public_id = request.path_params["public_id"]
        mine = next(
            (
                t
                for t in console_rows.tokens_of(self.db, me.id)
                if t.public_id == public_id and not t.revoked_at
            ),
            None,
        )
        if mine is None:
            return self._not_found(request)
        label = mine.label or f"the unlabelled token of {mine.agent or 'your own'}"
        if not self.confirmed(form):
            return self._confirm(
                request,
                me,
                title=f"Revoke “{label}”?",
                lines=[
                    f"Any agent using “{label}” is refused from its next request. A revoked token cannot come back: "
                    "to connect that agent again, mint it a new token."
                ],
                action=f"/console/tokens/{public_id}/revoke",
                button=f"Revoke “{label}”",
                back="/console/agents",
            )
        if tokens.revoke(self.db, public_id, principal_id=me.id) is None:
            return self._not_found(request)
        return self._done(
            request,
            f"Token “{label}” revoked: it is refused from its next request.",
            "/console/agents",
        )

    async def revoke_grant(self, request: Request) -> Response:
        """Take back an app's OAuth access, after a confirmation that names the app."""
        begun = await self._signed_form(request)
        if isinstance(begun, Response):
            return begun
        me, form = begun
        family = request.path_params["family"]
        grant = (
            next(
                (
                    g
                    for g in oauth_rows.grants_of(self.db, me.id)
                    if g.family == family and not g.revoked_at
                ),
                None,
            )
            if len(family) <= 100
            else None
        )
        if grant is None:
            return self._not_found(request)
        app = grant.client_name
        if not self.confirmed(form):
            return self._confirm(
                request,
                me,
                title=f"Take back {app}'s access?",
                lines=[
                    f"{app} stops acting as {grant.agent} from its next request. To let it in again, connect it "
                    "afresh and allow it."
                ],
                action=f"/console/grants/{family}/revoke",
                button=f"Take back {app}'s access",
                back="/console/agents",
            )
        if not oauth_rows.revoke_grant(
            self.db, family, "revoked in the console", now(), principal_id=me.id
        ):
            return self._not_found(request)
        return self._done(request, f"{app} can no longer act for you.", "/console/agents")

    def routes(self) -> list[Route]:
        return [
            Route("/console/agents", self.agents, methods=["GET"]),
            Route("/console/agents", self.add_agent, methods=["POST"]),
            Route("/console/tokens", self.mint, methods=["POST"]),
            Route("/console/tokens/{public_id}/revoke", self.revoke_token, methods=["POST"]),
            Route("/console/grants/{family}/revoke", self.revoke_grant, methods=["POST"]),
        ]
