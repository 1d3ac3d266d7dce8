"""Prometheus metrics for `/metrics`: requests by lane and outcome, tool-call latency, rate-limit
refusals, and how long change notifications take to reach this process.

Several worker processes (`parley serve --workers N`) each count on their own; with
`PROMETHEUS_MULTIPROC_DIR` set (serve sets it for several workers) `/metrics` adds them up.
Labels are bounded: lanes, outcomes, and only the manifest's tool names (`unknown` for any other).
"""

from __future__ import annotations

import contextvars
import functools
import os

from prometheus_client import (
    CONTENT_TYPE_LATEST,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    generate_latest,
    multiprocess,
)

REQUESTS = Counter(
    "parley_requests_total",
    "Requests to /mcp by lane and what the gate did with them",
    ["lane", "outcome"],
)
TOOL_CALLS = Histogram(
    "parley_tool_call_seconds",
    "tools/call latency through the chokepoint",
    ["tool", "outcome"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10),
)
RATE_LIMITED = Counter("parley_rate_limited_total", "Requests refused for their budget", ["lane"])
# Round trips to PostgreSQL (a statement, or a transaction's BEGIN, lock and COMMIT), made while
# serving a request or in the background (the audit writer, the live sessions' poll): what
# `scripts/bench --database postgresql` divides by the calls it made.
STORE_STATEMENTS = Counter(
    "parley_store_statements_total",
    "Statements sent to PostgreSQL (round trips), by what they were made for",
    ["source"],
)
# What the statements made in this context are for: the HTTP gate sets "request" for a request's
# duration (worker threads it hands work to inherit it); anything else is "background".
STATEMENT_SOURCE: contextvars.ContextVar[str] = contextvars.ContextVar(
    "parley_statement_source", default="background"
)
NOTIFICATION_LAG = Histogram(
    "parley_notification_lag_seconds",
    "From a change's commit to this process hearing of it, by channel",
    ["channel"],
    buckets=(0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1, 5),
)

# The state of each serving process, sampled every few seconds and at every scrape (`server.http.health`).
# With several workers each process reports its own series, labelled with its pid ("liveall": a worker
# that exits cleanly takes its series with it).
PROCESS_UP = Gauge("parley_process_up", "1 for each serving process", multiprocess_mode="liveall")
STORE_UP = Gauge(
    "parley_store_up", "1 when the store answers, 0 during an outage", multiprocess_mode="liveall"
)
STORE_POOL = Gauge(
    "parley_store_pool_connections",
    "PostgreSQL pool: connections open, in use, and requests waiting for one",
    ["state"],
    multiprocess_mode="liveall",
)
LISTENER_UP = Gauge(
    "parley_change_listener_connected",
    "1 when the change listener is connected (PostgreSQL)",
    multiprocess_mode="liveall",
)
ANSWERING_ALIVE = Gauge(
    "parley_answering_workers_alive",
    "answering worker processes running",
    multiprocess_mode="liveall",
)

# Children by label values, each looked up once: `labels()` takes a lock and checks its arguments on
# every call. The label sets are bounded (above), and nothing here ever removes a child.
requests_by = functools.cache(REQUESTS.labels)
tool_calls_by = functools.cache(TOOL_CALLS.labels)
statements_by = functools.cache(STORE_STATEMENTS.labels)


def count_statements(count: int = 1) -> None:
    """`count` round trips to PostgreSQL, on behalf of what this context serves."""
    statements_by(STATEMENT_SOURCE.get()).inc(count)


def announce_series(lanes: list[str], tools: list[str]) -> None:
    """Every request and tool-call series at zero from the start, so the first scrape is complete."""
    for lane in [*lanes, "none"]:
        for outcome in ("admitted", "rate_limited", "rejected", "unavailable", "sessions_full"):
            requests_by(lane, outcome)
        RATE_LIMITED.labels(lane)
    for tool in tools:
        tool_calls_by(tool, "ok")
    for source in ("request", "background"):
        statements_by(source)


def process_exited() -> None:
    """This process's live series leave the multiprocess folder with it."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        # prometheus_client's multiprocess module has no annotations
        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call,unused-ignore]


def exposition() -> tuple[bytes, str]:
    """The metrics text and its content type; every worker's counts when several share a folder."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        # prometheus_client's multiprocess module has no annotations
        multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call,unused-ignore]
        return generate_latest(registry), CONTENT_TYPE_LATEST
    from prometheus_client import REGISTRY

    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
