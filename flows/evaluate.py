"""Prefect flow for `panda eval`: one evaluation run, stored in the catalog, with a scorecard artifact.

Thin: the run is one library call (panda.evaluation.runner.run_eval); this module only builds the
backend, publishes the scorecard (markdown) and the per-category table, and returns the metrics.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from flows.turns import only_transient
from panda.evaluation.runner import run_eval
from panda.runtime import make_backend, open_home, settings_for


def scorecard(metrics: dict[str, Any]) -> str:
    """Markdown scorecard of one run (every headline metric, then per-category tables)."""
    ks = sorted(int(k.split("@")[1]) for k in metrics if k.startswith("recall@"))
    lines = [f"# Evaluation `{metrics['run_id']}`", "",
             f"{metrics['dataset']} · {metrics['mode']} · {metrics['items']} questions · {metrics['seconds']} s", "",
             "| metric | value |", "|---|---|"]
    for key in [f"recall@{k}" for k in ks] + ["f1", "exact_match", "abstention_accuracy", "false_abstention_rate",
                                                "context_tokens_mean"]:
        lines.append(f"| {key} | {metrics.get(key) if metrics.get(key) is not None else '-'} |")
    lines += ["", "| category | " + " | ".join(f"recall@{k}" for k in ks) + " | F1 |",
              "|---|" + "---|" * (len(ks) + 1)]
    for category, recall in metrics["recall_by_category"].items():
        f1 = metrics["f1_by_category"].get(category)
        cells = [str(recall.get(str(k)) if recall.get(str(k)) is not None else "-") for k in ks]
        lines.append(f"| {category} | " + " | ".join(cells) + f" | {f1 if f1 is not None else '-'} |")
    if metrics.get("latency_ms_by_phase"):
        lines += ["", "LLM latency by phase (ms): " + ", ".join(f"{p} {v}" for p, v in metrics["latency_ms_by_phase"].items())]
    return "\n".join(lines)


@task(retries=1, retry_delay_seconds=10, retry_condition_fn=only_transient)
def evaluate_task(dataset: str, path: str, ks: list[int], retrieval_only: bool, home: str | None, backend: str,
                  model: str | None, only: list[str] | None, limit: int | None) -> dict[str, Any]:
    settings = settings_for(home, backend, model)
    llm = None if retrieval_only else make_backend(settings)
    try:
        with open_home(settings, backend=llm) as results:
            run = run_eval(dataset, Path(path), ks=ks, retrieval_only=retrieval_only, settings=settings, backend=llm,
                           only=only, limit=limit, results_catalog=results.catalog)
    finally:
        if llm is not None:
            llm.close()
    return dict(run["metrics"])


@flow(name="panda-evaluate", log_prints=True)
def evaluate(dataset: str, path: str, ks: list[int] | None = None, retrieval_only: bool = False,
             home: str | None = None, backend: str = "vllm", model: str | None = None,
             only: list[str] | None = None, limit: int | None = None) -> dict[str, Any]:
    metrics = evaluate_task(dataset, path, ks or [1, 5, 10, 25], retrieval_only, home, backend, model, only, limit)
    create_markdown_artifact(key="panda-eval-scorecard", markdown=scorecard(metrics))
    create_table_artifact(key="panda-eval-by-category", table=[
        {"category": c, **{f"recall@{k}": v for k, v in r.items()}, "f1": metrics["f1_by_category"].get(c)}
        for c, r in metrics["recall_by_category"].items()])
    get_run_logger().info("evaluation %s: %s", metrics["run_id"], {k: v for k, v in metrics.items() if "@" in k})
    return metrics


if __name__ == "__main__":
    import sys

    evaluate(sys.argv[1], sys.argv[2], retrieval_only="--retrieval-only" in sys.argv)
