"""Parley: an MCP server for a club whose members take part through agents."""

from pathlib import Path

__version__ = "0.1.0"

PACKAGE = Path(__file__).resolve().parent


def defaults_dir(package: Path = PACKAGE) -> Path:
    """The default club's folder (manifest, vocabularies, knowledge) beside the imported package
    itself: `server/defaults` in an install (the wheel carries manifests/ there), the checkout's
    `manifests/` in a source tree. Never through the import system's `server.defaults`: an editable
    install maps that to the checkout it was made from, so a second checkout sharing the venv would
    silently read the first's club."""
    for folder in (package / "defaults", package.parent / "manifests"):
        if (folder / "club.yaml").is_file():
            return folder
    raise FileNotFoundError(
        f"no default club beside the package {package} (looked in defaults/ and ../manifests/)"
    )
