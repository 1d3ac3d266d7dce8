"""Catalogues and vocabularies for the router's tests, from files beside this one and the club's own."""

from __future__ import annotations

from functools import lru_cache
from pathlib import Path

import yaml

from server import tools
from server.chokepoint.chokepoint import Chokepoint
from server.manifest.loading import load_manifest
from server.router import Catalogue
from server.router.vocabulary import load, parse

HERE = Path(__file__).resolve().parent


@lru_cache
def _data() -> dict:
    return yaml.safe_load((HERE / "catalogues.yaml").read_text())


def club_declarations() -> list[dict]:
    chokepoint = Chokepoint(None, None, load_manifest(), None, tools.load_all())
    return [
        d.model_dump(mode="json", by_alias=True, exclude_none=True)
        for d in chokepoint.definitions.values()
    ]


@lru_cache
def catalogue(name: str) -> Catalogue:
    if name == "club":
        return Catalogue.from_declarations(club_declarations())
    return Catalogue.from_declarations(_data()[name])


@lru_cache
def vocabulary(name: str, language: str):
    if name == "club":
        return load(language)
    return parse(_data()["vocabularies"][name][language])
