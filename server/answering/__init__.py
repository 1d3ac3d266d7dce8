"""Answering agents: sandboxed, tool-less functions from (scoped request, terms, notes) to a Selection.

This package imports nothing from the store, the tools or the MCP endpoint (tested): an answering
agent cannot reach what it is not handed.

- `grounding`: the trusted side's composition of the Answer an asker reads, from approved notes only.
- `checks`: the flags a principal sees when approving a note (commitments, prices, instructions,
  links, invisible and look-alike characters); they decide which notes need "relay as written".
- `pool`: answerers in confined worker processes (`AnswererPool`), so a slow model blocks nobody;
  `worker_process` is the server's end of one of them (its pipes and deadlines), `worker` the worker's.
- `sandbox`: what a worker gives up before answering (no_new_privs, uid 65534, Landlock).
"""

from server.answering.contract import Answer, Note, ScopedRequest, Selection, Terms
from server.answering.deterministic import answer

__all__ = ["Answer", "Note", "ScopedRequest", "Selection", "Terms", "answer"]
