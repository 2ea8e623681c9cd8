"""Tests of the shared thread pool of the per-box stages (vision.workers)."""

from __future__ import annotations

import os
import signal
import threading

import pytest

from vision import workers


def test_run_all_keeps_order_and_uses_the_pool_threads(monkeypatch):
    monkeypatch.setattr(workers, "THREADS", 2)
    names: set[str] = set()
    gate = threading.Barrier(2, timeout=10)  # two items only finish when both run at once

    def square(x: int) -> int:
        if x < 2:
            gate.wait()
        names.add(threading.current_thread().name)
        return x * x

    assert workers.run_all(square, list(range(6))) == [0, 1, 4, 9, 16, 25]
    assert names and all(n.startswith("vision") for n in names)
    assert workers.run_all(square, []) == []


def test_run_all_in_the_callers_thread_with_one_thread_or_one_item(monkeypatch):
    here = threading.current_thread().name
    seen: list[str] = []

    def where(x: int) -> int:
        seen.append(threading.current_thread().name)
        return x + 1

    monkeypatch.setattr(workers, "THREADS", 1)
    assert workers.run_all(where, [1, 2, 3]) == [2, 3, 4]
    monkeypatch.setattr(workers, "THREADS", 2)
    assert workers.run_all(where, [5]) == [6]
    assert seen == [here] * 4


def test_run_all_raises_what_the_function_raises(monkeypatch):
    monkeypatch.setattr(workers, "THREADS", 2)

    def fail_on_3(x: int) -> int:
        if x == 3:
            raise ValueError("three")
        return x

    with pytest.raises(ValueError, match="three"):
        workers.run_all(fail_on_3, [1, 2, 3, 4])


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_run_all_works_in_a_forked_child(monkeypatch):
    monkeypatch.setattr(workers, "THREADS", 2)
    assert workers.run_all(abs, [-1, -2]) == [1, 2]  # the parent's pool exists now
    pid = os.fork()
    if pid == 0:  # the child: the parent's threads are gone; a new pool must do the work
        signal.alarm(20)  # a child waiting on the parent's threads is killed, not left hanging
        ok = workers.run_all(abs, [-3, -4, -5]) == [3, 4, 5]
        os._exit(0 if ok else 1)
    _, status = os.waitpid(pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0
