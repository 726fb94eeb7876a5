"""A Ray runtime that will not start (a busy machine: "the GCS has become overloaded") is tried twice, then one clear
error names what failed and what to try; the run stops before any shard ran (sharding/executors.py, issue 44)."""

from __future__ import annotations

import sys
import types

import pytest

from panda.errors import BackendUnavailableError
from panda.sharding import executors
from panda.sharding.executors import RayExecutor


def _fake_ray(monkeypatch, failures: int) -> dict[str, int]:
    calls = {"init": 0, "shutdown": 0}

    def init(**kwargs):
        calls["init"] += 1
        if calls["init"] <= failures:
            raise RuntimeError("The current node timed out during startup. This could happen because some of the Ray "
                               "processes failed to startup or the GCS has become overloaded.")

    def shutdown():
        calls["shutdown"] += 1

    fake = types.SimpleNamespace(is_initialized=lambda: False, init=init, shutdown=shutdown)
    monkeypatch.setitem(sys.modules, "ray", fake)
    monkeypatch.setattr(executors, "RETRY_PAUSE_S", 0.0)
    return calls


def test_a_runtime_that_fails_once_is_started_on_the_second_try(monkeypatch):
    calls = _fake_ray(monkeypatch, failures=1)
    assert RayExecutor()._connect() is True and calls == {"init": 2, "shutdown": 1}


def test_a_runtime_that_fails_twice_is_one_clear_error(monkeypatch):
    _fake_ray(monkeypatch, failures=2)
    with pytest.raises(BackendUnavailableError, match=r"could not start a local Ray runtime, twice \(The current node "
                                                      r"timed out.*Try fewer --shards, --executor serial"):
        RayExecutor()._connect()
    _fake_ray(monkeypatch, failures=2)
    with pytest.raises(BackendUnavailableError, match="could not join the Ray cluster at ray://head:10001"):
        RayExecutor("ray://head:10001")._connect()
