"""Answering agents: sandboxed, tool-less functions from (scoped request, terms, notes) to an Answer.

This package imports nothing from the store, the tools or the MCP endpoint (tested): an answering
agent cannot reach what it is not handed.
"""

from server.answering.contract import Answer, Note, ScopedRequest, Terms
from server.answering.deterministic import answer

__all__ = ["Answer", "Note", "ScopedRequest", "Terms", "answer"]
