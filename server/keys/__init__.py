"""Every key Parley holds, each in its own file of the keys folder (names and formats fixed: existing
folders keep working): the mandate-signing key (`mandate`), the OAuth signing ring (`oauth`) and the
console's session secret (`console`). `server.cluster.keyfolder` creates and fingerprints them."""
