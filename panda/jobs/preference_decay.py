"""Preference decay job (seed 003): preferences do not expire, their confidence decays.

Confidence is 0.9 while a preference is recent, 0.7 from 30 days and 0.5 from 90 days after it was
last confirmed (learned, or stated again: facts.resolve moves `confirmed_at`). Current entries of
each users/{id}/preferences.md are set to their tier (file first, then the catalog documents, whose
quality is the confidence); superseded entries in the History section are left as they were.

The same pass drops what an older Panda extracted as a like or dislike but names nothing liked ("I love
this quote" stored `likes: this quote`; rules.names_no_liked_thing): such a line is removed from
preferences.md (the change log keeps its diff) and from the catalog, so it no longer leads a search. The
catalog row goes first: a run killed in between leaves the line in the file, and the next run drops it
again. Lines written by hand (no source) are never dropped. This runs even with decay disabled.
"""

from __future__ import annotations

from panda.documents.vault import entry_document
from panda.jobs.common import JobReport, JobRun
from panda.jobs.rules import names_no_liked_thing, preference_confidence


def run(job: JobRun) -> JobReport:
    ctx, now = job.ctx, job.now
    report = JobReport("preference_decay", now, job.dry_run)
    policy = ctx.policy.expiration
    if not policy.preference_decay:
        report.notes.append("preference decay is disabled (policy expiration.preference_decay)")
    users = sorted(p.parent.name for p in ctx.vault.home.glob("users/*/preferences.md"))
    for user_id in users:
        memory = ctx.vault.memory_file(user_id, "preference")
        changed, dropped = [], []
        for entry in memory.entries:
            report.count("preferences_checked")
            if entry.invalid_at is not None:
                continue
            if names_no_liked_thing(entry.key, entry.value, entry.source):
                report.change("dropped_no_liked_thing", f"{user_id}/{entry.id} ({entry.text[:60]!r}, from "
                                                        f"{entry.source}): names nothing liked")
                dropped.append(entry)
                continue
            confirmed = entry.last_confirmed
            if not policy.preference_decay or confirmed is None or confirmed > now:
                continue
            target = preference_confidence(confirmed, now, policy)
            if abs(entry.confidence - target) < 1e-9:
                continue
            report.change(f"confidence_{target:.1f}", f"{user_id}/{entry.id} ({entry.key or ''} {entry.value[:40]!r}): "
                                                     f"{entry.confidence:.2f} -> {target:.2f}, last confirmed {confirmed.date()}")
            entry.confidence = target
            changed.append(entry)
        if (changed or dropped) and not job.dry_run:
            for entry in dropped:
                ctx.catalog.delete_document(entry.id)
            gone = {e.id for e in dropped}
            memory.entries = [e for e in memory.entries if e.id not in gone]
            rel = ctx.vault.write_memory_file(memory, now, "job preference_decay", ctx.policy.write.log_changes)
            if changed:
                ctx.memory.index([entry_document(e, "preference", user_id, rel) for e in changed])
    return report.finish(ctx)
