"""Where the shards of a sharded run execute (sharding.py): a Ray cluster, or this process one by one.

`RayExecutor` runs each shard as a Ray task. Without an address it starts a local Ray runtime bound to
127.0.0.1 (nothing listens beyond this machine) with as many CPUs as the machine has; with one
(`ray://host:10001` or `host:6379`, or `auto`) it joins that cluster, whose nodes must have Panda
installed and the home mounted at the same path. A task whose worker process dies (killed, out of
memory, node lost) is retried by Ray up to `max_retries` times; sharding.py says why a retried shard
still counts every turn once. An exception raised by the shard's own code is not retried: it is
reported as that shard's failure (bad input or config would fail the same way again).

`SerialExecutor` runs the shards in this process one after another: the same map and reduce without a
cluster (for debugging, and the benchmark's baseline).
"""

from __future__ import annotations

import contextlib
import logging
import time
from typing import Any

from panda.errors import BackendUnavailableError
from panda.sharding.shards import ShardSpec, run_shard

log = logging.getLogger(__name__)
RETRY_PAUSE_S = 3.0


class SerialExecutor:
    name = "this process"

    def map(self, specs: list[ShardSpec]) -> list[dict[str, Any] | BaseException]:
        out: list[dict[str, Any] | BaseException] = []
        for spec in specs:
            try:
                out.append(run_shard(spec))
            except Exception as exc:  # noqa: BLE001 - one failed shard must not hide the others
                out.append(exc)
        return out


class RayExecutor:
    def __init__(self, address: str | None = None, max_retries: int = 2, num_cpus: float = 1.0) -> None:
        self.address, self.max_retries, self.num_cpus = address, max_retries, num_cpus
        self.name = f"Ray at {address}" if address else "a local Ray runtime (127.0.0.1)"

    def _connect(self) -> bool:
        """Start or join Ray; True when this call started it (and so should stop it). On a busy machine a local
        runtime can time out while starting ("the GCS has become overloaded"): it is tried twice, then one clear
        BackendUnavailableError says what failed and what to try; no shard has run yet."""
        import ray

        if ray.is_initialized():
            return False
        for attempt in (1, 2):
            try:
                if self.address:
                    ray.init(address=self.address, log_to_driver=False)
                else:
                    # Ray starts its workers at nice 15; a shard is the command's own work, not background
                    # work: at 15 it starves beside any busy process (a 12-turn run beside two CPU-bound
                    # processes took 44 minutes, benchmarks/load_test.py). The workers run at the command's.
                    ray.init(include_dashboard=False, _node_ip_address="127.0.0.1", log_to_driver=False,
                             _system_config={"worker_niceness": 0})
                return True
            except Exception as exc:  # noqa: BLE001 - Ray raises many kinds; all mean "no cluster to run on"
                with contextlib.suppress(Exception):
                    ray.shutdown()
                reason = " ".join(str(exc).split())[:240] or type(exc).__name__
                if attempt == 2:
                    where = f"join the Ray cluster at {self.address}" if self.address else "start a local Ray runtime"
                    raise BackendUnavailableError(
                        f"could not {where}, twice ({reason}). Try fewer --shards, --executor serial, or "
                        "--ray-address of a running cluster; on a busy machine, RAY_raylet_start_wait_time_s=120 "
                        "gives Ray longer to start") from None
                log.warning("Ray did not start (%s); trying once more", reason)
                time.sleep(RETRY_PAUSE_S)
        raise AssertionError("unreachable")

    def map(self, specs: list[ShardSpec]) -> list[dict[str, Any] | BaseException]:
        import ray

        started_here = self._connect()
        try:
            task = ray.remote(num_cpus=self.num_cpus, max_retries=self.max_retries, retry_exceptions=False)(run_shard)
            refs = [task.remote(spec) for spec in specs]
            out: list[dict[str, Any] | BaseException] = []
            for spec, ref in zip(specs, refs, strict=True):
                try:
                    result = ray.get(ref)
                    log.info("shard %d: %d turns of %d users on %s (pid %s) in %.1f s", spec.index, result["turns"],
                             result["users"], result["host"], result["pid"], result["seconds"])
                    out.append(result)
                except Exception as exc:  # noqa: BLE001 - RayTaskError, WorkerCrashedError after the retries
                    log.error("shard %d failed: %s", spec.index, exc)
                    out.append(exc)
            return out
        finally:
            if started_here:
                ray.shutdown()


RAY_HINT = ("sharding on Ray needs the [ray] extra (ray, prefect-ray): pip install -e '.[ray]' (scripts/setup.sh "
            "installs it), or run with --executor serial, or without --shards")


def require_ray() -> None:
    """A clear error naming the extra when Ray is not installed (pyproject's [ray])."""
    try:
        import ray  # noqa: F401
    except ImportError as exc:
        raise BackendUnavailableError(RAY_HINT) from exc


def make_executor(name: str, address: str | None = None) -> SerialExecutor | RayExecutor:
    if name == "ray":
        require_ray()
        return RayExecutor(address)
    if name == "serial":
        return SerialExecutor()
    raise ValueError(f"unknown executor {name!r}; choose ray or serial (or leave --shards out for one process)")
