"""Prefect flows for the maintenance jobs: one thin flow per job, the same code as `panda jobs NAME`.

Each flow runs its job as one task (the library call panda.jobs.registry.run_job), then publishes a
table artifact of counts and a markdown summary under stable keys, panda-job-{name}-counts and
panda-job-{name}-summary, so the Prefect UI shows each job's latest result in one place. `now`
(ISO 8601) defaults to the clock; `dry_run` reports without writing. Aging and summarisation build
their LLM backend only when there is work (the deployments keep concurrency_limit 1 for the model).
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from flows.turns import only_transient
from panda.documents.model import parse_time
from panda.jobs.registry import run_job
from panda.runtime import make_backend, open_home, settings_for


@task(retries=1, retry_delay_seconds=30, retry_condition_fn=only_transient)
def run_job_task(name: str, home: str | None, now: str | None, dry_run: bool, backend: str, model: str | None,
                 options: dict[str, Any]) -> dict[str, Any]:
    settings = settings_for(home, backend, model)
    with open_home(settings) as ctx:
        report = run_job(name, ctx, parse_time(now) or datetime.now(UTC), dry_run=dry_run,
                         backend_factory=lambda: make_backend(settings), **options)
    return {**report.as_dict(), "table": report.table(), "markdown": report.markdown()}


def _job(name: str, home: str | None, now: str | None, dry_run: bool, backend: str = "vllm", model: str | None = None,
         **options: Any) -> dict[str, Any]:
    result = run_job_task(name, home, now, dry_run, backend, model, options)
    key = name.replace("_", "-")
    create_table_artifact(key=f"panda-job-{key}-counts", table=result.pop("table"),
                          description=f"Panda {name}: counts ({'dry run' if dry_run else 'applied'})")
    create_markdown_artifact(key=f"panda-job-{key}-summary", markdown=result.pop("markdown"))
    get_run_logger().info("%s: %d change(s) %s", name, result["changed"], result["counts"])
    return result


@flow(name="panda-job-archival")
def archival(home: str | None = None, now: str | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Turns that reached 30 days -> archive/YYYY-MM/{user}/, summaries kept in the catalog."""
    return _job("archival", home, now, dry_run)


@flow(name="panda-job-aging")
def aging(home: str | None = None, now: str | None = None, dry_run: bool = False, backend: str = "vllm",
          model: str | None = None) -> dict[str, Any]:
    """Message sessions: compress at 90 days (LLM summary), archive at 365, delete at 730 when enabled."""
    return _job("aging", home, now, dry_run, backend, model)


@flow(name="panda-job-promotion")
def promotion(home: str | None = None, now: str | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Scope promotion/demotion (new/user/global) and expiry of NEW documents past their TTL."""
    return _job("promotion", home, now, dry_run)


@flow(name="panda-job-calibration")
def calibration(home: str | None = None, now: str | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Trust from validation outcomes, content-type freshness, source reliability per domain."""
    return _job("calibration", home, now, dry_run)


@flow(name="panda-job-summarisation")
def summarisation(home: str | None = None, now: str | None = None, dry_run: bool = False, backend: str = "vllm",
                  model: str | None = None) -> dict[str, Any]:
    """Session summaries when sessions end, thread summaries from them."""
    return _job("summarisation", home, now, dry_run, backend, model)


@flow(name="panda-job-preference-decay")
def preference_decay(home: str | None = None, now: str | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Preference confidence 0.9 / 0.7 after 30 days / 0.5 after 90 days unless re-confirmed."""
    return _job("preference-decay", home, now, dry_run)


@flow(name="panda-job-delete-user")
def delete_user(user: str, confirm: bool = False, home: str | None = None, now: str | None = None,
                dry_run: bool = False) -> dict[str, Any]:
    """Every trace of one user, after a backup; needs confirm=True (run on demand only)."""
    return _job("delete-user", home, now, dry_run, user=user, confirm=confirm)


@flow(name="panda-job-reindex")
def reindex(home: str | None = None, now: str | None = None, dry_run: bool = False) -> dict[str, Any]:
    """Rebuild the catalog from the vault."""
    return _job("reindex", home, now, dry_run)


FLOWS: dict[str, Callable[..., dict[str, Any]]] = {
    "archival": archival, "aging": aging, "promotion": promotion, "calibration": calibration,
    "summarisation": summarisation, "preference-decay": preference_decay, "delete-user": delete_user,
    "reindex": reindex}

if __name__ == "__main__":
    import sys

    FLOWS[sys.argv[1]](**dict(arg.split("=", 1) for arg in sys.argv[2:]))  # e.g. python -m flows.jobs archival now=...
