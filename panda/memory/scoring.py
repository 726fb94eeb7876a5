"""Relevance scoring for memory.search (pure functions, no I/O).

Seed 001's four factors, weights from the policy (defaults .40/.25/.20/.15):
    base = w_sem*semantic + w_rec*recency + w_freq*frequency + w_veh*vehemence
then Panda's modifiers (DESIGN §6):
    score = base * quality_factor * freshness + topic_bonus*topic_match + fuzzy_bonus*fuzzy_match

Note on the seed: it writes recency as exp(-age/30) and also calls 30 d a "half-life" with 0.5 at
30 days; those disagree (exp(-1) = 0.37). Panda follows the formula the issue fixes, exp(-age/τ),
with τ = recency_half_life_days, so 30 days old scores 0.368.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from difflib import SequenceMatcher

from panda.config import FreshnessPolicy, RetrievalPolicy


def recency_score(age_days: float, tau_days: float = 30.0) -> float:
    """exp(-age/τ). Example: recency_score(0) = 1.0; recency_score(30) = 0.368; recency_score(90) = 0.050."""
    return math.exp(-max(age_days, 0.0) / tau_days)


def frequency_score(reference_count: int, saturation: int = 100) -> float:
    """log(n+1)/log(saturation), capped at 1.

    Example: frequency_score(0) = 0.0; frequency_score(9) = 0.5; frequency_score(99) = 1.0.
    """
    return min(1.0, math.log(max(reference_count, 0) + 1) / math.log(saturation))


def vehemence_score(urgency: float | None, sentiment: float, risk: float,
                    w_urgency: float = 0.5, w_sentiment: float = 0.3, w_risk: float = 0.2,
                    default_urgency: float = 0.3) -> float:
    """urgency*0.5 + |sentiment|*0.3 + risk*0.2.

    Example: vehemence_score(None, 0, 0) = 0.15; vehemence_score(0.9, -0.8, 0.5) = 0.45+0.24+0.10 = 0.79.
    """
    u = default_urgency if urgency is None else urgency
    return min(1.0, u * w_urgency + abs(sentiment) * w_sentiment + risk * w_risk)


def freshness_factor(age_days: float, content_types: list[str], policy: FreshnessPolicy) -> float:
    """Content-type decay: time-sensitive types (prices, stock) halve every 7 d, evergreen every 365 d.

    Example: a 'pricing' document 7 days old -> 0.5; an evergreen one 7 days old -> 0.987.
    """
    sensitive = any(t in policy.time_sensitive_types for t in content_types)
    half_life = policy.time_sensitive_half_life_days if sensitive else policy.evergreen_half_life_days
    return 0.5 ** (max(age_days, 0.0) / half_life)


def topic_matches(query_topic: str | None, doc_topic: str | None) -> bool:
    """Topic hierarchy: 'pet.hamster' matches 'pet.hamster.syrian' (and the reverse), not 'pet.hamsters'.

    Example: topic_matches('pet.hamster', 'pet.hamster.syrian') -> True; topic_matches('pet', 'petrol') -> False.
    """
    if not query_topic or not doc_topic:
        return False
    a, b = query_topic.lower().split("."), doc_topic.lower().split(".")
    shorter, longer = (a, b) if len(a) <= len(b) else (b, a)
    return longer[: len(shorter)] == shorter


def similar_words(a: str, b: str, threshold: float = 0.85) -> bool:
    """SequenceMatcher ratio >= threshold, skipping pairs whose lengths alone rule it out.

    The ratio is 2*matches/(len(a)+len(b)) <= 2*min/(len(a)+len(b)), so 'jessika' (7) vs
    'jessikka' (8) may match (bound 0.933) but 'cat' (3) vs 'catalog' (7) cannot (bound 0.6).
    """
    if 2 * min(len(a), len(b)) / (len(a) + len(b)) < threshold:
        return False
    matcher = SequenceMatcher(None, a, b)
    return matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold and matcher.ratio() >= threshold


def fuzzy_word_match(query_words: list[str], doc_words: list[str], threshold: float = 0.85,
                     exact_max_len: int = 3, memo: dict[tuple[str, str], bool] | None = None) -> float:
    """Share of query words found in the document exactly or at >= 85 % similarity (seed 003).

    Words of <= 3 characters must match exactly. Example: 'jessika' vs 'jessikka' -> ratio 0.933, a
    match; fuzzy_word_match(['jessika', 'cat'], ['jessikka', 'cats']) = 0.5 ('cat' needs an exact match).
    """
    if not query_words:
        return 0.0
    vocabulary = set(doc_words)
    memo = {} if memo is None else memo
    hits = 0
    for word in query_words:
        if word in vocabulary:
            hits += 1
            continue
        if len(word) <= exact_max_len:
            continue
        for other in vocabulary:
            if len(other) <= exact_max_len:
                continue
            key = (word, other)
            if key not in memo:
                memo[key] = similar_words(word, other, threshold)
            if memo[key]:
                hits += 1
                break
    return hits / len(query_words)


@dataclass(frozen=True)
class Factors:
    semantic: float
    recency: float
    frequency: float
    vehemence: float
    quality: float
    freshness: float
    topic_match: bool
    fuzzy: float


def combine(f: Factors, policy: RetrievalPolicy) -> float:
    """Final relevance.

    Example (default weights): semantic 0.92, recency 0.89, frequency 0.2, vehemence 0.7 give
    base = 0.368+0.2225+0.04+0.105 = 0.7355 (seed 001's worked example, 0.74); with quality 1.0,
    freshness 1.0, no topic or fuzzy match the score stays 0.7355; with quality 0.5 it is
    0.7355 * (0.7 + 0.3*0.5) = 0.6252.
    """
    w = policy.weights
    base = w.semantic * f.semantic + w.recency * f.recency + w.frequency * f.frequency + w.vehemence * f.vehemence
    quality_factor = (1 - policy.quality_weight) + policy.quality_weight * f.quality
    score = base * quality_factor * f.freshness
    if f.topic_match:
        score += policy.topic_match_bonus
    return score + policy.fuzzy_match_bonus * f.fuzzy


def semantic_relevance(cosine: float, bm25_normalised: float, lexical_mix: float) -> float:
    """Blend embedding similarity with the keyword leg so exact names count.

    Example: cosine 0.6, bm25 1.0, mix 0.35 -> 0.65*0.6 + 0.35*1.0 = 0.74.
    """
    return (1 - lexical_mix) * max(cosine, 0.0) + lexical_mix * bm25_normalised


def effective_quality(quality: float, trust: float) -> float:
    """Mean of stated quality and validation trust. Example: (0.8, 0.5) -> 0.65."""
    return (quality + trust) / 2
