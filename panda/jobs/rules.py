"""The maintenance jobs' rules as pure functions: thresholds in, decisions out (no I/O).

Every threshold comes from the policy (Meta/Config/memory_config.yaml, seed defaults). Ages are
compared with `>=`: a turn is archived when it *reaches* 30 days (seed 000), a message session is
compressed at 90 days, archived at 365, deleted at 730 (seed 001), a preference is 0.7 from 30 days
and 0.5 from 90 days after it was last confirmed (seed 003). Scope rules (seed 000) are applied to
a fixed point, so one run leaves nothing for the next one to change.
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime, timedelta
from typing import Any

from panda.config import ExpirationPolicy, RetentionPolicy, ScopePolicy
from panda.documents.user_memory import key_attribute
from panda.language.facts import MIN_VALUE_CHARS, preference_value

DAY = timedelta(days=1)


def age_days(created: datetime, now: datetime) -> float:
    return (now - created).total_seconds() / 86400


def turn_due_for_archive(created: datetime, now: datetime, days: int) -> bool:
    """Example: created 2025-01-01, now 2025-01-31 (30 d), days 30 -> True; one hour earlier -> False."""
    return now - created >= timedelta(days=days)


def archive_month(created: datetime) -> str:
    """The archive folder of a turn or session: the month it happened. Example: 2025-11-03 -> '2025-11'."""
    return f"{created.year:04d}-{created.month:02d}"


_RESULT = re.compile(r"^\s*- \[.*?\]\(.*?\) · [\w.-]+ — (.+)$")


def top_claims(tool_log: str, limit: int = 3) -> list[str]:
    """The first `limit` distinct result snippets of a §4 tool log (seed 000's extract_top_claims).

    Example: '  - [Biscuit](x.md) · context — My hamster is Biscuit' -> ['My hamster is Biscuit'].
    """
    out: list[str] = []
    for line in tool_log.splitlines():
        match = _RESULT.match(line)
        if match:
            claim = " ".join(match.group(1).split())
            if claim and claim not in out:
                out.append(claim)
        if len(out) >= limit:
            break
    return out


def turn_summary(meta: dict[str, Any], tool_log: str) -> dict[str, Any]:
    """Seed 000's archival summary: query, intent, outcome, key claims from §4, revision count. No LLM."""
    return {"query": meta.get("query", ""), "intent": meta.get("intent"), "outcome": meta.get("outcome"),
            "key_claims": top_claims(tool_log), "revision_count": int(meta.get("revision_count", 0)),
            "topic": meta.get("topic"), "quality": meta.get("quality_score")}


def session_stage(last_message: datetime, now: datetime, policy: RetentionPolicy) -> str:
    """Which aging stage a session belongs in: fresh, compressed, archived or deleted.

    Example (defaults): 89 d -> 'fresh'; 90 d -> 'compressed'; 365 d -> 'archived'; 730 d -> 'deleted'
    only when deletion is enabled, else 'archived'.
    """
    age = now - last_message
    if policy.deletion_enabled and age >= timedelta(days=policy.deletion_threshold_days):
        return "deleted"
    if age >= timedelta(days=policy.archive_threshold_days):
        return "archived"
    if age >= timedelta(days=policy.compression_threshold_days):
        return "compressed"
    return "fresh"


STAGE_ORDER = {"fresh": 0, "active": 0, "compressed": 1, "archived": 2, "deleted": 3}


def trust(validation_success: int, validation_count: int) -> float:
    """Laplace-smoothed validation success. Example: 0 of 0 -> 0.5; 8 of 8 -> 0.9; 1 of 4 -> 0.333."""
    return (validation_success + 1) / (validation_count + 2)


def next_scope(scope: str, trust_value: float, usage: int, age: timedelta, policy: ScopePolicy) -> str:
    """Seed 000 promotion/demotion, applied until nothing changes.

    new->user: trust >= 0.50, usage >= 3, age >= 1 h; user->global: trust >= 0.80, usage >= 10,
    age >= 24 h; global->user when trust < 0.80; user->new when trust < 0.50. The two directions'
    trust conditions are disjoint, so this always stops.
    Example: ('new', 0.9, 12, 2 days) -> 'global'; ('global', 0.6, 12, 2 days) -> 'user'.
    """
    up_user, up_global = policy.new_to_user, policy.user_to_global
    while True:
        before = scope
        if scope == "new" and trust_value >= up_user.min_trust and usage >= up_user.min_usage \
                and age >= timedelta(hours=up_user.min_age_hours):
            scope = "user"
        elif scope == "user" and trust_value >= up_global.min_trust and usage >= up_global.min_usage \
                and age >= timedelta(hours=up_global.min_age_hours):
            scope = "global"
        elif scope == "global" and trust_value < up_global.min_trust:
            scope = "user"
        elif scope == "user" and trust_value < up_user.min_trust:
            scope = "new"
        if scope == before:
            return scope


def new_document_expired(scope: str, expires_at: datetime | None, now: datetime) -> bool:
    """A NEW document past its TTL (24 h by default) expires; promoted ones never do."""
    return scope == "new" and expires_at is not None and expires_at <= now


def preference_confidence(last_confirmed: datetime, now: datetime, policy: ExpirationPolicy) -> float:
    """Seed 003: 0.9 while recent, 0.7 from 30 days, 0.5 from 90 days after the last confirmation."""
    age = now - last_confirmed
    if age >= 90 * DAY:
        return policy.preference_confidence_90d
    if age >= 30 * DAY:
        return policy.preference_confidence_30d
    return policy.preference_confidence_recent


def names_no_liked_thing(key: str | None, value: str, source: str) -> bool:
    """Whether a stored likes/dislikes entry is one Panda extracted but would refuse today
    (facts.preference_value: "I love this quote" names nothing liked). Lines written by hand carry no source
    and are never judged.

    Example: ('likes (Jon)', 'this quote', 'msg_1') -> True; ('likes', 'hiking too', 'msg_1') -> False;
    ('likes', 'this quote', '') -> False; ('budget', 'this month', 'msg_1') -> False.
    """
    return bool(source) and key_attribute(key) in ("likes", "dislikes") and len(preference_value(value)) < MIN_VALUE_CHARS


def source_reliability(extractions: int, successes: int, mean_confidence: float) -> float:
    """Per-domain reliability: Laplace success rate weighted 0.7, mean extraction confidence 0.3.

    Example: 9 of 10 succeeded with mean confidence 0.8 -> 0.7 * 10/12 + 0.3 * 0.8 = 0.823.
    """
    return round(0.7 * (successes + 1) / (extractions + 2) + 0.3 * mean_confidence, 4)


def origin_hash(user_id: str) -> str:
    """A one-way tag for global notes promoted from a user's memory: no user id is kept, yet deleting
    that user can still find and remove what came from them. Example: origin_hash('alice') -> 'u_…'."""
    return "u_" + hashlib.sha256(f"panda-origin:{user_id}".encode()).hexdigest()[:20]
