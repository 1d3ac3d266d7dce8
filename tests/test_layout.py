"""Tests are found where a newcomer looks first: `tests/` mirrors `server/`'s folders."""

from __future__ import annotations

from pathlib import Path

import server

TESTS = Path(__file__).resolve().parent
PACKAGES = {
    p.name for p in Path(server.__file__).resolve().parent.iterdir() if (p / "__init__.py").exists()
}
# Folders of tests that are not a package of server/: the console driven in a real browser.
BESIDE = {"browser"}
# Test modules kept at the top: they test the whole product, or a top-level module of server/.
TOP = {
    "test_layers.py",  # the import ranks of every package
    "test_layout.py",
    "test_readme.py",
    "test_contributing.py",
    "test_packaging.py",  # the built wheel, installed
    "test_settings.py",  # server/settings.py
    "test_heap.py",  # server/heap.py
    "test_inspector.py",  # outside clients in every lane
    "test_ts_client.py",
}


def test_every_test_folder_is_a_package_of_server():
    folders = {p.name for p in TESTS.iterdir() if p.is_dir() and (p / "__init__.py").exists()}
    assert folders - PACKAGES - BESIDE == set()


def test_top_level_test_modules_are_the_whole_products():
    """A new test of one package goes in that package's folder, not at the top."""
    assert {p.name for p in TESTS.glob("test_*.py")} == TOP
