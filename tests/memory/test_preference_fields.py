"""Seed 004's preference fields: preference_type, source_session_id and is_active, in preferences.md
(the truth, editable) and in the catalog's user_preferences view; a rebuild from the vault keeps them."""

from __future__ import annotations

from panda.documents.user_memory import MemoryEntry
from panda.jobs.reindex import reindex
from panda.language.vocabulary import preference_type
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from tests.conftest import write_jsonl


def test_preference_type_from_the_value():
    assert preference_type("gaming laptops with RTX GPUs") == "product"
    assert preference_type("short answers with bullet points") == "communication"
    assert preference_type("a reminder every morning") == "notification"
    assert preference_type("spicy Thai food") == "food"
    assert preference_type("hiking on weekends") == "activity"
    assert preference_type("the colour blue") == "general"


def test_entry_line_round_trip_keeps_session_and_type():
    entry = MemoryEntry(value="hiking", key="likes", id="pref_1", session="conv-26:conv-26-s0001 x", preference_type="activity")
    line = entry.render()
    assert "session=conv-26%3Aconv-26-s0001%20x" in line and "type=activity" in line
    back = MemoryEntry.parse(line)
    assert back is not None and back.session == "conv-26:conv-26-s0001 x" and back.preference_type == "activity"
    assert back.is_active


def preferences(ctx):
    return ctx.catalog.con.execute(
        "SELECT user_id, preference_type, key, value, source_session_id, is_active FROM user_preferences "
        "ORDER BY value").fetchall()


def test_turns_record_type_session_and_activity(ctx, backend, tmp_path):
    lines = ['{"user_id": "bob", "session_id": "b1", "timestamp": "2026-03-03T12:00:00Z", '
             '"query": "I prefer gaming laptops with RTX GPUs and my budget is under $1000."}',
             '{"user_id": "bob", "session_id": "b2", "timestamp": "2026-03-04T12:00:00Z", '
             '"query": "I love hiking on weekends."}',
             '{"user_id": "bob", "session_id": "b3", "timestamp": "2026-03-09T12:00:00Z", "query": "I quit hiking."}']
    turns, errors = read_turns(write_jsonl(tmp_path / "t.jsonl", lines))
    assert not errors
    run_batch(turns, ctx, backend)
    text = ctx.vault.memory_file("bob", "preference").render()
    assert "gaming laptops with RTX GPUs" in text and "session=b1" in text and "type=product" in text
    rows = preferences(ctx)
    rtx = next(r for r in rows if r[3] == "gaming laptops with RTX GPUs")
    hiking = next(r for r in rows if r[3].startswith("hiking"))
    assert rtx == ("bob", "product", "likes", "gaming laptops with RTX GPUs", "b1", True)
    assert hiking[1:] == ("activity", "likes", hiking[3], "b2", False)  # ended by "I quit hiking."
    before = preferences(ctx)
    reindex(ctx)  # the catalog rebuilt from the vault alone
    assert preferences(ctx) == before


def test_preference_and_fact_changes_are_audited_with_diffs_linked_to_the_turn(ctx, backend, tmp_path):
    lines = ['{"user_id": "bob", "session_id": "b1", "timestamp": "2026-03-03T12:00:00Z", '
             '"query": "I live in Boston and I love hiking."}',
             '{"user_id": "bob", "session_id": "b2", "timestamp": "2026-03-05T12:00:00Z", '
             '"query": "We moved to Denver last week."}']
    turns, _ = read_turns(write_jsonl(tmp_path / "t.jsonl", lines))
    run_batch(turns, ctx, backend)
    user = ctx.vault.layout.user_dir("bob")
    first = (user / "Logs" / "Changes" / "2026-03-03.md").read_text()
    assert "created [facts.md](../../facts.md) · cause `[turn_bob_000001](../../turns/turn_000001/context.md)`" in first
    assert "+- **residence:** Boston" in first and "+- **likes:** hiking" in first
    second = (user / "Logs" / "Changes" / "2026-03-05.md").read_text()
    assert "updated [facts.md](../../facts.md)" in second and "turn_bob_000002" in second
    assert "+- **residence:** Denver" in second and "-- **residence:** Boston" in second  # Boston moved to History
    assert (user / "turns" / "turn_000002" / "context.md").exists()  # the cause's link resolves
    assert not list((ctx.vault.home / "Logs").glob("Changes/*.md"))  # nothing personal in the global log
