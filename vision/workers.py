"""A small thread pool shared by the per-box stages of ``vision.pipeline.detect``.

OpenCV, NumPy and onnxruntime release the GIL for most of the work on one box (the tile
verifier's crops and network, the pip reader's warps, masks and contours), so the boxes of one
photo can be handled on both cores of a small machine at once.

Public API:

- :data:`THREADS`: threads of the pool (1: everything runs in the caller's thread).
- :func:`run_all` ``(fn, items) -> list``: ``[fn(x) for x in items]`` on the pool.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from typing import TypeVar

_T = TypeVar("_T")
_R = TypeVar("_R")

#: Threads of the shared pool (the machine's 2 cores; docs/vision.md, "Speed"); 1 turns it off.
THREADS = 2
_POOL: dict[tuple[int, int], ThreadPoolExecutor] = {}
_LOCK = threading.Lock()


def run_all(fn: Callable[[_T], _R], items: list[_T]) -> list[_R]:
    """``[fn(x) for x in items]``, run on the :data:`THREADS` threads of a pool shared by the
    whole process (so several requests at once still use at most that many), in the caller's
    thread when there is one item or :data:`THREADS` is 1. A process started by ``fork`` gets
    a pool of its own (the parent's threads do not exist in it).

    Args:
        fn: a function of one item; it must not itself call :func:`run_all`.
        items: the items.
    Returns:
        the results, in the order of ``items``.
    Raises:
        whatever ``fn`` raises (the first failing item's exception).
    """
    if THREADS <= 1 or len(items) < 2:
        return [fn(x) for x in items]
    key = (os.getpid(), THREADS)
    with _LOCK:
        pool = _POOL.get(key)
        if pool is None:
            _POOL.clear()
            pool = _POOL[key] = ThreadPoolExecutor(THREADS, thread_name_prefix="vision")
    return list(pool.map(fn, items))
