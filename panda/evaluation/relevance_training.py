"""Labelled searches for the learned relevance (memory/relevance_model.py): what search sees, and the answer.

For each benchmark question with evidence, the candidates a default search of the asker's memory ranks
(MemoryStore.candidates, the same pool as `panda eval` searching 25 deep) become one feature matrix
(relevance_model.features, with the store's mix and signal weights) and one 0/1 vector: is the
candidate an evidence turn. The home must hold the benchmark's messages, embedded by an embedder that
never saw the conversations asked about (benchmarks/relevance_model_folds.py arranges that).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from panda.catalog.conversations import Conversations
from panda.catalog.filters import SearchFilters
from panda.evaluation.runner import Question
from panda.memory import relevance_model
from panda.memory.search import MemoryStore, signal_weights

EVAL_DEPTH = 25  # `panda eval` searches this deep (its largest k); the candidate pool follows from it


@dataclass
class LabelledSearch:
    conversation: str
    category: int | None
    features: np.ndarray  # candidates × relevance_model.FEATURES
    labels: np.ndarray  # 1.0 where the candidate is an evidence turn
    evidence: int  # how many distinct evidence turns the question has (found among the candidates or not)


def labelled_searches(memory: MemoryStore, conversations: Conversations,
                      questions: list[Question]) -> list[LabelledSearch]:
    """One LabelledSearch per question with evidence."""
    policy = memory.policy
    pool = memory.pool_size(EVAL_DEPTH)
    weights, mix = signal_weights(policy, memory.speaker_weight()), memory.lexical_mix()
    out = []
    for q in questions:
        if not q.evidence:
            continue
        filters = SearchFilters(user_id=q.user_id, include_expired=policy.search.include_expired, now=q.asked_at)
        rows, lexical, _ = memory.candidates(q.question, filters, pool, q.user_id)
        evidence = set(q.evidence)
        found = conversations.external_ids([row["id"] for row in rows])
        matrix = relevance_model.features(rows, lexical, q.question, q.asked_at, mix, weights)
        out.append(LabelledSearch(q.user_id, q.locomo_category, matrix, np.array([float(e in evidence) for e in found]),
                                  len(evidence)))
    return out


def recall_at(searches: list[LabelledSearch], scores: list[np.ndarray], k: int = 10,
              categories: tuple[int, ...] = (1, 2, 3, 4)) -> float:
    """Question-weighted evidence recall@k over `categories` when each search's candidates are ordered by its
    scores (best first, ties in candidate order). Example: evidence 2, one of them in the top k -> 0.5."""
    values = []
    for search, score in zip(searches, scores, strict=True):
        if search.category not in categories:
            continue
        top = np.argsort(-score, kind="stable")[:k]
        values.append(float(search.labels[top].sum()) / search.evidence)
    return float(np.mean(values)) if values else 0.0
