"""Each maintenance job over a temporary home: thresholds, dry runs, idempotence, crash recovery."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest

from panda.catalog.conversations import Conversations
from panda.catalog.maintenance import Maintenance
from panda.conversations.ingest import summary_document_id
from panda.documents.transcript import SessionTranscript
from panda.jobs.reindex import reindex
from panda.jobs.rules import origin_hash
from panda.memory.search import SearchRequest
from tests.jobs.conftest import job, say, turns
from tests.pipeline.test_scheduler import LINES

T1 = datetime(2026, 3, 2, 9, tzinfo=UTC)
HOUR = timedelta(hours=1)
DAY = timedelta(days=1)


def test_archival_moves_turns_at_30_days_keeps_them_searchable_and_resumes(ctx, tmp_path, monkeypatch):
    turns(ctx, tmp_path, LINES)
    assert job(ctx, "archival", T1 + 30 * DAY - HOUR).changed == 0
    dry = job(ctx, "archival", T1 + 30 * DAY + HOUR, dry_run=True)
    assert dry.counts["turns_archived"] == 2 and (ctx.vault.turn_dir("alice", 1) / "context.md").exists()

    report = job(ctx, "archival", T1 + 30 * DAY + HOUR)
    assert report.counts["turns_archived"] == 2  # turn 1 of alice and of bob; the turns of day 2 are 29 d old
    moved = ctx.vault.home / "archive" / "2026-03" / "alice" / "turn_000001"
    assert (moved / "context.md").exists() and not ctx.vault.turn_dir("alice", 1).exists()
    row = next(r for r in ctx.catalog.turns("alice") if r["turn_number"] == 1)
    summary = json.loads(row["summary_json"])
    assert row["archived"] and row["doc_path"] == "archive/2026-03/alice/turn_000001/context.md"
    assert set(summary) >= {"query", "intent", "outcome", "key_claims", "revision_count"}
    assert summary["query"].startswith("I just adopted") and summary["outcome"] == "APPROVE"
    found = ctx.memory.search(SearchRequest("Syrian hamster Biscuit", user_id="alice", now=T1 + 31 * DAY, record=False))
    hit = next(r for r in found if r.id == row["id"])  # the turn stays searchable, pointing at the original
    assert hit.doc_path == row["doc_path"]
    assert "Syrian hamster" in ctx.memory.retrieve(doc_id=hit.id).body  # originals still readable
    assert ctx.vault.next_turn_number("alice") == 3
    assert job(ctx, "archival", T1 + 30 * DAY + HOUR).changed == 0  # idempotent

    # Killed between marking the folder and moving it: the re-run finishes the move and the catalog.
    import panda.jobs.archival as archival

    def killed(src, dst):
        raise KeyboardInterrupt("killed")

    monkeypatch.setattr(archival, "move_folder", killed)
    with pytest.raises(KeyboardInterrupt):
        job(ctx, "archival", T1 + 31 * DAY + HOUR)
    assert json.loads((ctx.vault.turn_dir("alice", 2) / "metadata.json").read_text())["archived"]
    monkeypatch.undo()
    assert job(ctx, "archival", T1 + 31 * DAY + HOUR).counts["turns_archived"] == 2
    assert all(r["archived"] for r in ctx.catalog.turns())

    from panda.jobs.reindex import reindex

    reindex(ctx)  # archived turns come back archived, with their summaries
    assert all(r["archived"] and r["summary_json"] for r in ctx.catalog.turns())


def test_summaries_then_aging_compress_archive_delete(ctx):
    start = datetime(2025, 1, 10, 18, tzinfo=UTC)
    say(ctx, "alice", "chat", start, "I adopted a ferret called Noodle today!", "Congratulations on Noodle.",
        "Noodle sleeps in a hammock.")
    say(ctx, "alice", "chat", start + 2 * DAY, "We are repainting the kitchen yellow.", "Sounds bright.")
    end1, end2 = start + 10 * timedelta(minutes=1), start + 2 * DAY + 5 * timedelta(minutes=1)

    status = lambda: [s["status"] for s in Conversations(ctx.catalog).sessions_of_thread("alice:chat")]  # noqa: E731
    assert status() == ["active", "active"]
    report = job(ctx, "summarisation", end2 + 29 * timedelta(minutes=1))
    assert report.counts["session_summaries"] == 1 and report.counts["thread_summaries"] == 1  # session 2 is still open
    assert status() == ["summarized", "active"]  # seed 004 lifecycle: active -> ended -> summarized
    first = Conversations(ctx.catalog).sessions_of_thread("alice:chat")[0]
    assert first["ended_at"] == first["last_message_at"]  # the session ended with its last message
    outcomes = lambda: [s["outcome"] for s in Conversations(ctx.catalog).sessions_of_thread("alice:chat")]  # noqa: E731
    assert outcomes() == ["resolved", "ongoing"]  # judged with the summary; an open session is ongoing
    reindex(ctx)
    assert outcomes() == ["resolved", "ongoing"]  # the transcript holds it: a reindex gives it back
    events = [r[0] for r in ctx.catalog.con.execute(
        "SELECT event_type FROM system_events WHERE entity_id = 'alice:chat-s0001' ORDER BY created_at, event_type"
    ).fetchall()]
    assert "session_ended" in events and "summary_generated" in events
    report = job(ctx, "summarisation", end2 + 31 * timedelta(minutes=1))
    assert report.counts["session_summaries"] == 1
    assert job(ctx, "summarisation", end2 + HOUR).changed == 0
    logs = ctx.vault.home / "Logs" / "Sessions" / "alice" / "chat"
    assert (logs / "session_0001.md").exists() and (logs / "thread.md").exists()
    conv = Conversations(ctx.catalog)
    sessions = conv.sessions_of_thread("alice:chat")
    assert all(s["summary"] for s in sessions) and conv.counts()["messages"] == 5
    assert ctx.catalog.get_document(summary_document_id("alice:chat-s0001"))["kind"] == "session_summary"
    assert Maintenance(ctx.catalog).threads("alice")[0]["summary"]

    hits = ctx.memory.search(SearchRequest("ferret hammock", user_id="alice", now=end1, kinds=["message"], limit=2))
    refs = sum(h.id and ctx.catalog.get_document(h.id)["reference_count"] for h in hits)
    assert refs == 2

    assert job(ctx, "aging", end1 + 90 * DAY - HOUR).changed == 0
    report = job(ctx, "aging", end1 + 90 * DAY + HOUR)
    assert report.counts["sessions_compressed"] == 1
    path = ctx.vault.home / "users" / "alice" / "threads" / "chat" / "session_0001.md"
    transcript = SessionTranscript.parse(path.read_text())
    assert transcript.stage == "compressed" and not transcript.messages and len(transcript.compressed_ids) == 3
    assert "Noodle" not in path.read_text().split("## Summary")[0].split("---")[-1]  # messages are gone ...
    summary_doc = ctx.catalog.get_document(summary_document_id("alice:chat-s0001"))
    assert summary_doc["reference_count"] == 2  # ... their reference counts are kept
    assert conv.counts()["messages"] == 2 and not Maintenance(ctx.catalog).message_documents_of_session("alice:chat-s0001")
    found = ctx.memory.search(SearchRequest("ferret Noodle", user_id="alice", now=end1 + 91 * DAY, record=False))
    assert found[0].title == "pet (alice): ferret called Noodle"  # the fact the first message stated, then …
    assert [r.id for r in found if r.kind != "fact"][0] == summary_document_id("alice:chat-s0001")  # … its summary
    assert job(ctx, "aging", end1 + 90 * DAY + HOUR).changed == 0

    # Re-ingesting the original messages adds nothing: their ids live on in the compressed transcript.
    say(ctx, "alice", "chat", start, "I adopted a ferret called Noodle today!", "Congratulations on Noodle.",
        "Noodle sleeps in a hammock.")
    assert conv.counts()["messages"] == 2

    report = job(ctx, "aging", end1 + 365 * DAY + HOUR)
    assert report.counts["sessions_archived"] == 1
    archived = ctx.vault.home / "archive" / "2025-01" / "alice" / "threads" / "chat" / "session_0001.md"
    assert archived.exists() and not path.exists()
    assert "archived" in ctx.catalog.get_document(summary_document_id("alice:chat-s0001"))["content_types"]
    assert conv.session("alice:chat-s0001")["doc_path"] == "archive/2025-01/alice/threads/chat/session_0001.md"

    reindex(ctx)
    assert conv.session("alice:chat-s0001")["status"] == "archived"
    assert ctx.catalog.get_document(summary_document_id("alice:chat-s0001"))["reference_count"] == 2

    assert job(ctx, "aging", end1 + 730 * DAY + HOUR).counts.get("sessions_deleted", 0) == 0  # deletion is off
    ctx.policy = ctx.policy.model_copy(update={"retention": ctx.policy.retention.model_copy(update={"deletion_enabled": True})})
    assert job(ctx, "aging", end1 + 730 * DAY - HOUR).counts.get("sessions_deleted", 0) == 0
    report = job(ctx, "aging", end1 + 730 * DAY + HOUR)
    assert report.counts["sessions_deleted"] == 1 and not archived.exists()
    assert conv.session("alice:chat-s0001") is None and conv.session("alice:chat-s0002") is not None


def _memory(ctx, text, created, scope, usage=0, validated=(0, 0), user="alice"):
    doc = ctx.memory.prepare_save(text, doc_type="memory", topic="general", keywords=[], user_id=user, scope=scope,
                                  now=created)
    doc.usage_count, (doc.validation_success, doc.validation_count) = usage, validated
    return ctx.memory.save(doc)


def test_promotion_demotion_and_new_expiry(ctx):
    t0 = datetime(2026, 5, 1, tzinfo=UTC)
    ctx.vault.memory_file("alice", "fact")  # alice's private facts feed the scrubber
    from panda.conversations.learned import from_statement, record
    from panda.language.facts import Statement

    record(ctx.vault, "alice", [from_statement(Statement("fact", "residence", "Springfield"), "fact_res", t0, "t")], t0)
    reindex(ctx)  # the fact file was written by hand: index it as the pipeline would
    proven = _memory(ctx, "Rinse the espresso machine weekly with citric acid", t0, "new", usage=3)
    unused = _memory(ctx, "A note nobody used", t0, "new")
    star = _memory(ctx, "Descaling tip: alice in Springfield, email alice@example.com, uses citric acid monthly",
                   t0, "user", usage=10, validated=(3, 3))

    report = job(ctx, "promotion", t0 + HOUR - timedelta(seconds=1))
    assert report.changed == 0
    report = job(ctx, "promotion", t0 + HOUR)
    assert report.counts == {"documents_checked": 3, "new_to_user": 1}
    moved = ctx.vault.read_document(ctx.catalog.get_document(proven.id)["doc_path"])
    assert moved.scope == "user" and moved.expires_at is None

    report = job(ctx, "promotion", t0 + 24 * HOUR)  # the unused NEW note expires; the star goes global
    assert report.counts["new_expired"] == 1 and report.counts["user_to_global"] == 1
    assert ctx.catalog.get_document(unused.id) is None
    row = ctx.catalog.get_document(star.id)
    assert row["scope"] == "global" and row["owner_user"] is None and row["doc_path"].startswith("Knowledge/Facts/")
    text = (ctx.vault.home / row["doc_path"]).read_text()
    assert "citric acid" in text and not any(s in text for s in ("alice", "Springfield", "example.com"))
    assert f"origin: {origin_hash('alice')}" in text
    assert ctx.memory.search(SearchRequest("descaling citric acid", user_id="bob", now=t0 + 25 * HOUR, record=False))[0].id == star.id
    assert job(ctx, "promotion", t0 + 24 * HOUR).changed == 0

    # Trust falls below 0.80 (3 of 6 approved = 0.5): back to alice's own memory.
    ctx.vault.update_counters(row["doc_path"], {"validation_count": 3})
    ctx.catalog.increment_counters([star.id], "validation_count", 3)
    report = job(ctx, "promotion", t0 + 48 * HOUR)
    assert report.counts["global_to_user"] == 1
    back = ctx.catalog.get_document(star.id)
    assert back["owner_user"] == "alice" and back["doc_path"] == f"users/alice/memories/{star.id}.md"


def test_calibration_counts_outcomes_and_rejections_and_rolls_up_sources(ctx, tmp_path):
    turns(ctx, tmp_path, LINES)
    used = json.loads((ctx.vault.turn_dir("alice", 2) / "metadata.json").read_text())["used_documents"]
    first = ctx.catalog.turns("alice")[0]["id"]
    assert first in used and ctx.catalog.get_document(first)["validation_success"] == 1
    now = T1 + 2 * DAY
    report = job(ctx, "calibration", now)
    assert report.counts.get("trust_recalibrated", 0) == 0  # the save phase already counted the outcomes
    ctx.vault.update_turn_metadata("alice", 2, {"user_feedback_status": "rejected", "rejection_detected_in": "later"})
    ctx.catalog.set_feedback(ctx.catalog.turns("alice")[1]["id"], "rejected", "later")
    maintenance = Maintenance(ctx.catalog)
    for ok in (True, True, False):
        maintenance.record_extraction("example.com", "https://example.com/a", "product", ok, 0.8, "alice", now)
    report = job(ctx, "calibration", now)
    assert report.counts["trust_recalibrated"] >= 1 and report.counts["source_reliability"] == 1
    assert ctx.catalog.get_document(first)["validation_success"] == 0  # the approved answer was rejected
    meta = (ctx.vault.home / ctx.catalog.get_document(first)["doc_path"]).read_text()
    assert "validation_success: 0" in meta  # written back: reindex keeps it
    reliability = maintenance.source_reliability()["example.com"]
    assert reliability["extractions"] == 3 and reliability["reliability"] == pytest.approx(0.7 * 3 / 5 + 0.3 * 0.8, abs=1e-4)
    assert job(ctx, "calibration", now).changed == 0


def test_preference_decay_and_reconfirmation(ctx):
    from panda.conversations.learned import from_statement, record
    from panda.language.facts import extract_statements

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    statement = extract_statements("I love hiking.")[0]
    record(ctx.vault, "alice", [from_statement(statement, "pref_1", t0, "m1")], t0)

    def confidence():
        return ctx.vault.memory_file("alice", "preference").entries[0].confidence

    job(ctx, "preference-decay", t0 + HOUR)
    assert confidence() == 0.9
    job(ctx, "preference-decay", t0 + 30 * DAY - HOUR)
    assert confidence() == 0.9
    assert job(ctx, "preference-decay", t0 + 30 * DAY + HOUR).counts["confidence_0.7"] == 1
    record(ctx.vault, "alice", [from_statement(statement, "pref_2", t0 + 40 * DAY, "m2")], t0 + 40 * DAY)  # said again
    job(ctx, "preference-decay", t0 + 41 * DAY)
    assert confidence() == 0.9
    job(ctx, "preference-decay", t0 + 130 * DAY - HOUR)
    assert confidence() == 0.7
    job(ctx, "preference-decay", t0 + 130 * DAY + HOUR)
    assert confidence() == 0.5
    assert job(ctx, "preference-decay", t0 + 130 * DAY + HOUR).changed == 0
    assert ctx.catalog.get_document(ctx.vault.memory_file("alice", "preference").entries[0].id)["quality"] == 0.5


def test_preference_job_drops_likes_an_older_extractor_stored_and_survives_a_kill(ctx, monkeypatch):
    """A home written before facts.preference_value refused "I love this quote": the daily job drops that
    line from preferences.md and the catalog (catalog first: a run killed before the file is written drops
    it again next time), keeps real likes and lines written by hand, and a dry run changes nothing."""
    from panda.conversations.learned import from_statement, record
    from panda.documents.user_memory import MemoryEntry
    from panda.documents.vault import entry_document
    from panda.language.facts import Statement

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    old = [from_statement(Statement("preference", "likes", "this quote", "Jon"), "pref_quote", t0, "msg_1"),
           from_statement(Statement("preference", "likes", "hiking"), "pref_hiking", t0, "msg_2")]
    ctx.memory.index(record(ctx.vault, "alice", old, t0))
    memory = ctx.vault.memory_file("alice", "preference")
    by_hand = MemoryEntry(value="this song", key="likes", id="pref_by_hand", learned_at=t0)
    memory.entries.append(by_hand)
    rel = ctx.vault.write_memory_file(memory, t0, "typed in Obsidian")
    ctx.memory.index([entry_document(by_hand, "preference", "alice", rel)])
    path = ctx.vault.layout.memory_path("alice", "preference")

    def hits():
        return {h.id for h in ctx.memory.search(SearchRequest("which quote does Jon love", user_id="alice", limit=10, record=False))}

    assert "pref_quote" in hits()
    dry = job(ctx, "preference-decay", t0 + HOUR, dry_run=True)
    assert dry.counts["dropped_no_liked_thing"] == 1 and "this quote" in path.read_text(encoding="utf-8")

    real_write = ctx.vault.write_memory_file
    monkeypatch.setattr(ctx.vault, "write_memory_file", lambda *a, **k: (_ for _ in ()).throw(KeyboardInterrupt))
    with pytest.raises(KeyboardInterrupt):  # killed between the catalog and the file
        job(ctx, "preference-decay", t0 + HOUR, check=False)
    monkeypatch.setattr(ctx.vault, "write_memory_file", real_write)
    assert ctx.catalog.get_document("pref_quote") is None and "this quote" in path.read_text(encoding="utf-8")

    report = job(ctx, "preference-decay", t0 + 2 * HOUR)
    assert report.counts["dropped_no_liked_thing"] == 1
    text = path.read_text(encoding="utf-8")
    assert "this quote" not in text and "hiking" in text and "this song" in text
    assert ctx.catalog.get_document("pref_quote") is None and "pref_quote" not in hits()
    assert ctx.catalog.get_document("pref_hiking") is not None and ctx.catalog.get_document("pref_by_hand") is not None
    assert "dropped_no_liked_thing" not in job(ctx, "preference-decay", t0 + 3 * HOUR).counts


def test_preference_job_drops_likes_that_name_nothing_even_with_decay_disabled(ctx, monkeypatch):
    from panda.conversations.learned import from_statement, record
    from panda.language.facts import Statement

    t0 = datetime(2026, 1, 1, tzinfo=UTC)
    expiration = ctx.policy.expiration.model_copy(update={"preference_decay": False})
    monkeypatch.setattr(ctx, "policy", ctx.policy.model_copy(update={"expiration": expiration}))
    old = [from_statement(Statement("preference", "dislikes", "how you talk"), "pref_how", t0, "msg_1"),
           from_statement(Statement("preference", "likes", "hiking"), "pref_hiking", t0, "msg_2")]
    ctx.memory.index(record(ctx.vault, "alice", old, t0))
    report = job(ctx, "preference-decay", t0 + 100 * DAY)
    assert report.counts["dropped_no_liked_thing"] == 1 and ctx.catalog.get_document("pref_how") is None
    assert [e.confidence for e in ctx.vault.memory_file("alice", "preference").entries] == [0.7]  # not decayed


def test_a_small_talk_session_is_summarised_whole(ctx):
    """Seed 004: a session none of whose messages is marked should_summarize is summarised from all of them."""
    start = datetime(2025, 3, 1, 9, tzinfo=UTC)
    say(ctx, "bea", "chat", start, "hi there!", "Hello!")
    path = next(ctx.vault.home.glob("users/bea/threads/chat/session_*.md"))
    transcript = SessionTranscript.parse(path.read_text(encoding="utf-8"))
    for message in transcript.messages:  # as enrichment leaves them: nothing marked for the summary
        message.metadata = {**message.metadata, "should_summarize": False}
        message.status = "completed"
    path.write_text(transcript.render(), encoding="utf-8")

    job(ctx, "summarisation", start + timedelta(hours=3))
    after = SessionTranscript.parse(path.read_text(encoding="utf-8"))
    assert after.ended_at == transcript.messages[-1].timestamp and after.summary
    assert [s["status"] for s in Conversations(ctx.catalog).sessions_of_thread("bea:chat")] == ["summarized"]
    events = ctx.catalog.con.execute("SELECT event_type FROM system_events WHERE user_id = 'bea'").fetchall()
    assert ("session_ended",) in events and ("summary_generated",) in events
    job(ctx, "summarisation", start + timedelta(hours=4))  # once: a second run marks nothing again
    assert ctx.catalog.con.execute("SELECT count(*) FROM system_events WHERE event_type = 'session_ended' "
                                   "AND user_id = 'bea'").fetchone()[0] == 1
