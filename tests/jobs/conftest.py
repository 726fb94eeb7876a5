"""Helpers for the job tests: run a job with the scripted backend, ingest dated messages and turns."""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from panda.conversations.ingest import ingest_messages
from panda.conversations.messages import MessageInput
from panda.doctor import check_home
from panda.jobs.common import JobReport
from panda.jobs.registry import run_job
from panda.llm.scripted import ScriptedBackend
from panda.llm.scripted_replies import schema_responder
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns


def job(ctx: Any, name: str, now: datetime, dry_run: bool = False, check: bool = True, **options: Any) -> JobReport:
    """Run a job with the scripted backend; then `panda check` must find the home whole (check=False
    for the tests that break a home on purpose)."""
    report = run_job(name, ctx, now, dry_run=dry_run,
                     backend_factory=lambda: ScriptedBackend(responder=schema_responder), **options)
    if check and not dry_run:
        doctor = check_home(ctx)
        assert doctor.ok, f"panda check after job {name}:\n{doctor.markdown()}"
    return report


def say(ctx: Any, user: str, thread: str, when: datetime, *texts: str, gap_minutes: int = 5) -> None:
    from datetime import timedelta

    messages = [MessageInput(user, thread, when + timedelta(minutes=i * gap_minutes), "user" if i % 2 == 0 else "assistant",
                             text, user if i % 2 == 0 else "panda") for i, text in enumerate(texts)]
    ingest_messages(ctx, messages, recorded_at=when)


def turns(ctx: Any, tmp_path: Path, lines: list[str], name: str = "t.jsonl") -> Any:
    path = tmp_path / name
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    parsed, errors = read_turns(path)
    assert not errors
    return run_batch(parsed, ctx, ScriptedBackend(responder=schema_responder))


def ingest_pages(ctx: Any, tmp_path: Path, *names: str, when: datetime = datetime(2026, 3, 1, tzinfo=UTC)) -> None:
    """A crawl snapshot of these shared web pages (and the manifest) ingested into the home's web corpus."""
    from panda.research.corpus import ingest_corpus
    from tests.conftest import SHARED_DATA

    crawl = tmp_path / "crawl"
    crawl.mkdir()
    for name in (*names, "manifest.json"):
        shutil.copy(SHARED_DATA / "webpages" / name, crawl / name)
    ingest_corpus(ctx, crawl, when)
