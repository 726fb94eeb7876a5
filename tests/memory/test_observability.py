from datetime import UTC, datetime, timedelta

from panda.catalog.conversations import Conversations
from tests.jobs.conftest import say


def test_reindexing_messages_keeps_enriched_at_and_stats_filter_events_by_user(ctx):
    t = datetime(2026, 3, 1, 9, tzinfo=UTC)
    say(ctx, "ann", "c", t, "I live in Oslo.", "Noted.")
    say(ctx, "ben", "c", t, "I live in Rome.", "Noted.")
    conv = Conversations(ctx.catalog)
    mid = conv.pending_enrichment("ann")[0]["id"]
    conv.set_enrichment(mid, "done", {"topics": []}, t)
    from panda.memory.ingest import index_transcripts
    index_transcripts(ctx, list(ctx.vault.iter_transcripts()))
    assert ctx.catalog.con.execute("SELECT enriched_at FROM messages WHERE id = ?", [mid]).fetchone()[0] is not None
    ctx.catalog.record_event("custom", "user", "ben", {"user_id": "ben"}, t)
    stats = conv.usage_stats(t - timedelta(days=1), t + timedelta(days=1), "ann")
    assert "custom" not in {e["event_type"] for e in stats["events"]}


def test_one_clock_rule_and_one_session_id_form_for_turns_enrichment_and_jobs(ctx, tmp_path):
    """Turn LLM calls and retrievals, enrichment calls and job calls: started_at/created_at is the
    event's time (input time, the job's --now), recorded_at the wall clock, and every session id is
    the catalog's 'user:thread-sNNNN' — so a window over the input time shows the same turns everywhere."""
    import json
    import re

    from panda.jobs.registry import run_job
    from panda.llm.scripted import ScriptedBackend
    from panda.llm.scripted_replies import schema_responder
    from panda.memory.enrich import enrich_pending
    from tests.jobs.conftest import turns

    t = datetime(2024, 6, 1, 9, tzinfo=UTC)  # long ago: wall-clock windows would not see it
    lines = [json.dumps({"user_id": "ann", "session_id": "chat", "turn_id": f"a{i}", "timestamp": (t + timedelta(minutes=i)).isoformat(),
                         "query": q}) for i, q in enumerate(["I have a cat called Miso.", "What is my cat called?"])]
    turns(ctx, tmp_path, lines)
    say(ctx, "ann", "diary", t, "I started pottery classes.", "Nice.")
    enrich_pending(ctx, ScriptedBackend(responder=schema_responder))
    run_job("summarisation", ctx, t + timedelta(days=2), backend_factory=lambda: ScriptedBackend(responder=schema_responder))
    con = ctx.catalog.con
    sessions = {r[0] for r in con.execute("SELECT session_id FROM llm_calls UNION SELECT session_id FROM retrieval_operations "
                                          "WHERE session_id IS NOT NULL").fetchall()} - {None}
    assert sessions and all(re.fullmatch(r"ann:[\w.-]+-s\d{4}", s) for s in sessions), sessions
    assert {s for s in sessions if s.startswith("ann:chat-")} == {"ann:chat-s0001"}
    late = con.execute("SELECT count(*) FROM llm_calls WHERE recorded_at < started_at").fetchone()[0]
    assert late == 0  # recorded (wall clock, now) is never before the event (2024)
    stats = Conversations(ctx.catalog).usage_stats(t - timedelta(hours=1), t + timedelta(hours=1), "ann")
    ops = {r["operation"]: r["calls"] for r in stats["llm"]}
    assert ops.get("analyze") == 2 and ops.get("enrich", 0) >= 1
    assert sum(r["retrievals"] for r in stats["retrieval"]) >= 2  # the same turns' retrievals, same window
    recorded = Conversations(ctx.catalog).usage_stats(t - timedelta(hours=1), t + timedelta(hours=1), "ann", "recorded")
    assert recorded["llm"] == [] and recorded["retrieval"] == []
