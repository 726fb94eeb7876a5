"""The plain BM25 baseline printed beside every retrieval evaluation (pure, no catalog).

Each question is searched with Okapi BM25 (k1 1.2, b 0.75) over the raw messages of its own
conversation — one document per message, no context window, no embeddings, no ranking factors — so
the figure says what Panda's retrieval adds over the simplest thing that works.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from collections.abc import Sequence
from typing import Any, Protocol

from panda.language.metrics import recall_at_k
from panda.language.text import tokenize


class _Message(Protocol):
    @property
    def user_id(self) -> str: ...
    @property
    def content(self) -> str: ...
    @property
    def external_id(self) -> str | None: ...


class _Question(Protocol):
    @property
    def user_id(self) -> str: ...
    @property
    def question(self) -> str: ...
    @property
    def evidence(self) -> list[str]: ...
    @property
    def category(self) -> str: ...


def bm25_rank(query: list[str], docs: list[Counter[str]], k1: float = 1.2, b: float = 0.75) -> list[int]:
    """Document indexes by BM25 score, best first (ties by index); documents without a query term last.

    Example: bm25_rank(['cat'], [Counter({'dog': 1}), Counter({'cat': 2})]) -> [1, 0].
    """
    n = len(docs)
    avgdl = (sum(sum(d.values()) for d in docs) / n) if n else 1.0
    df = Counter(term for d in docs for term in set(d))
    scores = []
    for d in docs:
        length = sum(d.values())
        score = 0.0
        for term in set(query):
            tf = d.get(term, 0)
            if tf:
                idf = math.log(1 + (n - df[term] + 0.5) / (df[term] + 0.5))
                score += idf * tf * (k1 + 1) / (tf + k1 * (1 - b + b * length / (avgdl or 1.0)))
        scores.append(score)
    return sorted(range(n), key=lambda i: (-scores[i], i))


def bm25_recall(messages: Sequence[_Message], questions: Sequence[_Question], ks: list[int]) -> dict[str, Any]:
    """recall@k of BM25 over raw messages, overall and over LoCoMo categories 1-4 (question-weighted)."""
    by_user: dict[str, list[_Message]] = defaultdict(list)
    for m in messages:
        if m.external_id:
            by_user[m.user_id].append(m)
    docs = {u: [Counter(tokenize(m.content)) for m in ms] for u, ms in by_user.items()}
    rows = []
    for q in questions:
        if not q.evidence or q.user_id not in docs:
            continue
        order = bm25_rank(tokenize(q.question), docs[q.user_id])
        retrieved = [by_user[q.user_id][i].external_id for i in order[:max(ks)]]
        rows.append((q.category, {k: recall_at_k(retrieved, q.evidence, k) for k in ks}))
    out: dict[str, Any] = {}
    for k in ks:
        values = [r[k] for _, r in rows]
        out[f"recall@{k}"] = round(sum(values) / len(values), 4) if values else None
        core = [r[k] for c, r in rows if c in ("1", "2", "3", "4")]
        if core:
            out[f"recall@{k}_cat1_4"] = round(sum(core) / len(core), 4)
    return out
