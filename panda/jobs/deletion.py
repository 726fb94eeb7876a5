"""User deletion job (seed 001): explicit confirmation, backup first, then no trace of the user.

`panda jobs delete-user alice --confirm` removes everything of alice's:
- files: users/alice/, archive/*/alice/ (archived turns and transcripts), Logs/Sessions/alice/;
- global notes promoted from alice's memory (found by their one-way origin tag);
- lines of shared notes (Knowledge/, Meta/Indexes/, Logs/Changes/) that name alice or her documents;
- catalog rows: documents (with postings and embeddings), turn index and turn uses, threads,
  sessions, messages, LLM calls, retrieval operations, source extractions, and the system events
  that name her; then the database file is rewritten so deleted rows leave no bytes behind.
Before anything is removed, the files and catalog rows go into a tar.gz backup outside the home
(policy privacy.backup_dir, default '{home}.backups/' beside it). A deletion_audit row records a
one-way hash of the user id, the time, the backup path and the counts — never the user's content.
Crash-safe and idempotent: the plan is recomputed from what is still there, so a re-run finishes a
killed deletion and a run with nothing left changes nothing (and writes no audit row).
"""

from __future__ import annotations

import io
import json
import re
import shutil
import tarfile
from datetime import UTC, datetime
from pathlib import Path

import frontmatter

from panda.catalog.maintenance import Maintenance
from panda.documents.atomic import atomic_write_text
from panda.documents.paths import validate_name
from panda.errors import ConfirmationRequired
from panda.jobs.common import JobReport, JobRun
from panda.jobs.rules import origin_hash
from panda.pipeline.state import PipelineContext

SHARED_NOTE_DIRS = ("Knowledge", "Meta/Indexes", "Logs/Changes", "Context")


def backup_dir(ctx: PipelineContext) -> Path:
    configured = ctx.policy.privacy.backup_dir
    return Path(configured) if configured else ctx.vault.home.parent / f"{ctx.vault.home.name}.backups"


def _user_paths(ctx: PipelineContext, user_id: str) -> list[Path]:
    home = ctx.vault.home
    paths = [home / "users" / user_id, home / "Logs" / "Sessions" / user_id]
    paths += sorted(home.glob(f"archive/*/{user_id}"))
    return [p for p in paths if p.exists()]


def _derived_notes(ctx: PipelineContext, user_id: str) -> list[Path]:
    """Global notes promoted from this user's memory (origin tag), wherever they are in Knowledge/."""
    tag = origin_hash(user_id)
    out = []
    for path in sorted(ctx.vault.home.glob("Knowledge/**/*.md")):
        text = path.read_text(encoding="utf-8")
        if tag in text and frontmatter.loads(text).metadata.get("origin") == tag:
            out.append(path)
    return out


def _needles(user_id: str, doc_ids: list[str]) -> list[str]:
    return [f"users/{user_id}/", f"/{user_id}/", f"{user_id}:", *doc_ids]


def _lines_to_scrub(ctx: PipelineContext, user_id: str, doc_ids: list[str], skip: set[Path]) -> dict[Path, list[int]]:
    """Line numbers of shared notes that name the user (as a word) or one of their documents."""
    word = re.compile(rf"(?<![\w-]){re.escape(user_id)}(?![\w-])")
    needles = _needles(user_id, doc_ids)
    out: dict[Path, list[int]] = {}
    for rel in SHARED_NOTE_DIRS:
        for path in sorted((ctx.vault.home / rel).glob("**/*")):
            if not path.is_file() or path in skip or path.suffix not in (".md", ".json", ".jsonl", ".csv", ".txt"):
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            hits = [i for i, line in enumerate(lines) if word.search(line) or any(n in line for n in needles)]
            if hits:
                out[path] = hits
    return out


def _backup(ctx: PipelineContext, user_id: str, files: list[Path], scrubbed: list[Path], rows: dict[str, list]) -> Path:
    folder = backup_dir(ctx)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target = folder / f"{origin_hash(user_id)}-{stamp}.tar.gz"  # named by the audit row's hash, not the user id
    with tarfile.open(target, "w:gz") as tar:
        for path in [*files, *scrubbed]:
            tar.add(path, arcname=ctx.vault.layout.relative(path) if path.exists() else path.name)
        data = json.dumps(rows, default=str, ensure_ascii=False, indent=1).encode()
        info = tarfile.TarInfo("catalog_rows.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return target


def run(job: JobRun) -> JobReport:
    ctx, now = job.ctx, job.now
    user_id = validate_name(str(job.options.get("user") or ""), "user_id")
    report = JobReport("delete_user", now, job.dry_run)
    if not job.dry_run and not job.options.get("confirm"):
        raise ConfirmationRequired(f"deleting every trace of user {user_id!r} cannot be undone: "
                                   "pass --confirm (or --dry-run to see what would go)")
    maintenance = Maintenance(ctx.catalog)
    paths = _user_paths(ctx, user_id)
    derived = _derived_notes(ctx, user_id)
    rows = maintenance.user_row_counts(user_id)
    export = maintenance.export_user(user_id)  # the backup's rows, and the ids to look for elsewhere
    doc_ids = [d["id"] for d in export["documents"]]
    derived_ids = [str(frontmatter.loads(p.read_text(encoding="utf-8")).metadata.get("id")) for p in derived]
    scrub = _lines_to_scrub(ctx, user_id, doc_ids + derived_ids, set(derived))
    events = maintenance.events_mentioning([f'"{user_id}"', f"{user_id}:", *doc_ids])
    for path in paths:
        count = sum(1 for p in path.rglob("*") if p.is_file())
        report.change("folders_removed", f"{ctx.vault.layout.relative(path)}/ ({count} files)")
    for path in derived:
        report.change("derived_notes_removed", f"{ctx.vault.layout.relative(path)} (promoted from this user)")
    for path, lines in scrub.items():
        report.change("shared_notes_scrubbed", f"{ctx.vault.layout.relative(path)}: {len(lines)} line(s)")
    for table, n in sorted(rows.items()):
        if n:
            report.change(f"rows_{table}", f"catalog {table}: {n} row(s)")
    if derived_ids:
        report.change("rows_derived_documents", f"catalog documents: {len(derived_ids)} derived note(s)")
    if events:
        report.change("rows_system_events", f"catalog system_events: {len(events)} row(s)")
    if job.dry_run or not report.changes:
        return report.finish(ctx)
    export["derived_documents"] = [ctx.catalog.get_document(i) or {"id": i} for i in derived_ids]
    target = _backup(ctx, user_id, paths + derived, list(scrub), export)
    report.notes.append(f"backup written to {target}")
    with ctx.catalog.transaction():
        maintenance.delete_user_rows(user_id, derived_ids, events)
    for path in paths:
        shutil.rmtree(path)
    for path in derived:
        path.unlink(missing_ok=True)
    for path, lines in scrub.items():
        kept = [line for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if i not in set(lines)]
        atomic_write_text(path, "\n".join(kept) + "\n")
    with ctx.catalog.transaction():
        maintenance.record_deletion(origin_hash(user_id), now, str(target), dict(report.counts))
    ctx.catalog.compact()
    return report.finish(ctx)
