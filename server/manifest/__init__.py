"""The club manifest: declaration models (`schema`), loading with structured problems (`loading`),
and `parley tools check` (`check`). Imports: errors only."""

from server import defaults_dir
from server.manifest.loading import default_manifest_path, load_manifest, parse_manifest
from server.manifest.schema import Manifest, ManifestError, Problem

__all__ = [
    "Manifest",
    "ManifestError",
    "Problem",
    "default_manifest_path",
    "defaults_dir",
    "load_manifest",
    "parse_manifest",
]
