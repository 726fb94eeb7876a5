"""Pure parts of conversation memory: sessions, transcripts, message parsing, facts."""

from datetime import UTC, datetime, timedelta
from pathlib import Path

from panda.conversations.messages import assign_ids, read_messages
from panda.conversations.sessions import ThreadState, sessionize
from panda.documents.transcript import SessionTranscript, TranscriptMessage
from panda.documents.user_memory import MemoryEntry, MemoryFile
from panda.language.facts import Statement, extract_statements, near_duplicate, resolve, true_at
from panda.pipeline.feedback import rejects_previous_answer
from tests.conftest import write_jsonl

T0 = datetime(2026, 1, 10, 10, tzinfo=UTC)


def test_sessions_are_cut_at_the_gap_exactly():
    times = [T0, T0 + timedelta(minutes=20), T0 + timedelta(minutes=60), T0 + timedelta(minutes=65)]
    assert sessionize(times, ThreadState()) == [1, 1, 2, 2]
    assert sessionize(times, ThreadState(4, T0 - timedelta(minutes=15))) == [4, 4, 5, 5]
    at_gap = [T0, T0 + timedelta(minutes=30), T0 + timedelta(minutes=60, seconds=1)]
    assert sessionize(at_gap, ThreadState()) == [1, 1, 2]  # 30 min is still the same session
    assert sessionize([T0, T0, T0], ThreadState()) == [1, 1, 1]


def test_transcript_round_trip_keeps_content_that_looks_like_markup():
    tricky = "line one\n### Bob · 2026-01-01T00:00:00Z\n<!-- panda:message {\"id\": \"x\"} -->\nend"
    transcript = SessionTranscript("alice", "t1", 3, [
        TranscriptMessage("msg_1", "user", "Alice", T0, "Hi there!\n\n## not a heading of ours", "completed",
                          {"topics": ["pets"], "counters": {"reference_count": 2}}, "D1:1"),
        TranscriptMessage("msg_2", "assistant", "panda", T0 + timedelta(minutes=1), tricky),
    ], summary="they said hello")
    back = SessionTranscript.parse(transcript.render())
    assert back == transcript
    assert back.session_id == "t1-s0003" and back.file_name == "session_0003.md"


def test_message_lines_and_turn_lines_are_accepted_bad_lines_reported(tmp_path: Path):
    path = write_jsonl(tmp_path / "m.jsonl", [
        '{"user_id": "alice", "session_id": "c1", "timestamp": "2026-01-10T10:00:00Z", "role": "user", "content": "I live in Boston", "speaker": "Alice"}',
        '{"user_id": "alice", "session_id": "c1", "timestamp": "2026-01-10T10:01:00Z", "role": "bot", "content": "hi"}',
        '{"user_id": "alice", "timestamp": "2026-01-10T10:02:00Z", "query": "hi", "assistant": "hello!", "turn_id": "t7"}',
        '{"user_id": "alice", "session_id": "c1", "timestamp": "2026-01-10T10:03:00Z", "role": "user"}',
        '{"user_id": "alice", "session_id": "../x", "timestamp": "2026-01-10T10:03:00Z", "role": "user", "content": "x"}',
    ])
    messages, errors = read_messages(path)
    assert [(m.role, m.thread_id, m.external_id) for m in messages] == [
        ("user", "c1", None), ("user", "default", "t7:q"), ("assistant", "default", "t7:a")]
    assert [(e.line_number, e.field) for e in errors] == [(2, "role"), (4, "content"), (5, "session_id")]
    ids = [i for i, _ in assign_ids(messages + messages[:1])]
    assert len(set(ids)) == 4  # the repeated identical message gets its own id, deterministically
    assert ids == [i for i, _ in assign_ids(messages + messages[:1])]


def test_statement_extraction():
    assert extract_statements("We moved to Denver in June and I love hiking.") == [
        Statement("fact", "residence", "Denver"), Statement("preference", "likes", "hiking")]
    assert extract_statements("I live in New York City I think", "Ann") == [
        Statement("fact", "residence", "New York City", "Ann")]
    assert extract_statements("What do you think about Boston?") == []
    # moving into a home names where one lives now (set M: "We moved into the Brighton house last weekend." left
    # "residence: Hackney" current, and "Where do we live now?" was answered "in a flat in Hackney")
    for moved, place in (("We moved into the Brighton house last weekend.", "Brighton"), ("I moved into a flat in Leeds.",
                         "Leeds"), ("We've moved into our new home in Bath.", "Bath"), ("We moved house to York.", "York")):
        assert extract_statements(moved) == [Statement("fact", "residence", place)]
    assert extract_statements("We moved into the new house.") == []
    # a place left and a move in one sentence (set Q: "residence: Porto" stayed current, and "Which city do we live in
    # now?" was answered "Porto"); the place left is no employer
    assert extract_statements("We've left Porto and moved into a house with a garden in Braga.") == [
        Statement("fact", "residence", "Braga")]
    assert extract_statements("I left London and moved to Leeds last year.") == [Statement("fact", "residence", "Leeds")]
    # joining somewhere as someone is a new employer and job; joining a club is neither
    assert extract_statements("I left Freightly and joined Banco Atlântico as a data engineer.")[1:] == [
        Statement("fact", "employer", "Banco Atlântico"), Statement("fact", "job", "data engineer")]
    assert extract_statements("I joined the Galway Rowing Club last week.") == []
    assert Statement("fact", "residence", "Denver", "Caroline").key == "residence (Caroline)"


def entry(value, when, eid, key="residence"):
    return MemoryEntry(value=value, key=key, id=eid, learned_at=when)


def test_contradiction_invalidates_the_old_fact_and_keeps_history():
    jan, jun, mar = datetime(2026, 1, 10, tzinfo=UTC), datetime(2026, 6, 2, tzinfo=UTC), datetime(2026, 3, 1, tzinfo=UTC)
    entries: list[MemoryEntry] = []
    assert resolve(entries, entry("Boston", jan, "f1"), "residence").action == "add"
    result = resolve(entries, entry("Denver", jun, "f2"), "residence")
    assert result.action == "supersede" and [e.id for e in result.invalidated] == ["f1"]
    boston, denver = entries
    assert boston.invalid_at == jun and denver.invalid_at is None
    assert [e.value for e in true_at(entries, mar)] == ["Boston"]
    assert [e.value for e in true_at(entries, jun + timedelta(days=1))] == ["Denver"]
    # the same fact again is a duplicate (re-confirmed), not a new line
    assert resolve(entries, entry("denver", jun + timedelta(days=3), "f3"), "residence").action == "duplicate"
    # an older statement arriving late is recorded as already superseded
    late = entry("Chicago", datetime(2025, 6, 1, tzinfo=UTC), "f4")
    resolve(entries, late, "residence")
    assert late.invalid_at is not None and denver.invalid_at is None
    # multi-valued attributes never contradict
    likes: list[MemoryEntry] = []
    resolve(likes, entry("hiking", jan, "p1", "likes"), "likes")
    assert resolve(likes, entry("pottery", jun, "p2", "likes"), "likes").action == "add"
    assert all(e.invalid_at is None for e in likes)


def test_near_duplicates_and_facts_file_history_section():
    assert near_duplicate("gaming laptops with RTX GPUs", "gaming laptops with RTX GPU")
    assert not near_duplicate("Boston", "Denver")
    memory = MemoryFile("fact", "alice", [entry("Boston", datetime(2026, 1, 10, tzinfo=UTC), "f1"),
                                          entry("Denver", datetime(2026, 6, 2, tzinfo=UTC), "f2")])
    memory.entries[0].invalid_at = datetime(2026, 6, 2, tzinfo=UTC)
    text = memory.render()
    assert text.index("**residence:** Denver") < text.index("## History") < text.index("**residence:** Boston")
    assert "_(true from 2026-01-10 until 2026-06-02)_" in text
    back = MemoryFile.parse(text, "fact", "alice")
    assert [(e.value, e.invalid_at) for e in back.entries] == [("Denver", None), ("Boston", datetime(2026, 6, 2, tzinfo=UTC))]


def test_rejection_detection():
    assert rejects_previous_answer("No, that's not what I asked.")
    assert rejects_previous_answer("That didn't work at all")
    assert not rejects_previous_answer("That is right, thanks!")
    assert not rejects_previous_answer("No idea what to cook tonight")
    assert not rejects_previous_answer("No, I have two cats.")
    assert rejects_previous_answer("No.") and rejects_previous_answer("Nope, that is wrong")
    from panda.pipeline.feedback import feedback_signal

    assert feedback_signal("Thanks, that worked!") == "accepted"
    assert feedback_signal("Perfect, exactly what I needed") == "accepted"
    assert feedback_signal("Thanks, but that's wrong") == "rejected"
    assert feedback_signal("No, I have two cats.") is None and feedback_signal("What about dogs?") is None


def test_record_is_idempotent_and_returns_existing_entries_for_reindexing(tmp_path: Path):
    from panda.conversations.learned import from_statement, record
    from panda.documents.vault import Vault

    vault = Vault(tmp_path)
    items = [from_statement(s, f"fact_x_{i}", T0, "turn_alice_000001") for i, s in
             enumerate(extract_statements("I live in Boston."), 1)]
    first = record(vault, "alice", items, T0)
    text = vault.layout.facts_path("alice").read_text()
    second = record(vault, "alice", items, T0 + timedelta(hours=1))  # a re-run after a crash
    assert [d.id for d in first] == [d.id for d in second] == ["fact_x_1"]
    assert vault.layout.facts_path("alice").read_text() == text  # nothing rewritten, nothing duplicated


def test_extraction_keeps_bounds_and_qualifiers():
    from panda.language.facts import extract_statements

    found = {(s.attribute, s.value) for s in extract_statements(
        "I prefer gaming laptops with RTX GPUs and my budget is under $1000.")}
    assert found == {("likes", "gaming laptops with RTX GPUs"), ("budget", "under $1000")}
    assert [(s.attribute, s.value) for s in extract_statements("I love hiking on weekends, honestly.")] == \
        [("likes", "hiking on weekends")]


def test_link_budget_goes_to_the_most_relevant_excerpts():
    from panda.memory.links import FollowedLink, within_budget

    links = [FollowedLink("a.md", f"t{i}.md", 1, " ".join(["word"] * n)) for i, n in enumerate((30, 30, 10))]
    # 40, 40 and 14 tokens (documents/budgets.py): budget 55 fits one long excerpt and the short one
    assert [f.target for f in within_budget(links, 55, [0.1, 0.9, 0.5])] == ["t1.md", "t2.md"]
    assert [f.target for f in within_budget(links, 55, None)] == ["t0.md", "t2.md"]  # discovery order without scores


def test_session_profile_aggregates_enrichment():
    from types import SimpleNamespace

    from panda.conversations.ingest import session_profile

    msgs = [SimpleNamespace(metadata={"topics": ["pets"], "category": "personal_update", "sentiment": "positive",
                                      "entities": [{"type": "pet_name", "value": "Noodle"}]}),
            SimpleNamespace(metadata={"topics": ["pets", "food"], "category": "inquiry", "sentiment": "positive"}),
            SimpleNamespace(metadata={"topics": ["food", "pets"], "category": "inquiry"}),
            SimpleNamespace(metadata={})]
    profile = session_profile(msgs)
    assert profile == {"primary_topic": "pets", "category": "inquiry", "sentiment": "positive",
                       "entities": ["Noodle"]}
    assert session_profile([])["primary_topic"] is None


def test_should_summarize_picks_the_lines_and_a_session_with_none_marked_is_summarised_whole():
    from datetime import UTC, datetime, timedelta

    from panda.documents.transcript import SessionTranscript, TranscriptMessage
    from panda.jobs.summarisation import needs_summary, session_text

    t = datetime(2026, 1, 1, 9, tzinfo=UTC)
    chit_chat = SessionTranscript("ann", "c", 1, messages=[
        TranscriptMessage(id=f"m{i}", role="user", author="ann", timestamp=t + timedelta(minutes=i), content=f"hi {i}!",
                          metadata={"should_summarize": False}) for i in range(2)])
    # seed 004: "If no messages marked, get all"
    assert needs_summary(chit_chat, t + timedelta(hours=2), 30) and session_text(chit_chat) == "ann: hi 0!\nann: hi 1!"
    assert not needs_summary(chit_chat, t + timedelta(minutes=10), 30)  # not ended yet
    chit_chat.messages[1].metadata = {}  # not enriched: counts as marked
    chit_chat.messages[1].content = "I adopted a ferret."
    assert session_text(chit_chat) == "ann: I adopted a ferret."  # the summary reads only what is marked for it


def test_a_thread_summary_reads_its_last_ten_session_summaries():
    from panda.documents.transcript import SessionTranscript
    from panda.jobs.summarisation import THREAD_SESSIONS, thread_text

    sessions = [SessionTranscript("ann", "c", n, summary=f"s{n}") for n in range(1, 13)]
    lines = thread_text(sessions).splitlines()
    assert THREAD_SESSIONS == 10 and len(lines) == 10
    assert lines[0] == "Session 3: s3" and lines[-1] == "Session 12: s12"
    assert thread_text(sessions[:2]) == "Session 1: s1\nSession 2: s2"


def test_suggested_topic_becomes_a_new_topic_key_or_nothing():
    from panda.language.vocabulary import new_topic_key
    from panda.llm.schemas import Enrichment

    assert new_topic_key(" Rock Climbing! ") == "rock_climbing" and new_topic_key("Pets") is None
    assert new_topic_key("--") is None and new_topic_key(None) is None
    base = {"turn_type": "new_topic", "needs_retrieval": "none", "topics": [], "category": "conversation",
            "message_type": "statement", "importance": 0.5, "sentiment": "neutral", "is_actionable": False,
            "contains_decision": False, "contains_preference": False, "should_summarize": True, "confidence": "low"}
    assert Enrichment.model_validate(base).suggested_topic is None  # optional, as in the seed's schema
    assert Enrichment.model_validate({**base, "suggested_topic": "Bee keeping"}).suggested_topic == "bee_keeping"
    assert "suggested_topic" in Enrichment.model_json_schema()["properties"]
