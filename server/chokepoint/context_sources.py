"""Context sources: trusted attributes fetched at call time, about the subject or the resource.

The built-in `club` source reads the club's own data; HTTP JSON sources are declared in the
manifest with a URL template and a timeout. A source that fails, times out or answers malformed
data blocks the call: fail closed. Reasons name the source, never the data.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from urllib.parse import quote

import httpx2

from server.access import Caller, Lane
from server.errors import ParleyError
from server.manifest.schema import SourceDecl
from server.store import asking, principals, records
from server.store.database import Database, format_time, parse_time


class SourceFailed(ParleyError):
    def __init__(self, source: str, reason: str):
        super().__init__(f"context source '{source}' {reason}")
        self.source = source
        self.reason = reason


def _typed(value: object, kind: str) -> bool:
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    return isinstance(value, str)


IDENTITY = "identity"  # subject.id needs no source: the verified credential says who the subject is


class ContextSources:
    def __init__(self, declarations: dict[str, SourceDecl], db: Database | None):
        self.declarations = declarations
        self.db = db
        self.provider: dict[str, str] = {"subject.id": IDENTITY}
        for name, source in declarations.items():
            for path in source.provides():
                if path == "subject.id":
                    continue  # always the verified subject, whatever a source would say
                if path in self.provider:
                    raise ValueError(
                        f"context sources '{self.provider[path]}' and '{name}' both provide {path}"
                    )
                self.provider[path] = name

    def types(self) -> dict[str, str]:
        return {
            path: "text" if name == IDENTITY else self.declarations[name].provides()[path]
            for path, name in self.provider.items()
        }

    async def fetch(
        self, paths: frozenset[str], caller: Caller, args: dict[str, object]
    ) -> dict[str, dict[str, object]]:
        """The attributes these paths name, from the sources that provide them; raises SourceFailed."""
        found: dict[str, dict[str, object]] = {"subject": {}, "resource": {}}
        needed: dict[str, set[str]] = {}
        for path in paths:
            if path not in self.provider:
                raise SourceFailed("?", f"provides no {path}")
            needed.setdefault(self.provider[path], set()).add(path)
        if IDENTITY in needed:
            found["subject"]["id"] = caller.principal or ""
            del needed[IDENTITY]
        for name, wanted in sorted(needed.items()):
            source = self.declarations[name]
            values = (
                self._club(wanted, caller, args)
                if source.builtin
                else await self._http(name, source, caller, args)
            )
            for path in wanted:
                root, attribute = path.split(".", 1)
                if attribute not in values:
                    raise SourceFailed(name, "answered without a declared attribute")
                found[root][attribute] = values[attribute]
        return found

    async def _http(
        self, name: str, source: SourceDecl, caller: Caller, args: dict[str, object]
    ) -> dict[str, object]:
        fields = {"subject.id": caller.principal or ""}
        fields.update({f"args.{k}": "" if v is None else str(v) for k, v in args.items()})
        url = source.url or ""
        for key, value in fields.items():
            url = url.replace("{" + key + "}", quote(value, safe=""))
        if "{" in url:
            raise SourceFailed(name, "has a URL template this call cannot fill")
        try:
            async with httpx2.AsyncClient(timeout=source.timeout) as http:
                response = await http.get(url, headers={"Accept": "application/json"})
        except httpx2.TimeoutException:
            raise SourceFailed(name, f"did not answer within {source.timeout:g} s") from None
        except httpx2.HTTPError:
            raise SourceFailed(name, "is unreachable") from None
        if response.status_code != 200:
            raise SourceFailed(name, f"answered HTTP {response.status_code}")
        try:
            data = response.json()
        except ValueError:
            raise SourceFailed(name, "answered malformed data (not JSON)") from None
        if not isinstance(data, dict):
            raise SourceFailed(name, "answered malformed data (not a JSON object)")
        for attribute, kind in source.attributes.items():
            if attribute not in data or not _typed(data[attribute], kind):
                raise SourceFailed(
                    name, f"answered malformed data ({attribute} missing or not {kind})"
                )
        return {attribute: data[attribute] for attribute in source.attributes}

    def _store(self) -> Database:
        if self.db is None:  # only `tools check` builds sources without a store, and never fetches
            raise SourceFailed("club", "has no store to read")
        return self.db

    def _club(self, wanted: set[str], caller: Caller, args: dict[str, object]) -> dict[str, object]:
        db, me = self._store(), caller.principal_id
        values: dict[str, object] = {}
        for path in wanted:
            attribute = path.split(".", 1)[1]
            if attribute == "id":
                values["id"] = caller.principal or ""
            elif attribute == "status":
                values["status"] = caller.principal_status or Lane.GUEST
            elif attribute == "steward":
                values["steward"] = caller.steward
            elif attribute == "lane":
                values["lane"] = caller.lane
            elif attribute == "admitted_days":
                row = principals.by_id(db, me) if me is not None else None
                admitted = row.admitted_at if row else None
                values["admitted_days"] = (
                    (datetime.now(UTC) - parse_time(admitted)).days if admitted else 0
                )
            elif attribute == "asks_today":
                since = format_time(datetime.now(UTC) - timedelta(days=1))
                values["asks_today"] = (
                    asking.questions_since(db, me, since) if me is not None else 0
                )
            elif attribute == "evidence_count":
                values["evidence_count"] = records.evidence_count(db, me) if me is not None else 0
            elif attribute == "owner":
                values["owner"] = self._owner(args)
            elif attribute == "member_status":
                handle = args.get("member") or args.get("handle")
                values["member_status"] = principals.status_by_handle(db, str(handle)) or ""
        return values

    def _owner(self, args: dict[str, object]) -> str:
        """Who owns the record the call acts on: a briefing note, or a member by handle."""
        note_id = args.get("note_id")
        if note_id is not None:
            if not isinstance(note_id, int):  # the input model says an integer: else, fail closed
                raise SourceFailed("club", "was asked about a note whose id is not a number")
            return records.note_owner(self._store(), note_id) or ""
        return str(args.get("member") or args.get("handle") or "")
