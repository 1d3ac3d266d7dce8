"""Inside an open session, a body that is not a well-formed JSON-RPC message gets the JSON-RPC error
that says what is wrong, from the gate, never a silent 202. Found by the mutation run (scripts/mutate)."""

from __future__ import annotations

import httpx2
import pytest

INIT = {
    "jsonrpc": "2.0", "id": 1, "method": "initialize",
    "params": {"protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": {"name": "t", "version": "1"}},
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}

CASES = [
    (b"{not json", -32700, "Parse error"),
    (b'{"jsonrpc": "2.0", "id": NaN, "method": "ping"}', -32700, "Parse error"),
    (b'{"jsonrpc": "1.0", "id": 2, "method": "ping"}', -32600, "Invalid Request: not a JSON-RPC 2.0 message"),
    (b'[{"jsonrpc": "2.0", "id": 2, "method": "ping"}, 7]', -32600, "Invalid Request: not a JSON-RPC 2.0 message"),
    (b'{"jsonrpc": "2.0", "id": true, "method": "ping"}', -32600, "Invalid Request: an id is a string or an integer"),
    (b'{"jsonrpc": "2.0", "id": 2.5, "method": "ping"}', -32600, "Invalid Request: an id is a string or an integer"),
    (b'{"jsonrpc": "2.0", "id": 2, "method": 12}', -32600, "Invalid Request: a method is a string"),
]


@pytest.mark.parametrize("body, code, message", CASES)
async def test_a_malformed_message_in_a_session_is_a_json_rpc_error(club, body, code, message):
    headers = {**ACCEPT, "Authorization": f"Bearer {club.tokens.member.token}"}
    async with httpx2.AsyncClient(timeout=30) as http:
        opened = await http.post(club.url, json=INIT, headers=headers)
        assert opened.status_code == 200, opened.text
        session = opened.headers["mcp-session-id"]
        answer = await http.post(club.url, content=body, headers={**headers, "mcp-session-id": session})
    assert answer.status_code == 400, (answer.status_code, answer.text)
    assert answer.json() == {"jsonrpc": "2.0", "id": None, "error": {"code": code, "message": message}}
