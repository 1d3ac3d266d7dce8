"""`parley serve` says where it serves only once it answers there: an operator (or a script) that reads
the URL and connects at once must be answered, not left in the listen backlog while workers import."""

from __future__ import annotations

import http.client
import logging
import threading
import time

PROBE_PATH = "/livez"


def probe_host(host: str) -> str:
    """Where this machine reaches a server listening on `host` (a wildcard address is reached on loopback)."""
    return {"0.0.0.0": "127.0.0.1", "::": "::1", "": "127.0.0.1"}.get(host, host)


def answers(host: str, port: int, timeout: float = 2.0) -> bool:
    """Whether a server on host:port answers its liveness path (any worker, any status below 500)."""
    connection = http.client.HTTPConnection(probe_host(host), port, timeout=timeout)
    try:
        connection.request("GET", PROBE_PATH)
        return connection.getresponse().status < 500
    except (OSError, http.client.HTTPException):
        return False
    finally:
        connection.close()


def announce_when_answering(host: str, port: int, lines: list[str]) -> threading.Thread:
    """Print `lines` on stdout once the server answers; a daemon thread, so it never holds up an exit."""

    def wait_then_print() -> None:
        while not answers(host, port):
            time.sleep(0.1)
        print("\n".join(lines), flush=True)

    thread = threading.Thread(target=wait_then_print, name="parley-announce", daemon=True)
    thread.start()
    return thread


class EarlyBanner(logging.Filter):
    """Drops uvicorn's "running on" line: with several workers the supervisor logs it when it binds the
    socket, seconds before any worker accepts a connection; the announcement above replaces it."""

    def filter(self, record: logging.LogRecord) -> bool:
        return not (isinstance(record.msg, str) and record.msg.startswith("Uvicorn running on"))


def drop_early_banner() -> None:
    logging.getLogger("uvicorn.error").addFilter(EarlyBanner())
