"""Prefect flows for turn files: the same job as `panda run`, plus an inbox that processes new files.

Thin by design: each task wraps one library call; no SQL, prompts or scoring here. The backend (and
its vLLM engine) is created once per task run. `run_turns` retries only transient errors (a vLLM
engine that died mid-batch): finished turns are saved, so a retry resumes where the batch stopped.
`process_inbox` runs every *.jsonl in the inbox and moves finished files to inbox/done/ (a file with
malformed lines is still moved: its good lines ran and the bad ones are in the artifact);
re-running a file is idempotent, so a crash mid-file is safe.

`process_turn_file_sharded` (flows/sharded.py, imported here for the deployment's entrypoint) is the
same job sharded by user on prefect-ray's RayTaskRunner.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from prefect import Task, flow, get_run_logger, task
from prefect.client.schemas.objects import TaskRun
from prefect.states import State

from flows.sharded import process_turn_file_sharded, sharded_on_ray  # noqa: F401 - the former: a deployment entrypoint
from flows.turn_summary import publish_summary, read_turn_file
from panda.errors import TransientError
from panda.pipeline.scheduler import run_batch
from panda.runtime import make_backend, open_home, settings_for


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
    publish_summary(path, summary, errors)
    logger.info("turns by outcome: %s", summary["outcomes"])
    return summary


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
