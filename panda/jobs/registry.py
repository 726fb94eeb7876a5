"""Every maintenance job by its command name, and one entry point that runs any of them.

`run_job(name, ctx, now, dry_run, backend_factory, **options)` is what `panda jobs NAME` and the
Prefect flows call. Jobs that need an LLM (aging, summarisation) build the backend only when they
have work for it, so an hourly run with nothing to summarise never starts a vLLM engine.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import Any

from panda.home import Home
from panda.jobs import aging, archival, calibration, deletion, preference_decay, promotion, shared_notes, summarisation
from panda.jobs.common import JobReport, JobRun
from panda.jobs.reindex import reindex
from panda.llm.backend import Backend


def _reindex(job: JobRun) -> JobReport:
    report = JobReport("reindex", job.now, job.dry_run)
    result = reindex(job.ctx, dry_run=job.dry_run)
    report.count("documents", result.documents)
    report.count("turns", result.turns)
    report.count("messages", result.messages)
    report.change("catalog_rebuilt" if not job.dry_run else "catalog_would_be_rebuilt",
                  f"{result.documents} documents, {result.turns} turns, {result.messages} messages from the vault")
    return report.finish(job.ctx)


JOBS: dict[str, Callable[[JobRun], JobReport]] = {
    "archival": archival.run,
    "aging": aging.run,
    "promotion": promotion.run,
    "calibration": calibration.run,
    "summarisation": summarisation.run,
    "preference-decay": preference_decay.run,
    "delete-user": deletion.run,
    "reindex": _reindex,
    "shared-notes": shared_notes.run,
}
NEEDS_LLM = ("aging", "summarisation")


def run_job(name: str, ctx: Home, now: datetime, dry_run: bool = False,
            backend_factory: Callable[[], Backend] | None = None, **options: Any) -> JobReport:
    try:
        job_fn = JOBS[name]
    except KeyError as exc:
        raise ValueError(f"unknown job {name!r}; choose one of {sorted(JOBS)}") from exc
    job = JobRun(ctx=ctx, now=now, dry_run=dry_run, backend_factory=backend_factory, options=options)
    try:
        return job_fn(job)
    finally:
        job.close()
