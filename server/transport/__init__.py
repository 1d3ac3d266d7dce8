"""The one seam between Parley and the MCP SDK's private internals (`sdk`): nothing else in
`server/` reads a name the SDK does not publish."""
