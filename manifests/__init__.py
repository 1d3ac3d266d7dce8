"""The default club's manifest, vocabularies and knowledge; installed as the package `server.defaults`."""
