"""The jobs' thresholds at their boundaries: just under and just over each one (pure rules)."""

from datetime import UTC, datetime, timedelta

import pytest

from panda.config import ExpirationPolicy, RetentionPolicy, ScopePolicy
from panda.jobs.rules import (
    archive_month,
    names_no_liked_thing,
    next_scope,
    origin_hash,
    preference_confidence,
    session_stage,
    source_reliability,
    top_claims,
    trust,
    turn_due_for_archive,
)
from panda.privacy.pii import scrub

T0 = datetime(2025, 1, 1, tzinfo=UTC)
HOUR = timedelta(hours=1)


def test_turn_archival_at_30_days():
    assert not turn_due_for_archive(T0, T0 + timedelta(days=30) - HOUR, 30)
    assert turn_due_for_archive(T0, T0 + timedelta(days=30), 30)
    assert turn_due_for_archive(T0, T0 + timedelta(days=30) + HOUR, 30)
    assert archive_month(datetime(2025, 11, 3, tzinfo=UTC)) == "2025-11"


def test_session_aging_boundaries():
    keep, delete = RetentionPolicy(), RetentionPolicy(deletion_enabled=True)
    day = timedelta(days=1)
    assert session_stage(T0, T0 + 90 * day - HOUR, keep) == "fresh"
    assert session_stage(T0, T0 + 90 * day + HOUR, keep) == "compressed"
    assert session_stage(T0, T0 + 365 * day - HOUR, keep) == "compressed"
    assert session_stage(T0, T0 + 365 * day + HOUR, keep) == "archived"
    assert session_stage(T0, T0 + 730 * day + HOUR, keep) == "archived"  # deletion is off by default
    assert session_stage(T0, T0 + 730 * day - HOUR, delete) == "archived"
    assert session_stage(T0, T0 + 730 * day + HOUR, delete) == "deleted"


def test_scope_promotion_and_demotion_thresholds():
    p = ScopePolicy()
    assert trust(0, 0) == 0.5 and trust(3, 3) == 0.8 and trust(2, 3) == 0.6
    # new -> user needs trust >= 0.50, usage >= 3, age >= 1 h; each condition just missed keeps it new.
    assert next_scope("new", 0.5, 3, HOUR, p) == "user"
    assert next_scope("new", 0.5, 3, HOUR - timedelta(seconds=1), p) == "new"
    assert next_scope("new", 0.5, 2, 2 * HOUR, p) == "new"
    assert next_scope("new", trust(1, 3), 5, 2 * HOUR, p) == "new"  # 0.4
    # user -> global needs trust >= 0.80, usage >= 10, age >= 24 h; applied to a fixed point from new.
    assert next_scope("new", trust(3, 3), 10, 24 * HOUR, p) == "global"
    assert next_scope("user", trust(3, 3), 10, 24 * HOUR - timedelta(seconds=1), p) == "user"
    assert next_scope("user", trust(3, 3), 9, 48 * HOUR, p) == "user"
    assert next_scope("user", trust(2, 3), 20, 48 * HOUR, p) == "user"  # 0.6 < 0.8
    # Demotions: global below 0.80 -> user; user below 0.50 -> new.
    assert next_scope("global", trust(2, 3), 20, 48 * HOUR, p) == "user"
    assert next_scope("global", trust(3, 3), 20, 48 * HOUR, p) == "global"
    assert next_scope("user", trust(1, 3), 20, 48 * HOUR, p) == "new"
    assert next_scope("global", trust(0, 4), 20, 48 * HOUR, p) == "new"


def test_preference_confidence_tiers():
    p = ExpirationPolicy()
    assert preference_confidence(T0, T0 + timedelta(days=30) - HOUR, p) == 0.9
    assert preference_confidence(T0, T0 + timedelta(days=30) + HOUR, p) == 0.7
    assert preference_confidence(T0, T0 + timedelta(days=90) - HOUR, p) == 0.7
    assert preference_confidence(T0, T0 + timedelta(days=90) + HOUR, p) == 0.5


def test_top_claims_and_reliability_and_origin():
    log = ("#### Iteration 1\n- **memory.search** `hamster` → 2 result(s)\n"
           "  - [Biscuit](../turn_000001/context.md) · context — I adopted a hamster named Biscuit\n"
           "  - [x](y.md) · message — Caroline: Biscuit loves carrots\n"
           "  - [x](y.md) · message — Caroline: Biscuit loves carrots\n")
    assert top_claims(log) == ["I adopted a hamster named Biscuit", "Caroline: Biscuit loves carrots"]
    assert source_reliability(10, 9, 0.8) == pytest.approx(0.7 * 10 / 12 + 0.24, abs=1e-4)
    assert origin_hash("alice") != origin_hash("bob") and "alice" not in origin_hash("alice")


@pytest.mark.parametrize("query,kept,gone", [
    ("How do I manage type 2 diabetes? I'm 45 and live in Seattle",
     "How do I manage type 2 diabetes? I'm [AGE] and live in [LOCATION]", ["45", "Seattle"]),
    ("Best hiking boots under $150, email me at ana.lopez@example.com or call 555-123-4567",
     "Best hiking boots under $150, email me at [EMAIL] or call [PHONE]", ["ana.lopez", "555"]),
    ("My name is Ana Lopez and I need a laptop for video editing",
     "My name is [NAME] and I need a laptop for video editing", ["Ana", "Lopez"]),
    ("What laptop should I buy? My salary is $85,000 and my card 4111 1111 1111 1111",
     "What laptop should I buy? My salary is [FINANCIAL] and my card [FINANCIAL]", ["85,000", "4111"]),
    ("Best restaurants in Paris for a 3 day trip", "Best restaurants in Paris for a 3 day trip", []),
])
def test_pii_scrubbing(query, kept, gone):
    result = scrub(query, known_terms=["Ana Lopez"])
    assert result.text == kept
    assert not any(g in result.text for g in gone)
    assert result.changed == bool(gone)


def test_pii_categories_are_configurable():
    assert "555-123-4567" in scrub("call 555-123-4567 about boots", categories=["emails"]).text
    assert "555-123-4567" not in scrub("call 555-123-4567 about boots", categories=["phones"]).text


def test_a_stored_like_that_names_nothing_is_judged_only_when_panda_wrote_it():
    assert names_no_liked_thing("likes (Jon)", "this quote", "msg_1")
    assert names_no_liked_thing("dislikes", "how you talk", "turn_bob_000002")
    assert names_no_liked_thing("likes", "to hear", "msg_1")
    assert not names_no_liked_thing("likes", "hiking too", "msg_1")  # stored as is; today's extractor drops "too"
    assert not names_no_liked_thing("likes", "to listen to classical music", "msg_1")
    assert not names_no_liked_thing("likes", "this quote", "")  # written by hand: never judged
    assert not names_no_liked_thing("budget", "this month", "msg_1")  # not a like
    assert not names_no_liked_thing(None, "this quote", "msg_1")
