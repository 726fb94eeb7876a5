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
