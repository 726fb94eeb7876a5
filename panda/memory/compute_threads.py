"""How many threads the numeric libraries may use while one search runs (pure policy, one place).

A search is a string of small numeric steps: a query's embedding (torch), BM25's postings and the
approximate index's scans (numpy, some through OpenBLAS). Left alone, OpenBLAS wakes its own thread pool
for each matrix-vector product and its threads keep spinning afterwards, on the same two cores torch
wants: measured at 1M documents in one scope, a query's embedding on two torch threads then took p95
43 ms instead of 5, and the search's p95 moved from 31 ms to 100 ms between runs. So during a search
OpenBLAS runs on the calling thread alone (its products here are a few hundred kB: a pool does not pay
for itself), and the query's embedding uses `QUERY_TORCH_THREADS` beside it.

Batch work (embedding documents, building the index) keeps every library's default.
"""

from __future__ import annotations

import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from functools import wraps
from typing import Any, TypeVar

F = TypeVar("F", bound=Callable[..., Any])

# A search embeds its query on a worker thread while its BM25 leg runs on the calling one (memory/search.py), so
# the embedding takes one core. Measured at 1M documents in one scope (stop 30, one process, three interleaved rounds
# of 120 searches): the embedding before BM25 on two threads p95 52.2 / 42.3 / 45.4 ms, before BM25 on one thread
# 34.5 / 34.7 / 37.5, overlapped on one 29.8 / 32.6 / 33.5 (overlapped on two, in an earlier pair of rounds: 52.2 / 43.8).
# Alone, one query took 4.0 ms on two threads and 5.9 on one when first measured; on a slower day 7.4-9.5 either way,
# and 5.3-7.6 on one thread through the bfloat16 trace for short queries (memory/embeddings.py, stop 31).
QUERY_TORCH_THREADS = 1

_lock = threading.Lock()
_blas: list[Any] = []
_blas_seen_at = -1  # len(sys.modules) when the libraries were last looked up


def _blas_libraries() -> list[Any]:
    """The BLAS libraries loaded in this process (threadpoolctl).

    Looked up again whenever Python modules were imported since the last look (a native BLAS arrives
    with an extension module: scipy, faiss, sklearn bring their own), else reused: a lookup costs ~2 ms.
    """
    global _blas, _blas_seen_at
    with _lock:
        if _blas_seen_at != len(sys.modules):
            from threadpoolctl import ThreadpoolController

            _blas_seen_at = len(sys.modules)
            _blas = list(ThreadpoolController().select(user_api="blas").lib_controllers)
        return _blas


@contextmanager
def single_blas() -> Iterator[None]:
    """BLAS on the calling thread only, until the block ends (nested blocks are fine)."""
    libraries = _blas_libraries()
    before = [lib.get_num_threads() for lib in libraries]
    if all(n == 1 for n in before):
        yield
        return
    for lib in libraries:
        lib.set_num_threads(1)
    try:
        yield
    finally:
        for lib, n in zip(libraries, before, strict=True):
            lib.set_num_threads(n)


def on_single_blas(function: F) -> F:
    """Run `function` inside `single_blas` (the search index's legs, whoever calls them)."""

    @wraps(function)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with single_blas():
            return function(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


@contextmanager
def torch_threads(count: int | None) -> Iterator[None]:
    """Run torch with `count` intra-op threads (None: unchanged)."""
    if count is None:
        yield
        return
    import torch

    previous = torch.get_num_threads()
    if previous == count:
        yield
        return
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
