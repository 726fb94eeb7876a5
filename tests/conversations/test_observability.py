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
    from panda.conversations.ingest import index_transcripts
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

    from panda.conversations.enrich import enrich_pending
    from panda.jobs.registry import run_job
    from panda.llm.scripted import ScriptedBackend
    from panda.llm.scripted_replies import schema_responder
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


def test_mindcore_fields_session_cache_users_and_usage_totals(ctx, tmp_path):
    """Seed 004: llm_calls carry thread, message, completion time and cost (from the policy's price table);
    every gather leaves a retrieval row with its classification and cache fields (route none included); the
    second turn of a session reads the open session from the in-memory cache; users hold their counts;
    `panda stats` totals cost and the cache hit rate."""
    import json

    from panda.catalog.observability import call_cost
    from tests.jobs.conftest import turns

    assert call_cost("gpt-4o-mini", 1000, 500, {"gpt-4o-mini": (0.15, 0.60)}) == 0.00045
    assert call_cost("local-model", 1000, 500, {"gpt-4o-mini": (0.15, 0.60)}) == 0.0
    model = ctx.model_for("MIND")
    ctx.policy.llm.prices_usd_per_million[model] = (1.0, 2.0)
    t = datetime(2026, 4, 1, 9, tzinfo=UTC)
    lines = [json.dumps({"user_id": "ann", "session_id": "chat", "turn_id": f"a{i}",
                         "timestamp": (t + timedelta(minutes=i)).isoformat(), "query": q})
             for i, q in enumerate(["I have a cat called Miso.", "What is my cat called?", "Which food suits Miso?"])]
    turns(ctx, tmp_path, lines)
    con = ctx.catalog.con
    rows = con.execute("""SELECT l.thread_id, l.message_id, l.completed_at - l.started_at, l.latency_ms, l.cost_usd,
                                 l.prompt_tokens, l.completion_tokens, m.external_id
                          FROM llm_calls l LEFT JOIN messages m ON m.id = l.message_id
                          WHERE l.turn_id IS NOT NULL""").fetchall()
    assert rows and all(r[0] == "ann:chat" and r[7] and r[7].endswith(":q") for r in rows)
    assert all(abs(r[2].total_seconds() * 1000 - r[3]) < 1 for r in rows)
    assert all(abs(r[4] - (r[5] * 1.0 + r[6] * 2.0) / 1e6) < 1e-9 for r in rows)
    gathers = con.execute("""SELECT turn_id, retrieval_type, messages_in_context, cache_hit, cache_key, thread_id,
                                    turn_type, total_ms >= retrieval_ms FROM retrieval_operations
                             WHERE retrieval_type <> 'memory.search' ORDER BY created_at""").fetchall()
    assert len(gathers) == 3 and all(g[5] == "ann:chat" and g[6] and g[7] for g in gathers)
    assert gathers[0][3] is False and gathers[0][2] == 0  # the first turn: an empty session, nothing cached
    assert gathers[2][3] is True and gathers[2][4] == "session:ann:chat-s0001" and gathers[2][2] >= 4
    users = con.execute("SELECT total_threads, total_sessions, total_messages, last_active_at FROM users "
                        "WHERE id = 'ann'").fetchone()
    assert users[:3] == (1, 1, 6) and users[3] is not None
    stats = Conversations(ctx.catalog).usage_stats(t - timedelta(days=1), t + timedelta(days=1), "ann")
    totals = stats["totals"]
    assert totals["llm"]["total_calls"] == len(rows) and totals["llm"]["total_cost_usd"] > 0
    assert 0 < totals["cache_hit_rate"] <= 1


def test_route_none_still_records_a_retrieval(ctx, tmp_path):
    import json

    from panda.llm.scripted import ScriptedBackend
    from panda.llm.scripted_replies import schema_responder
    from panda.pipeline.scheduler import run_batch
    from panda.pipeline.turn_input import read_turns
    from tests.conftest import write_jsonl

    def no_retrieval(request):
        reply = schema_responder(request)
        if request.phase == "analyze":
            reply["needs_retrieval"] = "none"
        return reply

    line = json.dumps({"user_id": "ann", "session_id": "chat", "timestamp": "2026-04-01T09:00:00Z", "query": "Hello there, Panda!"})
    batch, _ = read_turns(write_jsonl(tmp_path / "t.jsonl", [line]))
    run_batch(batch, ctx, ScriptedBackend(responder=no_retrieval))
    rows = ctx.catalog.con.execute("SELECT retrieval_type, results, cache_hit, messages_in_context, turn_type "
                                   "FROM retrieval_operations WHERE retrieval_type <> 'memory.search'").fetchall()
    assert rows == [("none", 0, False, 0, "question")]  # the planner's own memory.search is recorded apart


def test_a_session_that_ended_leaves_the_cache_with_an_event(ctx, tmp_path):
    """Seed 004: the session cache holds the open session; a turn that comes after the session gap finds it
    ended, drops it from the cache and records `cache_invalidated` (once), and reads no stale messages."""
    import json

    from tests.jobs.conftest import turns

    t = datetime(2026, 4, 1, 9, tzinfo=UTC)
    times = [t, t + timedelta(minutes=1), t + timedelta(minutes=2), t + timedelta(hours=3), t + timedelta(hours=3, minutes=1)]
    queries = ["I have a cat called Miso.", "What is my cat called?", "Which food suits Miso?", "Good evening!", "Thanks."]
    turns(ctx, tmp_path, [json.dumps({"user_id": "ann", "session_id": "chat", "turn_id": f"a{i}",
                                      "timestamp": when.isoformat(), "query": q})
                          for i, (when, q) in enumerate(zip(times, queries, strict=True))])
    assert not ctx.session_cache.holds("ann:chat-s0001")
    events = ctx.catalog.con.execute("SELECT entity_id, created_at FROM system_events "
                                     "WHERE event_type = 'cache_invalidated'").fetchall()
    assert [e[0] for e in events] == ["ann:chat-s0001"] and events[0][1] == times[3]
    gathers = ctx.catalog.con.execute("SELECT turn_id, cache_hit, messages_in_context FROM retrieval_operations "
                                      "WHERE retrieval_type <> 'memory.search' ORDER BY created_at").fetchall()
    assert gathers[2][1] is True  # the open session, from the cache
    assert gathers[3][1] is False and gathers[3][2] == 0  # after the gap: no stale session messages
