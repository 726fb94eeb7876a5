"""Prefect flows for logged conversations: ingest a file (JSONL, LoCoMo or MemoryBank), then enrich.

Thin: each task wraps one library call. Ingest is idempotent and resumable, so retries are safe;
enrichment retries only transient errors (a vLLM engine that died), and messages it could not
enrich stay `failed` for the next run. `ingest_inbox` processes new files dropped in an inbox.
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

from prefect import flow, get_run_logger, task
from prefect.artifacts import create_markdown_artifact, create_table_artifact

from flows.turns import only_transient
from panda.conversations.sources import load_ingest_input
from panda.runtime import ingest, settings_for


@task(retries=2, retry_delay_seconds=10, retry_condition_fn=only_transient)
def ingest_and_enrich(path: str, fmt: str, home: str | None, backend: str, model: str | None,
                      enrich: bool) -> dict[str, Any]:
    messages, errors = load_ingest_input(Path(path), fmt, None)
    settings = settings_for(home, backend, model)
    report = ingest(settings, messages, enrich)
    report.malformed_lines = len(errors)
    return {**report.as_dict(), "errors": [str(e) for e in errors[:50]]}


@flow(name="panda-ingest", log_prints=True)
def ingest_file(path: str, home: str | None = None, fmt: str = "auto", backend: str = "vllm",
                model: str | None = None, enrich: bool = True) -> dict[str, Any]:
    """Ingest one conversation file; publishes counts as a table artifact and a markdown summary."""
    logger = get_run_logger()
    report = ingest_and_enrich(path, fmt, home, backend, model, enrich)
    rows = [{"measure": k, "value": v} for k, v in report.items() if isinstance(v, int | float)]
    rows += [{"measure": f"enrichment {k}", "value": v} for k, v in (report.get("enrichment") or {}).items()]
    create_table_artifact(key="panda-ingest-counts", table=rows, description=f"Ingest of {path}")
    problems = "\n".join(f"- {e}" for e in report["errors"]) or "- none"
    create_markdown_artifact(key="panda-ingest-summary", markdown=(
        f"# Ingest: `{path}`\n\n{report['new']} new messages, {report['already_known']} already known, "
        f"{report['sessions_touched']} sessions touched, {report['facts_recorded']} facts/preferences recorded.\n\n"
        f"## Malformed lines\n{problems}\n"))
    logger.info("ingested %s new messages from %s", report["new"], path)
    return report


@flow(name="panda-ingest-inbox", log_prints=True)
def ingest_inbox(inbox: str = "data/conversations", home: str | None = None, backend: str = "vllm",
                 model: str | None = None, enrich: bool = True) -> list[dict[str, Any]]:
    """Ingest every new *.jsonl / *.json in `inbox`, then move it to inbox/done/."""
    folder = Path(inbox)
    done = folder / "done"
    done.mkdir(parents=True, exist_ok=True)
    reports = []
    for path in sorted([*folder.glob("*.jsonl"), *folder.glob("*.json")]):
        reports.append(ingest_file(str(path), home=home, backend=backend, model=model, enrich=enrich))
        shutil.move(str(path), done / path.name)
    return reports


if __name__ == "__main__":
    import sys

    ingest_file(sys.argv[1])
