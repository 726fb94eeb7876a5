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
from panda.runtime import process_turns, settings_for


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
def run_turns(turns: list[Any], home: str | None, backend: str, model: str | None, enrich: bool = False,
              **engine: Any) -> dict[str, Any]:
    """The batch (and with `enrich`, its messages' enrichment), as `panda run` does it. `engine`: base_url,
    role_models, embedding_model, embedding_dim (runtime.settings_for)."""
    return process_turns(settings_for(home, backend, model, **engine), turns, enrich)


@flow(name="panda-turns", log_prints=True)
def process_turn_file(path: str, home: str | None = None, backend: str = "vllm", model: str | None = None,
                      base_url: str | None = None, role_models: dict[str, str] | None = None,
                      embedding_model: str | None = None, enrich: bool = False,
                      embedding_dim: int | None = None) -> dict[str, Any]:
    """Run every turn of one JSONL file; returns the batch summary. The options are `panda run`'s: an
    OpenAI-compatible server (base_url), a model per role (role_models, e.g. {"VOICE": "/models/bigger"}),
    the embedder (and its truncation), and enrich (seed 004 enrichment of the turns' messages after the batch)."""
    logger = get_run_logger()
    turns, errors = read_turn_file(path)
    for error in errors:
        logger.warning("skipped %s", error)
    summary = run_turns(turns, home, backend, model, enrich, base_url=base_url, role_models=role_models,
                        embedding_model=embedding_model, embedding_dim=embedding_dim)
    summary["malformed_lines"] = len(errors)
    publish_summary(path, summary, errors)
    logger.info("turns by outcome: %s", summary["outcomes"])
    return summary


@flow(name="panda-turns-inbox", log_prints=True)
def process_inbox(inbox: str = "data/inbox", home: str | None = None, backend: str = "vllm",
                  model: str | None = None, enrich: bool = True) -> list[dict[str, Any]]:
    """Process every new *.jsonl in `inbox`, then move it to inbox/done/; with `enrich` (the default, seed 004),
    enrich the turns' messages after each file's batch."""
    logger = get_run_logger()
    folder = Path(inbox)
    done = folder / "done"
    done.mkdir(parents=True, exist_ok=True)
    summaries = []
    for path in sorted(folder.glob("*.jsonl")):
        logger.info("processing %s", path)
        summaries.append(process_turn_file(str(path), home=home, backend=backend, model=model, enrich=enrich))
        shutil.move(str(path), done / path.name)
    if not summaries:
        logger.info("inbox %s is empty", folder)
    return summaries


def main(argv: list[str] | None = None) -> int:
    """`python -m flows.turns FILE` with `panda run`'s options (the same definitions and the same reading of
    them: panda/cli/options.py home_arg, engine_args, engine_options), plus --executor ray --shards N."""
    import argparse
    import json

    from panda.cli.options import engine_args, engine_options, home_arg
    from panda.errors import PandaError

    parser = argparse.ArgumentParser(prog="python -m flows.turns", description=process_turn_file.__doc__)
    parser.add_argument("file", nargs="?", default="data/samples/turns.jsonl")
    home_arg(parser)
    engine_args(parser)
    parser.add_argument("--enrich", action="store_true", help="after the batch, enrich its turns' messages (seed 004)")
    parser.add_argument("--json", action="store_true", help="print the summary as JSON")
    parser.add_argument("--executor", choices=["ray"], help="shard by user on Ray (prefect-ray's RayTaskRunner)")
    parser.add_argument("--shards", type=int, default=2, help="number of user shards with --executor ray")
    parser.add_argument("--ray-address", help="join this Ray cluster instead of starting a local runtime")
    args = parser.parse_args(argv)
    try:
        options = engine_options(args)
    except PandaError as exc:
        parser.error(str(exc))
    options["backend"] = options["backend"] or "vllm"
    if args.executor == "ray":
        summary = sharded_on_ray(args.file, shards=args.shards, ray_address=args.ray_address, enrich=args.enrich,
                                 **options)
    else:
        summary = process_turn_file(args.file, enrich=args.enrich, **options)
    if args.json:
        print(json.dumps(summary, indent=2, default=str))
    return 1 if summary["errors"] or summary["malformed_lines"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
