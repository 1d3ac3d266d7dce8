"""What an answering worker is told at start (see `pool.py`)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import urlsplit


@dataclass(frozen=True)
class AnswererConfig:
    """What a worker is told at start: deterministic when `url` is None, else an OpenAI-compatible model."""

    url: str | None = None
    model: str | None = None
    api_key: str | None = field(
        default=None, repr=False
    )  # the value, handed over the worker's stdin
    timeout: float = 20.0

    @classmethod
    def from_settings(
        cls,
        url: str | None,
        model: str | None,
        key_env: str | None,
        environ: dict[str, str] | None = None,
        timeout: float = 20.0,
    ) -> AnswererConfig:
        """From `Settings.answerer_url/answerer_model/answerer_key_env`: the key is read here, in the
        server, from the variable the settings name; the worker never sees the server's environment."""
        source: Mapping[str, str] = os.environ if environ is None else environ
        api_key = source.get(key_env) if key_env else None
        return cls(url=url or None, model=model, api_key=api_key or None, timeout=timeout)

    def ports(self) -> tuple[int, ...]:
        """The TCP ports a worker may connect to: the model endpoint's, or none."""
        if not self.url:
            return ()
        parts = urlsplit(self.url)
        return (parts.port or (443 if parts.scheme == "https" else 80),)
