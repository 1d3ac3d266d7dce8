"""Settings: one typed model read once from the environment, the README's table of it, and no
`PARLEY_*` variable read anywhere else in server/."""

from __future__ import annotations

import ast
import re
from dataclasses import fields
from pathlib import Path

import pytest

import server
from server.errors import ConfigError
from server.settings import Settings, variables

ROOT = Path(server.__file__).resolve().parent
README = (ROOT.parent / "README.md").read_text()

# One value for each variable that differs from its default (and is valid beside the others given).
SAMPLES = {
    "PARLEY_DB": "/tmp/elsewhere/club.db",
    "PARLEY_KEYS": "/tmp/keys-elsewhere",
    "PARLEY_MANIFEST": "/tmp/other.yaml",
    "PARLEY_HOST": "0.0.0.0",
    "PARLEY_PORT": "18793",
    "PARLEY_PUBLIC_URL": "https://club.example.org",
    "PARLEY_OAUTH_ISSUER": "https://issuer.example.org",
    "PARLEY_OAUTH_JWKS_URL": "https://issuer.example.org/jwks",
    "PARLEY_OAUTH_JWKS_FILE": "/tmp/jwks.json",
    "PARLEY_OAUTH_ALGORITHMS": "EdDSA",
    "PARLEY_ANSWERER_URL": "http://127.0.0.1:8000/v1",
    "PARLEY_ANSWERER_MODEL": "small",
    "PARLEY_ANSWERER_KEY_ENV": "MY_KEY",
    "PARLEY_ANSWERER_WORKERS": "5",
    "PARLEY_MAX_SESSIONS": "77",
    "PARLEY_DATABASE_URL": "postgresql://db.internal/parley",
    "PARLEY_SESSIONS": "stateless",
    "PARLEY_DB_POOL": "9",
    "PARLEY_FORWARDED_ALLOW_IPS": "10.0.0.5,192.168.0.0/16",
    "PARLEY_TOKEN": "pa_sample",
    "PARLEY_COMMAND": "scripts/parley",
}
NEEDS = {
    "PARLEY_OAUTH_JWKS_URL": {"PARLEY_OAUTH_ISSUER": SAMPLES["PARLEY_OAUTH_ISSUER"]},
    "PARLEY_OAUTH_JWKS_FILE": {"PARLEY_OAUTH_ISSUER": SAMPLES["PARLEY_OAUTH_ISSUER"]},
    "PARLEY_OAUTH_ISSUER": {"PARLEY_OAUTH_JWKS_FILE": SAMPLES["PARLEY_OAUTH_JWKS_FILE"]},
    "PARLEY_ANSWERER_URL": {"PARLEY_ANSWERER_MODEL": SAMPLES["PARLEY_ANSWERER_MODEL"]},
}


def readme_table() -> dict[str, tuple[str, str]]:
    section = README.split("\n## Settings\n", 1)[1].split("\n## ", 1)[0]
    return {
        name: (default.strip(), meaning.strip())
        for name, default, meaning in re.findall(
            r"^\| `(PARLEY_[A-Z_]+)` \|([^|]*)\|([^|]*)\|$", section, re.M
        )
    }


def test_the_readme_table_and_the_model_agree_both_ways():
    table = readme_table()
    model = {name: (v["default"], v["meaning"]) for name, v in variables().items()}
    assert sorted(set(model) - set(table)) == [], (
        "variables the model reads that the README's table lacks"
    )
    assert sorted(set(table) - set(model)) == [], (
        "variables the README's table lists that the model does not read"
    )
    assert table == model


def test_every_variable_of_the_model_sets_its_field():
    assert set(SAMPLES) == set(variables()), "give each variable a sample value here"
    default = Settings.from_env({})
    by_variable = {f.metadata["env"]: f.name for f in fields(Settings) if "env" in f.metadata}
    for name, value in SAMPLES.items():
        given = Settings.from_env({name: value, **NEEDS.get(name, {})})
        field_name = by_variable[name]
        assert getattr(given, field_name) != getattr(default, field_name), (
            f"{name} does not set {field_name}"
        )


@pytest.mark.parametrize(
    "name, value, message",
    [
        ("PARLEY_PORT", "eighty", "PARLEY_PORT must be a number"),
        ("PARLEY_DB_POOL", "1", "PARLEY_DB_POOL must be a number from 2 to 500"),
        ("PARLEY_SESSIONS", "sticky", "PARLEY_SESSIONS must be stateless or stateful"),
        ("PARLEY_DATABASE_URL", "mysql://x/y", "PARLEY_DATABASE_URL must be a postgresql:// URL"),
        (
            "PARLEY_OAUTH_ISSUER",
            "https://issuer.example.org",
            "PARLEY_OAUTH_ISSUER needs PARLEY_OAUTH_JWKS_URL",
        ),
    ],
)
def test_a_bad_value_names_its_variable(name, value, message):
    with pytest.raises(ConfigError, match=re.escape(message)):
        Settings.from_env({name: value})


def test_the_token_is_never_in_the_settings_repr():
    settings = Settings.from_env({"PARLEY_TOKEN": "pa_secret_never_shown"})
    assert settings.token == "pa_secret_never_shown" and "pa_secret_never_shown" not in repr(
        settings
    )
    assert (
        Settings.from_env({"PARLEY_TOKEN": ""}).token == ""
    )  # an empty token stays empty: doctor refuses it


def environment_reads(tree: ast.AST) -> list[str]:
    """PARLEY_* names this module reads from a mapping (os.environ or one handed in):
    `m["PARLEY_…"]`, `m.get("PARLEY_…")`, `getenv("PARLEY_…")`. Writing one (as `parley serve`
    does for its workers) is no read."""
    found = []
    for node in ast.walk(tree):
        key: ast.expr | None = None
        if isinstance(node, ast.Subscript) and isinstance(node.ctx, ast.Load):
            key = node.slice
        elif (
            isinstance(node, ast.Call)
            and node.args
            and re.search(r"(\.get|getenv)$", ast.unparse(node.func))
        ):
            key = node.args[0]
        if (
            isinstance(key, ast.Constant)
            and isinstance(key.value, str)
            and key.value.startswith("PARLEY_")
        ):
            found.append(key.value)
    return found


def test_no_module_but_the_settings_reads_a_parley_variable():
    reads = {
        str(path.relative_to(ROOT.parent)): names
        for path in sorted(ROOT.rglob("*.py"))
        if path.name != "settings.py" or path.parent != ROOT
        for names in [environment_reads(ast.parse(path.read_text()))]
        if names
    }
    assert reads == {}, (
        "read these through server.settings.Settings (and add them to the README's table)"
    )
    assert environment_reads(
        ast.parse((ROOT / "settings.py").read_text())
    )  # the scan sees reads where they are
