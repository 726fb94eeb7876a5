"""What the turn flows share: reading a turn file (a task) and the run's Prefect artifacts.

In an importable module, so that Ray workers running a sharded flow's tasks can import them
(flows/sharded.py says why).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from panda.pipeline.turn_input import read_turns


@task
def read_turn_file(path: str) -> tuple[list[Any], list[str]]:
    turns, errors = read_turns(Path(path))
    return turns, [str(e) for e in errors]


def publish_summary(path: str, summary: dict[str, Any], errors: list[str]) -> None:
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
