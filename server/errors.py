"""One family of errors whose message is safe to show to whoever made the request.

Each surface maps a `ParleyError` once: a tool answers it as a tool error, the console shows it
on the page it came from with `status`, the CLI prints it and exits 1, HTTP answers `status`.
Anything that is not a `ParleyError` is a bug: it is logged and answered generically.
"""

from __future__ import annotations


class ParleyError(Exception):
    """A refusal the caller can act on; `str(error)` says what is wrong and what to do next."""

    status = 400

    def __init__(self, message: str):
        super().__init__(message)
        self.message = message

    def __str__(self) -> str:
        return self.message


class NotFound(ParleyError):
    """No such thing, or not the caller's: the two answer alike, so nothing leaks."""

    status = 404


class Conflict(ParleyError):
    """The thing exists but its state forbids this now: already decided, a name taken."""

    status = 409


class ConfigError(ParleyError):
    """A setting or file the server needs is missing or wrong; the message names it."""

    status = 500


class KeyMissing(ConfigError):
    """A cluster's shared keys folder lacks a key; no process makes one on its own, or its key would
    be one no other process has."""

    def __init__(self, what: str, folder: object):
        super().__init__(
            f"no {what} in {folder}: run 'parley keys init' once and give every process that folder "
            "(PARLEY_KEYS)"
        )
