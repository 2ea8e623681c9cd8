"""A short run of scripts/load_test.py: concurrent phones against a real server process."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from .conftest import ROOT


def run_load_test(seconds: int, *extra: str, timeout: int) -> dict:
    """scripts/load_test.py with 3 phones at 2 tables for ``seconds`` s; its JSON summary
    (asserting it exits 0)."""
    out = subprocess.run(
        [
            sys.executable,
            "scripts/load_test.py",
            "--phones",
            "3",
            "--tables",
            "2",
            "--seconds",
            str(seconds),
            *extra,
            "--json",
        ],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    summary = json.loads(out.stdout)
    assert out.returncode == 0, out.stdout + out.stderr
    return summary


def test_short_load_run_answers_everything_and_totals_add_up():
    summary = run_load_test(2, timeout=120)
    assert summary["errors"] == 0 and summary["totals_consistent"]
    assert (
        summary["photos"] > 0
        and summary["upload_to_hint_ms"]["p95"] >= summary["upload_to_hint_ms"]["median"]
    )


@pytest.mark.slow
def test_kill_9_twice_under_load_loses_nothing_and_leaves_no_orphan():
    """scripts/load_test.py --kill 2: the server is killed with SIGKILL twice mid-run and restarted;
    phones retry with their Idempotency-Key. Every acknowledged entry and photo is stored once,
    every photo row has its file and no file lacks a row."""
    summary = run_load_test(8, "--kill", "2", timeout=300)
    assert summary["kills"] == 2 and summary["errors"] == 0 and summary["totals_consistent"]
    assert summary["photos"] > 0
