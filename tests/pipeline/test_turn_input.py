from pathlib import Path

from panda.pipeline.turn_input import read_turns
from tests.conftest import write_jsonl


def test_bad_lines_are_reported_with_file_line_and_field_and_good_lines_kept(tmp_path: Path):
    path = write_jsonl(tmp_path / "turns.jsonl", [
        '{"user_id": "alice", "timestamp": "2026-01-01T10:00:00Z", "query": "hello"}',
        '{"user_id": "alice", "timestamp": "yesterday", "query": "bad time"}',
        '{"user_id": "../bob", "timestamp": "2026-01-01T10:00:00Z", "query": "escape"}',
        'not json',
        '{"user_id": "bob", "timestamp": "2026-01-01T10:00:00Z"}',
        '{"user_id": "bob", "timestamp": "2026-01-01T10:00:00Z", "query": "x", "colour": "red"}',
        '',
        '{"user_id": "bob", "session_id": "s1", "turn_id": "t9", "timestamp": "2026-01-01T10:00:00+02:00", "query": "ok"}',
        '{"user_id": "alice", "timestamp": "2026-01-01T10:00:00Z", "query": "hello"}',
        '[1, 2]',
    ])
    turns, errors = read_turns(path)
    assert [(t.user_id, t.source_line) for t in turns] == [("alice", 1), ("bob", 8)]
    assert turns[1].timestamp.isoformat() == "2026-01-01T08:00:00+00:00"
    got = [(e.line_number, e.field) for e in errors]
    assert got == [(2, "timestamp"), (3, "user_id"), (4, None), (5, "query"), (6, "colour"), (9, "turn_id"), (10, None)]
    assert str(errors[0]).startswith(f"{path}:2: field 'timestamp'")
    assert "duplicate of line 1" in str(errors[5])


def test_input_key_is_stable_and_prefers_turn_id(tmp_path: Path):
    path = write_jsonl(tmp_path / "t.jsonl", [
        '{"user_id": "a", "turn_id": "t1", "timestamp": "2026-01-01T10:00:00Z", "query": "q"}',
        '{"user_id": "a", "timestamp": "2026-01-01T10:00:00Z", "query": "q"}',
    ])
    first, _ = read_turns(path)
    second, _ = read_turns(path)
    assert [t.input_key for t in first] == [t.input_key for t in second]
    assert first[0].input_key != first[1].input_key


def test_scored_turns_carry_stale_values_and_abstention(tmp_path: Path):
    path = write_jsonl(tmp_path / "t.jsonl", [
        '{"user_id": "a", "timestamp": "2026-01-01T10:00:00Z", "query": "Where do I live?", "expected": "Porto",'
        ' "stale": "Lisbon"}',
        '{"user_id": "a", "timestamp": "2026-01-02T10:00:00Z", "query": "My vet?", "abstain": true}',
        '{"user_id": "a", "timestamp": "2026-01-03T10:00:00Z", "query": "x", "abstain": "yes"}',
    ])
    turns, errors = read_turns(path)
    assert [(t.expected, t.stale, t.abstain) for t in turns] == [("Porto", "Lisbon", False), (None, None, True)]
    assert [(e.line_number, e.field) for e in errors] == [(3, "abstain")]
