"""Prefect flows for turn files: the same job as `panda run`, plus an inbox that processes new files.

Thin by design: each task wraps one library call; no SQL, prompts or scoring here. The backend (and
its vLLM engine) is created once per task run. `run_turns` retries only transient errors (a vLLM
engine that died mid-batch): finished turns are saved, so a retry resumes where the batch stopped.
`process_inbox` runs every *.jsonl in the inbox and moves finished files to inbox/done/ (a file with
malformed lines is still moved: its good lines ran and the bad ones are in the artifact);
re-running a file is idempotent, so a crash mid-file is safe.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from prefect import Task, flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact
from prefect.client.schemas.objects import TaskRun
from prefect.states import State

from panda.errors import TransientError
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
    """`python -m flows.turns FILE [--home H] [--backend B] [--model M]`: the same options as `panda run`."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m flows.turns", description=process_turn_file.__doc__)
    parser.add_argument("file", nargs="?", default="data/samples/turns.jsonl")
    parser.add_argument("--home", help="data home (default $PANDA_HOME or data/home/)")
    parser.add_argument("--backend", default="vllm", choices=("vllm", "openai", "scripted"))
    parser.add_argument("--model", help="a profile (tiny, small, base), a local HF folder or a model name")
    args = parser.parse_args(argv)
    summary = process_turn_file(args.file, home=args.home, backend=args.backend, model=args.model)
    return 1 if summary["errors"] or summary["malformed_lines"] else 0


if __name__ == "__main__":
    raise SystemExit(main())
