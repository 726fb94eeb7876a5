"""Preference decay job (seed 003): preferences do not expire, their confidence decays.

Confidence is 0.9 while a preference is recent, 0.7 from 30 days and 0.5 from 90 days after it was
last confirmed (learned, or stated again: facts.resolve moves `confirmed_at`). Current entries of
each users/{id}/preferences.md are set to their tier (file first, then the catalog documents, whose
quality is the confidence); superseded entries in the History section are left as they were.
"""

from __future__ import annotations

from panda.documents.vault import entry_document
from panda.jobs.common import JobReport, JobRun
from panda.jobs.rules import preference_confidence


def run(job: JobRun) -> JobReport:
    ctx, now = job.ctx, job.now
    report = JobReport("preference_decay", now, job.dry_run)
    policy = ctx.policy.expiration
    if not policy.preference_decay:
        report.notes.append("preference decay is disabled (policy expiration.preference_decay)")
        return report.finish(ctx)
    users = sorted(p.parent.name for p in ctx.vault.home.glob("users/*/preferences.md"))
    for user_id in users:
        memory = ctx.vault.memory_file(user_id, "preference")
        changed = []
        for entry in memory.entries:
            report.count("preferences_checked")
            confirmed = entry.last_confirmed
            if entry.invalid_at is not None or confirmed is None or confirmed > now:
                continue
            target = preference_confidence(confirmed, now, policy)
            if abs(entry.confidence - target) < 1e-9:
                continue
            report.change(f"confidence_{target:.1f}", f"{user_id}/{entry.id} ({entry.key or ''} {entry.value[:40]!r}): "
                                                     f"{entry.confidence:.2f} -> {target:.2f}, last confirmed {confirmed.date()}")
            entry.confidence = target
            changed.append(entry)
        if changed and not job.dry_run:
            rel = ctx.vault.write_memory_file(memory, now, "job preference_decay", ctx.policy.write.log_changes)
            ctx.memory.index([entry_document(e, "preference", user_id, rel) for e in changed])
    return report.finish(ctx)
