"""Relevance scoring for memory.search (pure functions, no I/O).

Seed 001's four factors, weights from the policy (defaults .40/.25/.20/.15), with the semantic
factor r = the candidate's hybrid relevance (BM25 and cosine, normalised within the candidates, best = 1):
    seed = w_sem*r + w_rec*recency + w_freq*frequency + w_veh*vehemence
    score = r² * seed * quality_factor * freshness + r * (topic_bonus*topic_match + fuzzy_bonus*fuzzy)

Why r² in front (a departure from the seed's plain sum): added as the seed writes it, recency alone
swings a score by 0.25 over a few months, more than semantic similarity ever spreads between a match
and a miss, so old evidence lost to any recent chatter (LoCoMo conv-26: recall@10 0.25, against 0.59
for plain BM25). Seed 003 puts it the right way round — recency breaks ties "when relevance is
equal" — and gating by relevance does exactly that: recency, frequency and vehemence still reorder
documents of similar relevance but cannot lift an irrelevant one (conv-26 recall@10: 0.66).

Note on the seed: it writes recency as exp(-age/30) and also calls 30 d a "half-life" with 0.5 at
30 days; those disagree (exp(-1) = 0.37). Panda follows the formula the issue fixes, exp(-age/τ),
with τ = recency_half_life_days, so 30 days old scores 0.368.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from datetime import datetime, timedelta
from difflib import SequenceMatcher
from functools import lru_cache

import numpy as np

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


@lru_cache(maxsize=65536)
def _char_mask(word: str) -> int:
    """The set of a word's characters as bits. Example: _char_mask('aba') == _char_mask('ab')."""
    mask = 0
    for ch in word:
        mask |= 1 << (ord(ch) % 64)
    return mask


def _char_masks(words: list[str], lengths: np.ndarray) -> np.ndarray:
    """_char_mask of every word (none empty), over all their characters at once when they are ASCII.
    Example: _char_masks(['ab', 'c'], np.array([2, 1])) -> [2**33 + 2**34, 2**35] (a=97, b=98, c=99; mod 64)."""
    joined = "".join(words)
    if not joined.isascii():
        return np.fromiter(map(_char_mask, words), dtype=np.uint64, count=len(words))
    codes = np.frombuffer(joined.encode("ascii"), dtype=np.uint8) % 64
    bits = np.left_shift(np.uint64(1), codes.astype(np.uint64))
    return np.bitwise_or.reduceat(bits, np.r_[0, np.cumsum(lengths)[:-1]])


def similar_words(a: str, b: str, threshold: float = 0.85) -> bool:
    """SequenceMatcher ratio >= threshold, skipping pairs whose lengths alone rule it out.

    The ratio is 2*matches/(len(a)+len(b)) <= 2*min/(len(a)+len(b)), so 'jessika' (7) vs
    'jessikka' (8) may match (bound 0.933) but 'cat' (3) vs 'catalog' (7) cannot (bound 0.6).
    """
    if 2 * min(len(a), len(b)) / (len(a) + len(b)) < threshold:
        return False
    # A character in one word and not the other is never matched, and at most (1 - threshold) * (n + m)
    # characters may go unmatched: a cheap exact filter before SequenceMatcher.
    if (_char_mask(a) ^ _char_mask(b)).bit_count() > (1 - threshold) * (len(a) + len(b)):
        return False
    matcher = SequenceMatcher(None, a, b)
    return matcher.real_quick_ratio() >= threshold and matcher.quick_ratio() >= threshold and matcher.ratio() >= threshold


_NONE: frozenset[str] = frozenset()


class FuzzyWords:
    """Seed 003's fuzzy match for one search: which query words a document holds exactly or at >= 85 %
    similarity. Each (query word, document word) pair is compared once per search, however many
    candidates share the word: the per-document work is set operations."""

    def __init__(self, threshold: float = 0.85, exact_max_len: int = 3) -> None:
        self.threshold, self.exact_max_len = threshold, exact_max_len
        self.similar: dict[str, set[str]] = {}  # query word -> document words it matches
        self.checked: dict[str, set[str]] = {}  # query word -> document words compared with it
        self.complete: set[str] = set()  # query words compared with every word `share` will be asked about
        self.accepted: dict[str, frozenset[str]] = {}  # query word -> itself and its similar words (share's cache)

    def prepare(self, query_words: list[str], vocabulary: set[str], complete: bool = False) -> None:
        """Compare every query word with every word of `vocabulary` it has not met yet (a search passes all
        its candidates' words at once): the length and character-set bounds of similar_words run
        vectorised, SequenceMatcher only on the pairs that pass them. `complete`: the vocabulary holds
        every document word later `share` calls will pass, so they need not check (a search's ranking)."""
        t, short = self.threshold, self.exact_max_len
        self.accepted.clear()  # `similar` may grow
        if complete:
            self.complete.update(query_words)
        todo = {}
        for word in set(query_words):
            checked = self.checked.setdefault(word, set())
            self.similar.setdefault(word, set())
            new = vocabulary - checked if checked else vocabulary  # the same set for every fresh word: one union below
            checked |= new
            if len(word) > short and new:
                todo[word] = new
        if not todo:
            return
        fresh = [w for w in set().union(*{id(new): new for new in todo.values()}.values()) if len(w) > short]
        if not fresh:
            return
        index: dict[str, int] = {}
        lengths = np.fromiter(map(len, fresh), dtype=np.int64, count=len(fresh))
        masks = _char_masks(fresh, lengths)
        for word, new in todo.items():
            n = len(word)
            total = lengths + n
            ok = (2 * np.minimum(lengths, n) >= t * total) & \
                (np.bitwise_count(masks ^ np.uint64(_char_mask(word))) <= (1 - t) * total)
            if len(new) < len(fresh):  # only the words this query word has not met
                index = index or {w: i for i, w in enumerate(fresh)}
                member = np.zeros(len(fresh), dtype=bool)
                member[[index[w] for w in new if w in index]] = True
                ok &= member
            self.similar[word].update(fresh[i] for i in np.flatnonzero(ok)
                                      if fresh[i] != word and similar_words(word, fresh[i], t))

    def share(self, query_words: list[str], doc_words: list[str]) -> float:
        """Share of query words found in the document exactly or at >= threshold similarity; words of
        <= exact_max_len characters must match exactly."""
        if not query_words:
            return 0.0
        vocabulary = set(doc_words)
        if not self.complete.issuperset(query_words):
            unseen = [w for w in query_words if w not in self.complete and not vocabulary <= self.checked.get(w, set())]
            if unseen:
                self.prepare(unseen, vocabulary)
        accepted = self.accepted
        hits = 0
        for word in query_words:
            if (words := accepted.get(word)) is None:
                words = accepted[word] = frozenset({word, *self.similar.get(word, _NONE)})
            if not words.isdisjoint(vocabulary):
                hits += 1
        return hits / len(query_words)


def fuzzy_word_match(query_words: list[str], doc_words: list[str], threshold: float = 0.85,
                     exact_max_len: int = 3, matcher: FuzzyWords | None = None) -> float:
    """Share of query words found in the document exactly or at >= 85 % similarity (seed 003).

    Words of <= 3 characters must match exactly. Example: 'jessika' vs 'jessikka' -> ratio 0.933, a
    match; fuzzy_word_match(['jessika', 'cat'], ['jessikka', 'cats']) = 0.5 ('cat' needs an exact match).
    """
    return (matcher or FuzzyWords(threshold, exact_max_len)).share(query_words, doc_words)


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


def seed_score(f: Factors, policy: RetrievalPolicy) -> float:
    """Seed 001's weighted sum.

    Example (default weights): semantic 0.92, recency 0.89, frequency 0.2, vehemence 0.7 ->
    0.368 + 0.2225 + 0.04 + 0.105 = 0.7355 (seed 001's worked example, "0.76" there by rounding).
    """
    w = policy.weights
    return w.semantic * f.semantic + w.recency * f.recency + w.frequency * f.frequency + w.vehemence * f.vehemence


def combine(f: Factors, policy: RetrievalPolicy) -> float:
    """Final score: relevance first, the seed score (with quality, freshness, topic and fuzzy modifiers)
    inside policy.relevance_band: r + band * (seed * quality_factor * freshness + bonus).

    Why a band (stop 24): seed 003 says recency breaks ties "when relevance is equal"; multiplied in (the
    r²-gated form below), the seed factors still reordered documents whose relevance clearly differed and
    cost LoCoMo evidence recall@10 (product search, base embedder, categories 1-4): band 0.1 chosen on
    half A (0.7759 -> 0.7833) gave half B 0.7783 -> 0.7895; chosen on B (0.05) gave A 0.7833.
    Example (default policy, band 0.1): the seed example above (r 0.92, seed 0.7355) with quality 1,
    freshness 1 and no bonus -> 0.92 + 0.1 * 0.7355 = 0.99355; with quality 0.5 -> 0.92 + 0.1 * 0.7355 *
    0.85 = 0.98252; an old exact match (r 1, seed 0.4225) still beats a fresh half match (r 0.9, seed 1).
    With relevance_band None: r² * seed * quality_factor * freshness + r * bonus (0.92² * 0.7355 = 0.6225).
    """
    quality_factor = (1 - policy.quality_weight) + policy.quality_weight * f.quality
    r = max(0.0, min(1.0, f.semantic))
    bonus = (policy.topic_match_bonus if f.topic_match else 0.0) + policy.fuzzy_match_bonus * f.fuzzy
    if policy.relevance_band is None:
        return r * r * seed_score(f, policy) * quality_factor * f.freshness + r * bonus
    return r + policy.relevance_band * (seed_score(f, policy) * quality_factor * f.freshness + bonus)


# Settings that depend on the embedder, their values with the base model; a tuned model records its own.
DEFAULT_LEXICAL_MIX = 0.65  # BM25's share of relevance (LoCoMo, stop 20)
DEFAULT_SPEAKER_WEIGHT = 1.0  # the named speaker's lift (memory/conversation_signals.py)
DEFAULT_RELEVANCE_FLOOR = 0.25  # research.relevance_floor for an embedder that chose none (MiniLM's)


def chosen(policy_value: float | None, embedder_value: float | None, base_default: float) -> float:
    """An embedder-dependent retrieval setting (lexical mix, speaker weight, web pages' relevance floor): the policy's
    if set, else the embedder's own (a tuned model records the values chosen with it; a profile its floor), else the
    base model's default.
    Example: (None, 0.3, 0.65) -> 0.3; (0.5, 0.3, 0.65) -> 0.5; (None, None, 0.65) -> 0.65."""
    for value in (policy_value, embedder_value):
        if value is not None:
            return float(value)
    return base_default


def relevance(bm25: dict[str, float], cosine: dict[str, float], lexical_mix: float) -> dict[str, float]:
    """Hybrid relevance of every candidate, best = 1: mix * bm25/max + (1-mix) * min-max(cosine).

    Example: bm25 {a: 4, b: 2}, cosine {a: 0.5, b: 0.7, c: 0.3}, mix 0.5 ->
    raw a = 0.5*1 + 0.5*0.5 = 0.75, b = 0.5*0.5 + 0.5*1 = 0.75, c = 0 -> {a: 1.0, b: 1.0, c: 0.0}.
    """
    ids = set(bm25) | set(cosine)
    top = max(bm25.values(), default=0.0) or 1.0
    values = [cosine.get(i, 0.0) for i in ids]
    lo, hi = min(values, default=0.0), max(values, default=0.0)
    span = (hi - lo) or 1.0
    raw = {i: lexical_mix * bm25.get(i, 0.0) / top + (1 - lexical_mix) * (cosine.get(i, 0.0) - lo) / span for i in ids}
    best = max(raw.values(), default=0.0) or 1.0
    return {i: v / best for i, v in raw.items()}


def rescaled(values: dict[str, float]) -> dict[str, float]:
    """Divide by the largest so the best is 1 again. Example: {a: 2.0, b: 0.5} -> {a: 1.0, b: 0.25}."""
    best = max(values.values(), default=0.0) or 1.0
    return {k: v / best for k, v in values.items()}


TOPIC, TAG, NAME, OTHER = 0, 1, 2, 3  # seed 003's search priority, best first


def priority_tier(topic_match: bool, query_words: list[str], keywords: list[str], title_words: list[str],
                  threshold: float = 0.85, matcher: FuzzyWords | None = None) -> int:
    """Seed 003: topic match > tag match > fuzzy name match (85 %) > recency.

    Example: priority_tier(False, ['hamster', 'cage'], ['hamster'], ['care']) -> TAG (1);
    priority_tier(False, ['jessika'], [], ['jessikka', 'notes']) -> NAME (2); topic match -> TOPIC (0).
    """
    return priority_tiers([topic_match], query_words, [keywords], [title_words], threshold, matcher)[0]


def priority_tiers(topic_matches: list[bool], query_words: list[str], keywords: list[list[str]],
                   title_words: list[list[str]], threshold: float = 0.85, matcher: FuzzyWords | None = None) -> list[int]:
    """priority_tier of each result of one search (the query's words are sorted out once)."""
    # words of 4+ letters on both sides, so fuzzy_word_match's exact-only short words never count here
    long_words = [w for w in query_words if len(w) > 3]
    matcher = matcher or FuzzyWords(threshold, 3)
    tiers = []
    for topic_match, tags, title in zip(topic_matches, keywords, title_words, strict=True):
        if topic_match:
            tiers.append(TOPIC)
        elif tags and not {k.lower() for k in tags}.isdisjoint(query_words):
            tiers.append(TAG)
        elif long_words and matcher.share(long_words, [w for w in title if len(w) > 3]) > 0:
            tiers.append(NAME)
        else:
            tiers.append(OTHER)
    return tiers


def order_by_priority(scores: list[float], tiers: list[int], band: float) -> list[int]:
    """Indexes in seed 003 priority order among results of comparable relevance (pure).

    Results are walked best score first; a band holds the results within `band` (a fraction) of the
    band's best score, and inside a band the better tier comes first, then the higher score. Bands
    keep clearly more relevant results ahead whatever their tier.

    Worked example (band 0.10): scores [0.50, 0.47, 0.46, 0.30], tiers [OTHER, NAME, TAG, TOPIC] ->
    band 1 = {0.50, 0.47, 0.46} (all ≥ 0.45) ordered TAG 0.46, NAME 0.47, OTHER 0.50; band 2 = {0.30}:
    [2, 1, 0, 3] — the topic match at 0.30 is not comparable and stays last.
    """
    order = sorted(range(len(scores)), key=lambda i: -scores[i])
    out: list[int] = []
    start = 0
    while start < len(order):
        floor = scores[order[start]] * (1 - band)
        end = start
        while end < len(order) and scores[order[end]] >= floor:
            end += 1
        out += sorted(order[start:end], key=lambda i: (tiers[i], -scores[i]))
        start = end
    return out


def effective_quality(quality: float, trust: float) -> float:
    """Mean of stated quality and validation trust. Example: (0.8, 0.5) -> 0.65."""
    return (quality + trust) / 2


TIME_RANGES = {"today": 1.0, "week": 7.0, "recent": 30.0, "month": 31.0, "all": None}  # seed 001, in days


def time_range_start(time_range: str | None, now: datetime) -> datetime | None:
    """Seed 001's context time_range as the earliest creation time a result may have.

    Example: ('week', 2026-03-10) -> 2026-03-03; ('recent', now) -> now - 30 days; ('all' or None) -> None.
    """
    if time_range and time_range not in TIME_RANGES:
        raise ValueError(f"time_range must be one of {', '.join(TIME_RANGES)}, got {time_range!r}")
    days = TIME_RANGES.get(time_range or "all")
    return None if days is None else now - timedelta(days=days)
