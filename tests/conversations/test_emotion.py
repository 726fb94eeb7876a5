"""Seed 001's emotion signals from a message's words: risk is a real term of vehemence, and turns get
their own vehemence instead of a constant."""

from __future__ import annotations

import pytest

from panda.conversations import emotion
from panda.conversations.ingest import vehemence
from panda.pipeline.scheduler import run_batch
from panda.pipeline.turn_input import read_turns
from tests.conftest import write_jsonl


def test_signals_from_words():
    assert emotion.risk_of("I have chest pain and can't breathe") == 1.0
    assert emotion.risk_of("I think I was scammed on Coinbase") == 0.6
    assert emotion.risk_of("I love hiking on weekends") == 0.0
    assert emotion.urgency_of("I need help immediately") == 0.9
    assert emotion.urgency_of("I'm really struggling with this") == 0.6
    assert emotion.urgency_of("What is my hamster's name?") == 0.3
    assert emotion.sentiment_of("I'm feeling great!") == 0.5
    assert emotion.sentiment_of("I'm really struggling and so tired") == -1.0
    assert emotion.sentiment_of("The cage is 40 cm wide") == 0.0


def test_vehemence_orders_the_seed_examples_and_keeps_enrichment_first():
    calm, struggling, now = (vehemence({}, t, from_words=True) for t in ("I'm feeling great!", "I'm really struggling with this",
                                                         "I was scammed and I need help immediately"))
    assert calm == pytest.approx(0.15 + 0.15) and calm < struggling < now
    assert now == pytest.approx(0.9 * 0.5 + 0.6 * 0.2)  # no sentiment words; the risk term counts
    assert vehemence({"importance": 0.8, "sentiment": "negative"}, "I was scammed") == pytest.approx(0.4 + 0.21 + 0.12)
    assert vehemence({}, "") == pytest.approx(0.15)
    assert vehemence({}, "I'm feeling great! I was scammed") == pytest.approx(0.15 + 0.12)  # a message: risk only


def test_turns_get_their_own_vehemence(ctx, backend, tmp_path):
    lines = ['{"user_id": "eve", "timestamp": "2026-03-03T12:00:00Z", "query": "Which hiking trail is near Boston?"}',
             '{"user_id": "eve", "timestamp": "2026-03-03T12:05:00Z", '
             '"query": "Someone hacked my bank account, what do I do right now?"}']
    turns, _ = read_turns(write_jsonl(tmp_path / "t.jsonl", lines))
    run_batch(turns, ctx, backend)
    rows = dict(ctx.catalog.con.execute(
        "SELECT turn_number, importance FROM documents WHERE kind = 'context' AND owner_user = 'eve'").fetchall())
    assert rows[1] == pytest.approx(0.15)
    assert rows[2] == pytest.approx(0.9 * 0.5 + 0.6 * 0.2)
