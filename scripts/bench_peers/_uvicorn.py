"""What every peer server shares: its command line and the uvicorn settings the HTTP bench gives all contenders.

Imported by the peer scripts beside it (their folder is first on sys.path when run as scripts);
the settings must stay those contender_parley.py's PARLEY_WRAPPER gives Parley.
"""

from __future__ import annotations

import argparse

import uvicorn


def arguments(description: str | None = None) -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("--port", type=int, required=True)
    parser.add_argument(
        "--tools", required=True, help="JSON list of tool definitions (Parley's tools/list, member)"
    )
    parser.add_argument("--loop", default="asyncio")
    parser.add_argument("--http", default="h11")
    return parser


def serve(app, args: argparse.Namespace) -> None:
    uvicorn.run(
        app,
        host="127.0.0.1",
        port=args.port,
        log_level="warning",
        access_log=False,
        loop=args.loop,
        http=args.http,
    )
