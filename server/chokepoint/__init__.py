"""The chokepoint: listing and every tools/call, with validation, the rule book, context sources
and the audit log. Imports: tools, access, identity, manifest, router, store."""
