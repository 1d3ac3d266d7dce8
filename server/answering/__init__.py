"""Answering agents: sandboxed, tool-less functions from (scoped request, terms, notes) to an Answer.

This package imports nothing from the store, the tools or the MCP endpoint (tested): an answering
agent cannot reach what it is not handed.

- `checks`: what the trusted side runs on every answer (commitments, prices, instructions, links,
  withheld notes) and on the notes before an answerer is handed them (`screen_notes`).
- `pool`: answerers in confined worker processes (`AnswererPool`), so a slow model blocks nobody.
- `sandbox`: what a worker gives up before answering (no_new_privs, uid 65534, Landlock).
"""

from server.answering.contract import Answer, Note, ScopedRequest, Terms
from server.answering.deterministic import answer

__all__ = ["Answer", "Note", "ScopedRequest", "Terms", "answer"]
