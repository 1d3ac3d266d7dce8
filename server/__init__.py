"""Parley: an MCP server for a club whose members take part through agents."""

__version__ = "0.1.0"
