"""Prometheus metrics for `/metrics`: requests by lane and outcome, tool-call latency, rate-limit
refusals, and how long change notifications take to reach this process.

Several worker processes (`parley serve --workers N`) each count on their own; with
`PROMETHEUS_MULTIPROC_DIR` set (serve sets it for several workers) `/metrics` adds them up.
Labels are bounded: lanes, outcomes, and only the manifest's tool names (`unknown` for any other).
"""

from __future__ import annotations

import functools
import os

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client import multiprocess

REQUESTS = Counter("parley_requests_total", "Requests to /mcp by lane and what the gate did with them",
                   ["lane", "outcome"])
TOOL_CALLS = Histogram("parley_tool_call_seconds", "tools/call latency through the chokepoint",
                       ["tool", "outcome"], buckets=(.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 10))
RATE_LIMITED = Counter("parley_rate_limited_total", "Requests refused for their budget", ["lane"])
NOTIFICATION_LAG = Histogram("parley_notification_lag_seconds",
                             "From a change's commit to this process hearing of it, by channel", ["channel"],
                             buckets=(.0005, .001, .0025, .005, .01, .025, .05, .1, .25, 1, 5))

# Children by label values, each looked up once: `labels()` takes a lock and checks its arguments on
# every call. The label sets are bounded (above), and nothing here ever removes a child.
requests_by = functools.cache(REQUESTS.labels)
tool_calls_by = functools.cache(TOOL_CALLS.labels)


def exposition() -> tuple[bytes, str]:
    """The metrics text and its content type; every worker's counts when several share a folder."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        multiprocess.MultiProcessCollector(registry)
        return generate_latest(registry), CONTENT_TYPE_LATEST
    from prometheus_client import REGISTRY

    return generate_latest(REGISTRY), CONTENT_TYPE_LATEST
