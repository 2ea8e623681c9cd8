"""The long Big Clock benchmarks may run on PyPy (docs/solitaires.md): the engine imports there,
and a hint-played deal makes the same moves and quotes the same rates as on CPython."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
PYPY = shutil.which("pypy3")

pytestmark = pytest.mark.skipif(
    PYPY is None, reason="pypy3 is not installed (scripts/test installs it)"
)

#: (game, params, seed): short Big Clock deals whose hint calls search real choices.
DEALS = [("big-clock", {"max_pip": 6}, 3), ("big-clock", {"max_pip": 6}, 2)]

_RUN = """
import json, sys
sys.path.insert(0, {root!r}); sys.path.insert(0, {scripts!r})
import bench_solitaires as b
out = [b.run_task((g, p, s, "hint", None, 100000)) for g, p, s in json.loads(sys.argv[1])]
print(json.dumps([[r["won"], r["quotes"], len(r["hint_ms"]), r["python"]] for r in out]))
"""


def _play(python: str) -> list:
    """``[won, quotes, hint calls, interpreter]`` of every deal of :data:`DEALS`, played by
    ``scripts/bench_solitaires.py``'s ``run_task`` on ``python``."""
    code = _RUN.format(root=str(ROOT), scripts=str(ROOT / "scripts"))
    done = subprocess.run(
        [python, "-c", code, json.dumps(DEALS)], capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)


def test_hint_deals_play_the_same_on_pypy_and_cpython():
    assert PYPY is not None
    on_pypy, on_cpython = _play(PYPY), _play(sys.executable)
    assert [r[3] for r in on_pypy] == ["PyPy"] * len(DEALS)
    assert [r[3] for r in on_cpython] == ["CPython"] * len(DEALS)
    assert all(r[2] > 0 for r in on_pypy)  # hint calls were made
    assert [r[:3] for r in on_pypy] == [r[:3] for r in on_cpython]  # moves, rates, calls
    assert any(r[1] for r in on_pypy)  # some call searched a real choice


def test_the_benchmark_refuses_other_solitaires_on_pypy():
    """Good Neighbors' search order follows set iteration order, which PyPy does not share."""
    assert PYPY is not None
    done = subprocess.run(
        [PYPY, str(ROOT / "scripts/bench_solitaires.py"), "--games", "good-neighbors"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 2
    assert "only big-clock" in done.stderr
