"""One turn file sharded by user on Ray (panda/sharding/shards.py): the flow and its shard task.

The flow's own process plans the shards and holds the home's writer lock; each shard is a task on
prefect-ray's RayTaskRunner (a local Ray runtime on 127.0.0.1, or the cluster at $PANDA_RAY_ADDRESS or
`ray_address`); the flow's process reduces. A shard that fails is retried alone (its task's retries;
Ray itself re-runs a task whose worker died); one that fails all its tries fails the flow run after
the reduce has kept the other shards' turns.

Why a module of its own: a deployment loads its entrypoint file by path (flows/turns.py becomes module
`turns`), and prefect-ray ships the flow and its tasks to Ray workers by reference to their module. A
flow defined in the entrypoint file would name a module `turns` that no worker can import; defined
here, it is `flows.sharded`, which every node with Panda installed imports.
"""

from __future__ import annotations

from typing import Any

from prefect import Task, flow, get_run_logger, task
from prefect.client.schemas.objects import TaskRun
from prefect.states import State

from flows.turn_summary import publish_summary, read_turn_file
from panda.config import Settings
from panda.errors import BackendUnavailableError, TerminalError
from panda.runtime import enrich_turns, settings_for
from panda.sharding import shards as sharding


def not_bad_input(task: Task[..., Any], task_run: TaskRun, state: State) -> bool:
    """Retry a shard after anything but bad input or config (which would fail the same way again)."""
    try:
        state.result()
    except TerminalError:
        return False
    except Exception:  # noqa: BLE001 - an engine, a worker, a disk: worth another try of this shard alone
        return True
    return False


@task(retries=2, retry_delay_seconds=5, retry_condition_fn=not_bad_input, task_run_name="shard-{spec.index}")
def run_shard(spec: sharding.ShardSpec) -> dict[str, Any]:
    return sharding.run_shard(spec)


def ray_task_runner(ray_address: str | None = None) -> Any:
    """prefect-ray's RayTaskRunner: the cluster at `ray_address` (else $PANDA_RAY_ADDRESS), or a local
    runtime bound to 127.0.0.1 started for the flow run."""
    try:
        from prefect_ray import RayTaskRunner
    except ImportError as exc:
        from panda.sharding.executors import RAY_HINT

        raise BackendUnavailableError(RAY_HINT) from exc

    address = ray_address or Settings().ray_address
    init = {"log_to_driver": False} if address else {"include_dashboard": False, "_node_ip_address": "127.0.0.1",
                                                     "log_to_driver": False}
    return RayTaskRunner(address=address, init_kwargs=init)


@flow(name="panda-turns-sharded", log_prints=True, task_runner=ray_task_runner())
def process_turn_file_sharded(path: str, home: str | None = None, backend: str = "vllm", model: str | None = None,
                              shards: int = 2, base_url: str | None = None, role_models: dict[str, str] | None = None,
                              embedding_model: str | None = None, enrich: bool = False,
                              embedding_dim: int | None = None) -> dict[str, Any]:
    """Run every turn of one JSONL file, sharded by user, each shard a task on Ray; the other options are
    `panda run`'s (flows/turns.py process_turn_file). `enrich` runs after the reduce, in the flow's process."""
    logger = get_run_logger()
    turns, errors = read_turn_file(path)
    for error in errors:
        logger.warning("skipped %s", error)
    settings = settings_for(home, backend, model, base_url, role_models, embedding_model, embedding_dim,
                            one_engine=True)
    run = sharding.start(turns, settings, shards)
    logger.info("sharded run %s: %d turns of %d users in %d shards", run.run_id, len(turns), len(run.users), len(run.specs))
    results: list[dict[str, Any] | BaseException] = [RuntimeError("not run")] * len(run.specs)
    try:
        futures = [run_shard.submit(spec) for spec in run.specs]
        for i, future in enumerate(futures):
            try:
                results[i] = future.result()
            except Exception as exc:  # noqa: BLE001 - reduce what the other shards finished
                logger.error("shard %d failed after its retries: %s", run.specs[i].index, exc)
                results[i] = exc
    finally:
        summary = sharding.finish(run, results)
    if enrich:
        summary["enrichment"] = enrich_turns(settings, turns)
    summary["malformed_lines"] = len(errors)
    publish_summary(path, summary, errors)
    logger.info("turns by outcome: %s; shards: %s", summary["outcomes"], summary["shards"])
    failed = [s for s in summary["shards"] if "failed" in s]
    if failed:  # the others' turns are kept; the flow run says it did not finish the file
        raise RuntimeError(f"{len(failed)} of {len(summary['shards'])} shards failed after their retries: "
                           + "; ".join(f"shard {s['shard']}: {s['failed'][:200]}" for s in failed))
    return summary


def sharded_on_ray(path: str, shards: int = 2, ray_address: str | None = None, **options: Any) -> dict[str, Any]:
    """The sharded flow on the Ray cluster at `ray_address` (None: $PANDA_RAY_ADDRESS, else a local runtime);
    `options`: process_turn_file_sharded's (home, backend, model, base_url, role_models, embedding_model,
    embedding_dim, enrich)."""
    flow_on_ray = process_turn_file_sharded.with_options(task_runner=ray_task_runner(ray_address))
    return flow_on_ray(path, shards=shards, **options)
