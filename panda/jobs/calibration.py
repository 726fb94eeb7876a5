"""Trust calibration job (seed 000): validation outcomes -> document trust, freshness, source reliability.

1. Trust. Every turn records the documents its §2 used (turn_uses, rebuilt from metadata.json by
   reindex). A document's counters are recomputed from those turns: APPROVE counts as a success,
   RETRY and FAIL as a validation without success, REVISE not at all, and an approved answer the
   user later rejected (implicit feedback) as a failure. Trust = (success + 1) / (count + 2). The save
   phase already counts outcomes as turns finish; this recomputation corrects what it cannot know
   (later rejections) and what a crash between catalog and file write-back left behind. Counters
   are written to the vault (so reindex keeps them) and the catalog.
2. Freshness. Each document's content-type decay at the job's clock (time-sensitive types halve
   every 7 days, evergreen every 365) is stored in documents.freshness for analysis.
3. Source reliability. Extraction logs (source_extractions) roll up per domain into source_reliability.
Only documents some recorded turn used are recalibrated (counters imported with a document, or carried
over by session summaries from compressed messages, have no turns to recompute them from).
"""

from __future__ import annotations

from datetime import UTC, datetime

from panda.catalog.maintenance import Maintenance
from panda.documents.model import utc
from panda.jobs.common import JobReport, JobRun
from panda.jobs.rules import age_days, source_reliability
from panda.memory.scoring import freshness_factor

SKIP_KINDS = ("session_summary", "thread_summary")


def run(job: JobRun) -> JobReport:
    ctx, now = job.ctx, job.now
    report = JobReport("calibration", now, job.dry_run)
    maintenance = Maintenance(ctx.catalog)
    validations = maintenance.validation_totals()
    usage = maintenance.usage_totals()
    targets: list[tuple[str, dict[str, int]]] = []
    freshness: list[tuple[str, float]] = []
    for row in maintenance.all_documents():
        report.count("documents_checked")
        if row["kind"] not in SKIP_KINDS and row["id"] in validations:
            count, success = validations[row["id"]]
            target = {"usage_count": usage.get(row["id"], 0), "validation_count": count, "validation_success": success}
            if any(v != int(row[k] or 0) for k, v in target.items()):
                old = f"{row['validation_success']}/{row['validation_count']}"
                report.change("trust_recalibrated", f"{row['id']}: validated {old} -> {success}/{count}, "
                                                    f"usage {row['usage_count']} -> {target['usage_count']}")
                targets.append((row["id"], target))
        created = utc(row["created_at"]) if row["created_at"] else datetime.fromtimestamp(0, UTC)
        value = round(freshness_factor(age_days(created, now), list(row["content_types"] or []), ctx.policy.freshness), 4)
        if row["freshness"] is None or abs(float(row["freshness"]) - value) > 1e-4:
            freshness.append((row["id"], value))
    if freshness:
        report.count("freshness_updated", len(freshness))
    known = maintenance.source_reliability()
    rollup = []
    for row in maintenance.extraction_rollup():
        value = source_reliability(int(row["extractions"]), int(row["successes"]), float(row["mean_confidence"]))
        before = known.get(row["domain"])
        if before is None or before["extractions"] != row["extractions"] or abs(float(before["reliability"]) - value) > 1e-4:
            report.change("source_reliability", f"{row['domain']}: {row['successes']}/{row['extractions']} extractions "
                                                f"-> reliability {value:.3f}")
            rollup.append({**row, "reliability": value, "updated_at": now})
    if not job.dry_run:
        with ctx.catalog.transaction():
            for doc_id, target in targets:
                maintenance.set_counters(doc_id, target)  # queued for the vault write-back in the same transaction
            maintenance.set_freshness(freshness)
            for item in rollup:
                maintenance.upsert_reliability(item)
        ctx.memory.sync_counters()
    return report.finish(ctx)
