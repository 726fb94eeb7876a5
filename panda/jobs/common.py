"""What every maintenance job shares: its report, the run's clock and dry-run flag, the event record.

A job is `run(job: JobRun) -> JobReport`. `JobRun.now` is the job's clock (`--now`, so months can be
simulated); with `dry_run` a job computes every change and reports it without writing anything.
Each change is one line in `report.changes` and one count under its kind, so a dry run lists exactly
what a real run would do, and a second real run (idempotent) reports no changes.
"""

from __future__ import annotations

import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from panda.documents.model import iso
from panda.home import Home
from panda.llm.backend import Backend


@dataclass
class JobRun:
    ctx: Home
    now: datetime
    dry_run: bool = False
    backend_factory: Callable[[], Backend] | None = None  # called only when there is LLM work
    options: dict[str, Any] = field(default_factory=dict)
    _backend: Backend | None = None

    def backend(self) -> Backend:
        if self._backend is None:
            if self.backend_factory is None:
                raise RuntimeError("this job needs an LLM backend and none was given")
            self._backend = self.backend_factory()
        return self._backend

    def close(self) -> None:
        if self._backend is not None:
            self._backend.close()
            self._backend = None


@dataclass
class JobReport:
    job: str
    now: datetime
    dry_run: bool
    counts: Counter[str] = field(default_factory=Counter)
    changes: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    seconds: float = 0.0
    _started: float = field(default_factory=time.perf_counter)

    def change(self, kind: str, line: str) -> None:
        self.counts[kind] += 1
        self.changes.append(line)

    def count(self, kind: str, n: int = 1) -> None:
        """Count something observed that is not a change (e.g. documents checked)."""
        self.counts[kind] += n

    @property
    def changed(self) -> int:
        return len(self.changes)

    def finish(self, ctx: Home) -> JobReport:
        self.seconds = round(time.perf_counter() - self._started, 3)
        if not self.dry_run:
            ctx.catalog.record_event(f"job_{self.job}", "job", self.job,
                                     {"counts": dict(self.counts), "changes": self.changed}, self.now)
        return self

    def as_dict(self) -> dict[str, Any]:
        return {"job": self.job, "now": iso(self.now), "dry_run": self.dry_run, "counts": dict(sorted(self.counts.items())),
                "changed": self.changed, "changes": self.changes, "notes": self.notes, "seconds": self.seconds}

    def table(self) -> list[dict[str, Any]]:
        return [{"job": self.job, "kind": k, "count": v} for k, v in sorted(self.counts.items())] or \
            [{"job": self.job, "kind": "nothing to do", "count": 0}]

    def markdown(self, limit: int = 50) -> str:
        mode = "dry run: nothing was written" if self.dry_run else "applied"
        lines = [f"# Panda job `{self.job}`", "", f"- clock: {iso(self.now)} · {mode} · {self.seconds} s",
                 f"- changes: {self.changed}", ""]
        lines += [f"- {k}: {v}" for k, v in sorted(self.counts.items())]
        if self.changes:
            lines += ["", "## Changes", ""] + [f"- {c}" for c in self.changes[:limit]]
            if len(self.changes) > limit:
                lines.append(f"- … and {len(self.changes) - limit} more")
        if self.notes:
            lines += ["", "## Notes", ""] + [f"- {n}" for n in self.notes]
        return "\n".join(lines)
