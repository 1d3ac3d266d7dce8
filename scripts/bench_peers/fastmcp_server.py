"""FastMCP with auth equivalent to Parley's, for scripts/bench_http.py. Run with FastMCP's own venv.

The same tool names, descriptions and input schemas as Parley lists to a member (read from the
JSON file the bench saved), every tool guarded by `auth=require_scopes(...)`: the scope Parley's
manifest says it needs, and `club:read` for Parley's public tools (`whoami`, `about_club`,
`apply`), so that the measured `whoami` call pays for a scope check as Parley's does. FastMCP
with a token verifier has no anonymous lane, so nobody loses a tool they could call in Parley.

Two ways to verify the bearer token, one per bench row:
- `--auth token`: a `TokenVerifier` that looks the SHA-256 of the presented token up on every
  request, in an in-memory dict standing in for Parley's hashed-token table;
- `--auth jwt`: FastMCP's `JWTVerifier` with an ES256 key (the algorithm Parley's OAuth access
  tokens use), checking issuer and audience; the key pair and one signed token are written to
  `--key-dir` at start-up, where the bench reads the token.

Sessions as Parley's: stateful, SSE responses. Measured with fastmcp 4.2.3 (it pins mcp 2.3.0).
Usage: python fastmcp_server.py --port P --tools tools.json --auth token --tokens tokens.json
       python fastmcp_server.py --port P --tools tools.json --auth jwt --key-dir DIR
"""

from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

from _uvicorn import arguments, serve
from fastmcp import FastMCP
from fastmcp.server.auth import AccessToken, TokenVerifier, require_scopes
from fastmcp.server.dependencies import get_access_token
from fastmcp.tools import Tool

ISSUER = "http://127.0.0.1/bench-issuer"
PUBLIC_TOOL_SCOPE = "club:read"


class HashedTokenVerifier(TokenVerifier):
    """A lookup per request: SHA-256 of the presented token → its row, as Parley stores tokens."""

    def __init__(self, rows: dict[str, dict], base_url: str):
        super().__init__(base_url=base_url)
        self.rows = rows

    async def verify_token(self, token: str) -> AccessToken | None:
        row = self.rows.get(hashlib.sha256(token.encode("utf-8")).hexdigest())
        if row is None or row.get("revoked"):
            return None
        return AccessToken(
            token=token,
            client_id=row["agent"],
            scopes=row["scopes"],
            expires_at=None,
            subject=row["principal"],
            claims=row,
        )


def jwt_verifier(key_dir: Path, audience: str):
    """FastMCP's JWTVerifier on a fresh ES256 key; writes the public key and one token to key_dir."""
    import jwt
    from cryptography.hazmat.primitives import serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from fastmcp.server.auth.providers.jwt import JWTVerifier

    key = ec.generate_private_key(ec.SECP256R1())
    public_pem = (
        key.public_key()
        .public_bytes(serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo)
        .decode()
    )
    now = int(time.time())
    scopes = json.loads((key_dir / "scopes.json").read_text())
    token = jwt.encode(
        {
            "iss": ISSUER,
            "aud": audience,
            "sub": "agent:bruno",
            "scope": " ".join(scopes),
            "iat": now,
            "nbf": now,
            "exp": now + 24 * 3600,
        },
        key,
        algorithm="ES256",
    )
    (key_dir / "public.pem").write_text(public_pem)
    (key_dir / "token").write_text(token)
    return JWTVerifier(public_key=public_pem, issuer=ISSUER, audience=audience, algorithm="ES256")


def build(tools_file: Path, verifier) -> FastMCP:
    mcp = FastMCP("fastmcp-bench", auth=verifier)

    async def whoami() -> dict:
        token = get_access_token()
        scopes = sorted(token.scopes) if token else []
        return {
            "lane": "member",
            "why": "a verified token",
            "principal": token.subject if token else None,
            "agent": token.client_id if token else None,
            "token_scopes": scopes,
            "effective_scopes": scopes,
        }

    async def stub() -> dict:
        return {}

    for spec in json.loads(tools_file.read_text()):
        tool = Tool.from_function(
            whoami if spec["name"] == "whoami" else stub,
            name=spec["name"],
            description=spec.get("description"),
            auth=require_scopes(spec.get("needs") or PUBLIC_TOOL_SCOPE),
        )
        if spec["name"] != "whoami" and spec.get("inputSchema"):
            tool.parameters = spec["inputSchema"]  # listed as Parley lists it; never called here
        mcp.add_tool(tool)
    return mcp


def main() -> None:
    parser = arguments(__doc__.splitlines()[0])
    parser.add_argument("--auth", choices=["token", "jwt"], required=True)
    parser.add_argument(
        "--tokens", type=Path, help="--auth token: JSON {sha256 hex: {principal, agent, scopes}}"
    )
    parser.add_argument(
        "--key-dir",
        type=Path,
        help="--auth jwt: folder with scopes.json; key and token written here",
    )
    args = parser.parse_args()
    base_url = f"http://127.0.0.1:{args.port}"
    if args.auth == "token":
        verifier = HashedTokenVerifier(json.loads(args.tokens.read_text()), base_url)
    else:
        verifier = jwt_verifier(args.key_dir, f"{base_url}/mcp")
    app = build(Path(args.tools), verifier).http_app(
        path="/mcp", stateless_http=False, json_response=False
    )
    serve(app, args)


if __name__ == "__main__":
    main()
