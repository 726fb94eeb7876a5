"""400 days of memory, every job run at weekly steps on a simulated clock (--now).

Inputs are placed so that, at some weekly step, items sit one hour under and one hour over each
threshold: turns at 30 days (archival), sessions at 90 and 365 days (aging), preferences at 30 and
90 days (decay), NEW documents at their 24 h TTL and at the 1 h promotion age. After every step the
whole home is checked against the seed thresholds exactly; every tenth step all jobs run a second
time and must change nothing, and `panda check` must find the home whole (then and at the end).
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from datetime import UTC, datetime, timedelta

from panda.catalog.maintenance import Maintenance
from panda.config import ExpirationPolicy, RetentionPolicy, ScopePolicy
from panda.doctor import check_home
from panda.documents.model import utc
from panda.jobs.rules import next_scope, preference_confidence, session_stage, trust
from tests.jobs.conftest import job, say, turns

S0 = datetime(2025, 1, 6, tzinfo=UTC)  # a Monday: the weekly job runs at midnight
H, D, W = timedelta(hours=1), timedelta(days=1), timedelta(days=7)
STEPS = 58  # 406 days
JOBS = ("summarisation", "aging", "archival", "promotion", "calibration", "preference-decay")
HOBBIES = ("hiking", "chess", "pottery", "sailing", "baking", "birdwatching", "cycling", "origami", "karaoke")


def _turn_lines(k: int) -> list[str]:
    lines = []
    for user, sign in (("alice", 1), ("bob", -1)):  # 5 d +- 1 h after a step = 30 d -+ 1 h before a later one
        when = S0 + k * W + 5 * D + sign * H
        lines.append(json.dumps({"user_id": user, "session_id": f"{user}-t", "turn_id": f"{user}-{k}",
                                 "timestamp": when.isoformat(), "query": f"I love {HOBBIES[k % 9]}. Week {k} notes."}))
    return lines


def _inputs(ctx, tmp_path, k: int) -> None:
    """Everything that happens during week k (between step k and step k+1)."""
    turns(ctx, tmp_path, _turn_lines(k), f"week{k}.jsonl")
    for user, sign in (("alice", 1), ("bob", -1)):
        token = hashlib.sha1(f"{user}{k}".encode()).hexdigest()[:10]  # distinct: never a near-duplicate re-confirmation
        say(ctx, user, "diary", S0 + k * W + D + sign * H, f"I enjoy collecting token {token}.")  # 90 d boundary
        if k < 6:
            say(ctx, user, "journal", S0 + k * W + 6 * D + sign * H, f"Journal entry {k} about the garden.")  # 365 d
        for label, created, usage in (("expiring", -25 * H, 0), ("fresh", -23 * H, 0),  # 24 h TTL boundary
                                      ("young", -59 * timedelta(minutes=1), 3), ("grown", -61 * timedelta(minutes=1), 3)):
            doc = ctx.memory.prepare_save(f"{user} {label} memory of week {k}", doc_type="memory", topic="general",
                                          keywords=[], user_id=user, scope="new", now=S0 + (k + 1) * W + created)
            doc.usage_count = usage
            ctx.memory.save(doc)


def _check(ctx, now: datetime, seen: Counter) -> None:
    retention, scope_policy, expiration = RetentionPolicy(), ScopePolicy(), ExpirationPolicy()
    for row in ctx.catalog.turns():
        age = now - utc(row["created_at"])
        due = age >= 30 * D
        assert bool(row["archived"]) == due, (row["id"], age)
        assert row["doc_path"].startswith("archive/" if due else "users/")
        seen["turn_30d_under" if 30 * D - 2 * H <= age < 30 * D else "turn_30d_over" if 30 * D <= age <= 30 * D + 2 * H
             else "other"] += 1
    for transcript in ctx.vault.iter_transcripts():
        last = transcript.last_time
        expected = session_stage(last, now, retention)
        assert transcript.stage == ("active" if expected == "fresh" else expected), (transcript.session_id, now - last)
        for days in (90, 365):
            age = now - last
            if days * D - 2 * H <= age < days * D:
                seen[f"session_{days}d_under"] += 1
            elif days * D <= age <= days * D + 2 * H:
                seen[f"session_{days}d_over"] += 1
    for user in ("alice", "bob"):
        for entry in ctx.vault.memory_file(user, "preference").entries:
            if entry.invalid_at is None and entry.last_confirmed <= now:
                assert entry.confidence == preference_confidence(entry.last_confirmed, now, expiration), entry
                age = now - entry.last_confirmed
                for days in (30, 90):
                    if days * D - 2 * H <= age < days * D:
                        seen[f"preference_{days}d_under"] += 1
                    elif days * D <= age <= days * D + 2 * H:
                        seen[f"preference_{days}d_over"] += 1
    for row in Maintenance(ctx.catalog).standalone_documents():
        created = utc(row["created_at"])
        assert not (row["scope"] == "new" and row["expires_at"] is not None and utc(row["expires_at"]) <= now), row["id"]
        t = trust(row["validation_success"], row["validation_count"])
        assert next_scope(row["scope"], t, row["usage_count"], now - created, scope_policy) == row["scope"]
        if now - created == 23 * H:
            seen["new_ttl_under"] += 1
        if now - created == 59 * timedelta(minutes=1):
            assert row["scope"] == "new"
            seen["promotion_1h_under"] += 1
        if now - created == 61 * timedelta(minutes=1):
            assert row["scope"] == "user"
            seen["promotion_1h_over"] += 1


def _doctor(ctx, step: int) -> None:
    """`panda check`: links, frontmatter, catalog == reindex, no orphans, no private data in global files."""
    report = check_home(ctx)
    assert report.ok, f"step {step}:\n{report.markdown()}"


def test_four_hundred_days_of_weekly_jobs(ctx, tmp_path):
    seen: Counter = Counter()
    expired = 0
    for step in range(1, STEPS + 1):
        _inputs(ctx, tmp_path, step - 1)
        now = S0 + step * W
        reports = {name: job(ctx, name, now, check=False) for name in JOBS}
        expired += reports["promotion"].counts["new_expired"]
        _check(ctx, now, seen)
        if step % 10 == 0:
            again = {name: job(ctx, name, now, check=False).changed for name in JOBS}
            assert again == dict.fromkeys(JOBS, 0), again
            _doctor(ctx, step)
    _doctor(ctx, STEPS)
    archive = ctx.vault.home / "archive"
    assert len(list(archive.glob("*/alice/turn_*"))) == STEPS - 5  # 30 d - 1 h: the last five weeks are active
    assert len(list(archive.glob("*/bob/turn_*"))) == STEPS - 4  # 30 d + 1 h: one more week
    # Each week: the 25-hour-old NEW note of each user expires at once, the 23-hour-old one a step later.
    assert expired == 2 * STEPS + 2 * (STEPS - 1)
    for key in ("turn_30d_under", "turn_30d_over", "session_90d_under", "session_90d_over", "session_365d_under",
                "session_365d_over", "preference_30d_under", "preference_30d_over", "preference_90d_under",
                "preference_90d_over", "new_ttl_under", "promotion_1h_under", "promotion_1h_over"):
        assert seen[key] >= 1, (key, seen)
    compressed = [t for t in ctx.vault.iter_transcripts() if t.stage == "compressed"]
    assert compressed and all(t.summary and not t.messages for t in compressed)
