"""Aging job (seed 001): compress sessions at 90 days, archive at 365, delete at 730 when enabled.

A session's age is the age of its last message. Compression replaces the session's messages by its
LLM summary (made now, in one batch, if the summarisation job has not made one): the transcript keeps
the summary, the ids of the messages it replaced and their summed reference counts; the catalog
drops the message documents and indexes the summary with a new embedding. Archiving moves the
transcript to archive/YYYY-MM/{user}/threads/{thread}/ and marks the summary 'archived' (searchable,
ranked lower: policy retention.archived_score_factor). Deleting removes transcript, summary note and
catalog rows, and only when the policy sets retention.deletion_enabled.
Relative links into moved transcripts are repaired (jobs/link_repair.py, for every archived
transcript, so a re-run after a kill finishes it); links to deleted ones become plain text.
Each step writes the vault first, then the catalog; a final repair pass re-registers any transcript
the catalog has out of date and drops catalog sessions whose file is gone, so a killed run completes.
"""

from __future__ import annotations

import os
from pathlib import Path

from panda.catalog.conversations import Conversations
from panda.catalog.maintenance import Maintenance
from panda.conversations.ingest import catalog_session_id, catalog_thread_id, index_transcripts, transcript_rel_path
from panda.conversations.summaries import summaries_dir, write_session_note
from panda.documents.atomic import atomic_write_text
from panda.documents.transcript import SessionTranscript
from panda.jobs.common import JobReport, JobRun
from panda.jobs.link_repair import repair_links
from panda.jobs.rules import STAGE_ORDER, archive_month, session_stage
from panda.jobs.summarisation import summarise_sessions


def _transcripts(home: Path) -> list[tuple[Path, SessionTranscript]]:
    out = []
    for pattern in ("users/*/threads/*/session_*.md", "archive/*/*/threads/*/session_*.md"):
        for path in sorted(home.glob(pattern)):
            out.append((path, SessionTranscript.parse(path.read_text(encoding="utf-8"))))
    return out


def _write(job: JobRun, path: Path, transcript: SessionTranscript) -> Path:
    """Write the transcript where it belongs (moving it if its stage changed its folder)."""
    target = job.ctx.vault.layout.resolve_relative(transcript_rel_path(job.ctx, transcript))
    atomic_write_text(path, transcript.render())  # first in place: the file records where it is going
    if target != path.resolve():
        target.parent.mkdir(parents=True, exist_ok=True)
        os.replace(path, target)
    if transcript.summary:
        write_session_note(job.ctx.vault.layout, transcript, transcript_rel_path(job.ctx, transcript))
    return target


def _register(job: JobRun, transcripts: list[SessionTranscript]) -> None:
    maintenance = Maintenance(job.ctx.catalog)
    with job.ctx.catalog.transaction():
        for transcript in transcripts:
            if transcript.stage != "active":
                maintenance.drop_session_messages(catalog_session_id(transcript))
    index_transcripts(job.ctx, transcripts, changed=set(), with_summaries=True)


def archived_transcript_moves(home: Path) -> dict[str, str]:
    """{thread-folder path: archive path} of every archived transcript, for link repair."""
    moves = {}
    for path in sorted(home.glob("archive/*/*/threads/*/session_*.md")):
        rel = path.relative_to(home).as_posix()
        _, _month, user, _, thread, name = rel.split("/")
        moves[f"users/{user}/threads/{thread}/{name}"] = rel
    return moves


def _delete(job: JobRun, path: Path, transcript: SessionTranscript) -> None:
    note = summaries_dir(job.ctx.vault.layout, transcript.user_id, transcript.thread_id) / transcript.file_name
    path.unlink(missing_ok=True)
    note.unlink(missing_ok=True)
    _drop_from_catalog(job, catalog_session_id(transcript), transcript.user_id, transcript.thread_id)


def _drop_from_catalog(job: JobRun, session_id: str, user_id: str, thread: str) -> None:
    conv = Conversations(job.ctx.catalog)
    with job.ctx.catalog.transaction():
        Maintenance(job.ctx.catalog).drop_session(session_id)
        tid = catalog_thread_id(user_id, thread)
        if conv.sessions_of_thread(tid):
            conv.refresh_thread(user_id, tid, thread)
        else:
            conv.drop_thread(tid)


def run(job: JobRun) -> JobReport:
    ctx, now = job.ctx, job.now
    report = JobReport("aging", now, job.dry_run)
    retention = ctx.policy.retention
    plan: list[tuple[Path, SessionTranscript, str]] = []
    found = _transcripts(ctx.vault.home)
    for path, transcript in found:
        report.count("sessions_checked")
        last = transcript.last_time
        if last is None:
            continue
        target = session_stage(last, now, retention)
        current = transcript.stage
        if STAGE_ORDER[target] <= STAGE_ORDER[current]:
            continue
        plan.append((path, transcript, target))
        report.change(f"sessions_{target}", f"{catalog_session_id(transcript)}: {current} -> {target} "
                                            f"({transcript.message_count} messages, last {last.date()})")
    if not job.dry_run:
        # One LLM batch for every session that must be compressed and has no current summary.
        unsummarised = [t for _, t, target in plan if target != "deleted" and t.stage == "active"
                        and (not t.summary or (t.summary_generated_at or now) < (t.last_time or now))]
        asked = {id(t) for t in unsummarised}
        summarised = {id(t) for t in summarise_sessions(job, unsummarised)}
        registered: list[SessionTranscript] = []
        for path, transcript, target in plan:
            if target == "deleted":
                _delete(job, path, transcript)
                continue
            if transcript.stage == "active":
                if id(transcript) in asked and id(transcript) not in summarised:
                    report.notes.append(f"{catalog_session_id(transcript)}: summary did not parse; not compressed yet")
                    continue
                transcript.compress(transcript.summary or "", now)
            if target == "archived":
                transcript.stage = "archived"
                transcript.archived_month = archive_month(transcript.first_time or now)
            _write(job, path, transcript)
            registered.append(transcript)
        for start in range(0, len(registered), 64):
            _register(job, registered[start:start + 64])
    _repair(job, report, found, {catalog_session_id(t) for _, t, _ in plan})
    if not job.dry_run:
        deleted = {ctx.vault.layout.relative(path) for path, _, target in plan if target == "deleted"}
        changed = repair_links(ctx.vault.home, archived_transcript_moves(ctx.vault.home), removed=deleted.__contains__)
        for rel, count in changed.items():
            report.notes.append(f"{rel}: {count} link(s) repaired to follow archived or deleted sessions")
    return report.finish(ctx)


def _repair(job: JobRun, report: JobReport, found: list[tuple[Path, SessionTranscript]], handled: set[str]) -> None:
    """Bring the catalog in line with transcripts a killed run left half-done."""
    ctx = job.ctx
    sessions = {row["id"]: row for row in Maintenance(ctx.catalog).sessions()}
    stale: list[tuple[Path, SessionTranscript]] = []
    on_disk = set()
    for path, transcript in found:  # as read before this run's changes; the changed ones are `handled`
        sid = catalog_session_id(transcript)
        on_disk.add(sid)
        if sid in handled or transcript.stage == "active":
            continue
        row = sessions.get(sid)
        rel = transcript_rel_path(ctx, transcript)
        misplaced = ctx.vault.layout.relative(path) != rel
        if misplaced or row is None or row["status"] != transcript.stage or row["doc_path"] != rel:
            stale.append((path, transcript))
            report.change("sessions_repaired", f"{sid}: catalog brought in line with its {transcript.stage} transcript")
    for sid, row in sessions.items():
        if sid not in on_disk and sid not in handled:
            report.change("sessions_repaired", f"{sid}: transcript gone, catalog rows dropped")
            if not job.dry_run:
                thread = row["thread_id"].split(":", 1)[1]
                _drop_from_catalog(job, sid, row["user_id"], thread)
    if stale and not job.dry_run:
        _register(job, [_write_back(job, path, t) for path, t in stale])


def _write_back(job: JobRun, path: Path, transcript: SessionTranscript) -> SessionTranscript:
    _write(job, path, transcript)
    return transcript
