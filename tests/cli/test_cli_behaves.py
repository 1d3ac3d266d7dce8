"""The command line as a person and a script use it (issue 31): no traceback where a clear error or
silence is due, usage for the subcommand that was meant, hints that run as printed."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import PARLEY, run, run_process

ROOT = Path(__file__).resolve().parents[2]


def test_principal_password_without_a_terminal_is_a_clear_error(tmp_path):
    run_process(tmp_path, "demo")
    answer = subprocess.run(
        [*PARLEY, "principal", "password", "ana"],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        env={**os.environ, "PARLEY_DB": str(tmp_path / "club.db")},
        timeout=60,
    )
    assert answer.returncode == 2 and "Traceback" not in answer.stderr, answer.stderr
    assert "no terminal" in answer.stderr and "--stdin" in answer.stderr


def test_output_into_a_pipe_closed_early_is_no_traceback(tmp_path):
    run_process(tmp_path, "demo")
    env = {**os.environ, "PARLEY_DB": str(tmp_path / "club.db")}
    # the reader (`true`) is gone before the command writes a byte, as `head` is once it has its lines
    pipeline = subprocess.run(
        f"{sys.executable} -m server.cli.main principal list --json | true",
        shell=True,
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
        cwd=ROOT,
    )
    assert "Traceback" not in pipeline.stderr and "BrokenPipe" not in pipeline.stderr, (
        pipeline.stderr
    )


@pytest.mark.parametrize(
    "args, usage",
    [
        (["token", "mint", "bruno", "--bogus"], "usage: parley token mint"),
        (["db", "migrate", "--everything"], "usage: parley db migrate"),
        (["serve", "--wrokers", "2"], "usage: parley serve"),
    ],
)
def test_an_unknown_flag_prints_that_subcommands_usage(tmp_path, args, usage):
    answer = run(tmp_path, *args, check=False)
    assert answer.returncode == 2 and usage in answer.stderr, answer.stderr
    assert "unrecognized arguments" in answer.stderr


@pytest.mark.parametrize("env", [{}, {"PARLEY_TOKEN": ""}])
def test_doctor_with_an_empty_token_is_a_usage_error_not_a_guest(tmp_path, env):
    args = ["doctor", "--token", ""] if not env else ["doctor"]
    answer = run(tmp_path, *args, check=False, env=env)
    assert answer.returncode == 2 and "is empty" in answer.stderr, (
        answer.returncode,
        answer.stderr,
    )


def test_hints_name_the_command_as_it_was_run(tmp_path):
    answer = run(tmp_path, "init", env={"PARLEY_COMMAND": "scripts/parley"})
    assert "next: scripts/parley principal add" in answer.stderr
    first = run(tmp_path, "demo", env={"PARLEY_COMMAND": "scripts/parley"})
    assert "check with  scripts/parley doctor --token" in first.stdout
    again = run(tmp_path, "demo", env={"PARLEY_COMMAND": "scripts/parley"})
    assert "scripts/parley token mint bruno" in again.stdout and " parley token" not in again.stdout


def test_demo_on_postgresql_prints_the_port_it_will_serve_on(tmp_path, postgres):
    url = postgres.new_database()
    try:
        env = {
            "PARLEY_DATABASE_URL": url,
            "PARLEY_KEYS": str(tmp_path / "keys"),
            "PARLEY_PORT": "18793",
        }
        first = run(tmp_path, "demo", env=env)
        assert first.returncode == 0, first.stderr
        again = run(tmp_path, "demo", env=env)
        for shown in (first.stdout, again.stdout):
            assert "MCP endpoint: http://127.0.0.1:18793/mcp" in shown and ":8765" not in shown, (
                shown
            )
            assert "it serves on port 18793" in shown, shown
    finally:
        postgres.drop(url)
