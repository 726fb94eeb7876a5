"""Prefect flows for turn files: the same job as `panda run`, plus an inbox that processes new files.

Thin by design: each task wraps one library call; no SQL, prompts or scoring here. The backend (and
its vLLM engine) is created once per task run. `run_turns` retries only transient errors (a vLLM
engine that died mid-batch): finished turns are saved, so a retry resumes where the batch stopped.
`process_inbox` runs every *.jsonl in the inbox and moves finished files to inbox/done/ (a file with
malformed lines is still moved: its good lines ran and the bad ones are in the artifact);
re-running a file is idempotent, so a crash mid-file is safe.

`process_turn_file_sharded` is the same job sharded by user (panda/pipeline/sharding.py): the flow's own
process plans the shards and holds the home's writer lock, each shard is a task on prefect-ray's
RayTaskRunner (a local Ray runtime on 127.0.0.1, or `ray_address`), and the flow's process reduces. A
shard that fails is retried alone (its task's retries; Ray itself re-runs a task whose worker died).
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path
from typing import Any

from prefect import Task, flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.client.schemas.objects import TaskRun
from prefect.states import State

from panda.errors import TerminalError, TransientError
from panda.pipeline import sharding
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from panda.runtime import make_backend, open_home, settings_for


@task
def read_turn_file(path: str) -> tuple[list[Any], list[str]]:
    turns, errors = read_turns(Path(path))
    return turns, [str(e) for e in errors]


def only_transient(task: Task[..., Any], task_run: TaskRun, state: State) -> bool:
    """Retry when the failure is transient (engine crash, server hiccup), never for bad input or config."""
    try:
        state.result()
    except TransientError:
        return True
    except Exception:  # noqa: BLE001 - anything else is terminal
        return False
    return False


@task(retries=2, retry_delay_seconds=10, retry_condition_fn=only_transient)
def run_turns(turns: list[Any], home: str | None, backend: str, model: str | None) -> dict[str, Any]:
    settings = settings_for(home, backend, model)
    llm = make_backend(settings)
    ctx = open_home(settings, backend=llm)
    try:
        return run_batch(turns, ctx, llm, settings.max_active_users).summary()
    finally:
        ctx.catalog.close()
        llm.close()


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


def _publish(path: str, summary: dict[str, Any], errors: list[str]) -> None:
    rows = [{"outcome": k, "turns": v} for k, v in sorted(summary["outcomes"].items())]
    rows += [{"outcome": "skipped (already done)", "turns": summary["skipped"]},
             {"outcome": "malformed lines", "turns": len(errors)}]
    create_table_artifact(key="panda-turns-outcomes", table=rows, description=f"Turn outcomes for {path}")
    lines = [f"# Turn batch: `{path}`", "", f"- LLM requests: {summary['llm_requests']} in "
             f"{summary['llm_batches']} batches (largest {summary['largest_batch']})",
             f"- completion tokens: {summary['completion_tokens']}", f"- recovered turns: {summary['recovered']}"]
    answers = summary["answers"]
    if answers["with_expected"]:
        lines += [f"- answers: {answers['correct']} of {answers['with_expected']} correct "
                  f"(every word of the expected answer in the reply), mean token F1 {answers['mean_f1']}"]
    for shard in summary.get("shards", []):
        where = (f"failed: {shard['failed']}" if "failed" in shard
                 else f"on {shard['host']} (pid {shard['pid']}), {shard['seconds']} s")
        lines.append(f"- shard {shard['shard']}: {shard['turns']} turns {where}")
    lines += ["", "## Problems"] + [f"- {e}" for e in [*errors, *summary["errors"]]] if errors or summary["errors"] else []
    create_markdown_artifact(key="panda-turns-summary", markdown="\n".join(lines))


@flow(name="panda-turns", log_prints=True)
def process_turn_file(path: str, home: str | None = None, backend: str = "vllm",
                      model: str | None = None) -> dict[str, Any]:
    """Run every turn of one JSONL file; returns the batch summary."""
    logger = get_run_logger()
    turns, errors = read_turn_file(path)
    for error in errors:
        logger.warning("skipped %s", error)
    summary = run_turns(turns, home, backend, model)
    summary["malformed_lines"] = len(errors)
    _publish(path, summary, errors)
    logger.info("turns by outcome: %s", summary["outcomes"])
    return summary


def ray_task_runner(ray_address: str | None = None) -> Any:
    """prefect-ray's RayTaskRunner: the cluster at `ray_address` (else $PANDA_RAY_ADDRESS), or a local
    runtime bound to 127.0.0.1 started for the flow run."""
    from prefect_ray import RayTaskRunner

    address = ray_address or os.environ.get("PANDA_RAY_ADDRESS") or None
    init = {"log_to_driver": False} if address else {"include_dashboard": False, "_node_ip_address": "127.0.0.1",
                                                     "log_to_driver": False}
    return RayTaskRunner(address=address, init_kwargs=init)


@flow(name="panda-turns-sharded", log_prints=True, task_runner=ray_task_runner())
def process_turn_file_sharded(path: str, home: str | None = None, backend: str = "vllm", model: str | None = None,
                              shards: int = 2) -> dict[str, Any]:
    """Run every turn of one JSONL file, sharded by user, each shard a task on Ray."""
    logger = get_run_logger()
    turns, errors = read_turn_file(path)
    for error in errors:
        logger.warning("skipped %s", error)
    run = sharding.start(turns, settings_for(home, backend, model), shards)
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
    summary["malformed_lines"] = len(errors)
    _publish(path, summary, errors)
    logger.info("turns by outcome: %s; shards: %s", summary["outcomes"], summary["shards"])
    return summary


def sharded_on_ray(path: str, home: str | None = None, backend: str = "vllm", model: str | None = None,
                   shards: int = 2, ray_address: str | None = None) -> dict[str, Any]:
    """The sharded flow on the Ray cluster at `ray_address` (None: $PANDA_RAY_ADDRESS, else a local runtime)."""
    flow_on_ray = process_turn_file_sharded.with_options(task_runner=ray_task_runner(ray_address))
    return flow_on_ray(path, home=home, backend=backend, model=model, shards=shards)


@flow(name="panda-turns-inbox", log_prints=True)
def process_inbox(inbox: str = "data/inbox", home: str | None = None, backend: str = "vllm",
                  model: str | None = None) -> list[dict[str, Any]]:
    """Process every new *.jsonl in `inbox`, then move it to inbox/done/."""
    logger = get_run_logger()
    folder = Path(inbox)
    done = folder / "done"
    done.mkdir(parents=True, exist_ok=True)
    summaries = []
    for path in sorted(folder.glob("*.jsonl")):
        logger.info("processing %s", path)
        summaries.append(process_turn_file(str(path), home=home, backend=backend, model=model))
        shutil.move(str(path), done / path.name)
    if not summaries:
        logger.info("inbox %s is empty", folder)
    return summaries


def main(argv: list[str] | None = None) -> int:
    """`python -m flows.turns FILE [--home H] [--backend B] [--model M] [--executor ray --shards N]`: as `panda run`."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m flows.turns", description=process_turn_file.__doc__)
    parser.add_argument("file", nargs="?", default="data/samples/turns.jsonl")
    parser.add_argument("--home", help="data home (default $PANDA_HOME or data/home/)")
    parser.add_argument("--backend", default="vllm", choices=("vllm", "openai", "scripted"))
    parser.add_argument("--model", help="a profile (tiny, small, base), a local HF folder or a model name")
    parser.add_argument("--executor", choices=["ray"], help="shard by user on Ray (prefect-ray's RayTaskRunner)")
    parser.add_argument("--shards", type=int, default=2, help="number of user shards with --executor ray")
    parser.add_argument("--ray-address", help="join this Ray cluster instead of starting a local runtime")
    args = parser.parse_args(argv)
    if args.executor == "ray":
        summary = sharded_on_ray(args.file, home=args.home, backend=args.backend, model=args.model, shards=args.shards,
                                 ray_address=args.ray_address)
    else:
        summary = process_turn_file(args.file, home=args.home, backend=args.backend, model=args.model)
    return 1 if summary["errors"] or summary["malformed_lines"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
