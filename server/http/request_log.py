"""The request log, when it is on: uvicorn's access log without query strings.

A query string can carry a credential a client put there by mistake (the gate refuses those
requests, but uvicorn logs the line before the gate answers); so the path is logged alone.
"""

from __future__ import annotations

import logging


class QuerylessAccessLog(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        args = record.args
        if (
            isinstance(args, tuple)
            and len(args) >= 3
            and isinstance(args[2], str)
            and "?" in args[2]
        ):
            record.args = (*args[:2], args[2].split("?", 1)[0] + "?…", *args[3:])
        return True


def install() -> None:
    logging.getLogger("uvicorn.access").addFilter(QuerylessAccessLog())
