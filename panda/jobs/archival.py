"""Archival job (seed 000): turns that reach 30 days move to archive/YYYY-MM/{user}/turn_NNNNNN/.

For each complete turn folder old enough: the archival summary (query, intent, outcome, top claims
from §4, revision count; no LLM) is written into its metadata.json together with the new path, the
folder is moved in one rename, then the catalog's turn_index row is marked archived with the summary
and the turn's document points at the moved context.md — still searchable, originals still readable.
Every document of the folder (context.md, research.md) follows the move in the catalog, and the vault's
relative links are repaired both ways (jobs/link_repair.py): links inside the moved files to the
user's preferences, facts and threads, and links from other files into the moved folder.
Killed at any point, a re-run finishes the work: a folder already marked but not moved is moved, a
moved folder the catalog does not know as archived is re-registered, and the link repair (which
only touches broken links, for every archived folder) runs again. YYYY-MM is the turn's month.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from panda.catalog.maintenance import Maintenance
from panda.documents.atomic import atomic_write_json
from panda.documents.context_md import ContextDocument
from panda.documents.model import iso, parse_time
from panda.documents.paths import turn_dir_name, validate_name
from panda.documents.vault import COMPLETE_MARKER
from panda.jobs.common import JobReport, JobRun
from panda.jobs.link_repair import repair_links
from panda.jobs.rules import archive_month, turn_due_for_archive, turn_summary


def archived_dir(home: Path, meta: dict[str, Any]) -> Path:
    created = parse_time(meta["timestamp"])
    assert created is not None
    return home / "archive" / archive_month(created) / validate_name(meta["user_id"], "user_id") / turn_dir_name(
        int(meta["turn_number"]))


def active_dir_rel(meta: dict[str, Any]) -> str:
    """Where an archived turn's folder was before it moved (vault-relative)."""
    return f"users/{validate_name(meta['user_id'], 'user_id')}/turns/{turn_dir_name(int(meta['turn_number']))}"


def archived_moves(home: Path) -> dict[str, str]:
    """{old folder: new folder} of every archived turn in the vault, for link repair."""
    moves = {}
    for marker in sorted(home.glob(f"archive/*/*/turn_*/{COMPLETE_MARKER}")):
        meta = json.loads(marker.read_text(encoding="utf-8"))
        moves[active_dir_rel(meta)] = marker.parent.relative_to(home).as_posix()
    return moves


def move_folder(source: Path, target: Path) -> None:
    os.replace(source, target)


def _tool_log(context_path: Path) -> str:
    if not context_path.exists():
        return ""
    doc = ContextDocument.parse(context_path.read_text(encoding="utf-8"))
    return "\n".join(entry.body for entry in doc.sections.get("4", []))


def run(job: JobRun) -> JobReport:
    ctx, now = job.ctx, job.now
    report = JobReport("archival", now, job.dry_run)
    days = ctx.policy.retention.turn_archive_days
    maintenance = Maintenance(ctx.catalog)
    archived_now: set[str] = set()
    for marker in sorted(ctx.vault.home.glob(f"users/*/turns/turn_*/{COMPLETE_MARKER}")):
        meta = json.loads(marker.read_text(encoding="utf-8"))
        created = parse_time(meta["timestamp"])
        report.count("turns_checked")
        if created is None or not (meta.get("archived") or turn_due_for_archive(created, now, days)):
            continue
        folder = marker.parent
        target = archived_dir(ctx.vault.home, meta)
        new_path = ctx.vault.layout.relative(target.parent) + f"/{target.name}/context.md"
        report.change("turns_archived", f"{meta['turn_id']}: {ctx.vault.layout.relative(folder)} -> {new_path}")
        archived_now.add(meta["turn_id"])
        if job.dry_run:
            continue
        if not meta.get("archived"):
            summary = turn_summary(meta, _tool_log(folder / "context.md"))
            meta.update(archived=True, archived_at=iso(now), summary_json=json.dumps(summary, ensure_ascii=False),
                        doc_path=new_path)
            atomic_write_json(marker, meta)  # step 1: the folder says where it is going (crash: step 2 resumes)
        target.parent.mkdir(parents=True, exist_ok=True)
        move_folder(folder, target)  # step 2: one rename moves context.md, research.md, metadata.json together
        _register(maintenance, ctx, meta)
    # Step 3 for folders a killed run moved before the catalog knew (and after a restore from backup).
    for marker in sorted(ctx.vault.home.glob(f"archive/*/*/turn_*/{COMPLETE_MARKER}")):
        meta = json.loads(marker.read_text(encoding="utf-8"))
        row = maintenance.turn_row(meta["turn_id"])
        if row is not None and row["archived"] and row["doc_path"] == meta["doc_path"]:
            continue
        if meta["turn_id"] in archived_now:
            continue
        report.change("catalog_rows_repaired", f"{meta['turn_id']}: catalog marked archived at {meta['doc_path']}")
        if not job.dry_run:
            _register(maintenance, ctx, meta)
    if not job.dry_run:
        for rel, count in repair_links(ctx.vault.home, archived_moves(ctx.vault.home)).items():
            report.notes.append(f"{rel}: {count} link(s) repaired to follow moved turns")
    return report.finish(ctx)


def _register(maintenance: Maintenance, ctx: Any, meta: dict[str, Any]) -> None:
    if maintenance.turn_row(meta["turn_id"]) is None:
        from panda.pipeline.recovery import recover_turns

        recover_turns(ctx, [meta["user_id"]])
        return
    with ctx.catalog.transaction():
        maintenance.archive_turn(meta["turn_id"], meta["summary_json"], active_dir_rel(meta), meta["doc_path"])
