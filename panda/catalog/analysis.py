"""Read-only catalog queries behind the memory-quality notebooks (rows as dicts; frames are built in
panda/evaluation/analysis.py)."""

from __future__ import annotations

from typing import Any

from panda.catalog.store import Catalog


def documents_quality(catalog: Catalog) -> list[dict[str, Any]]:
    return catalog._dicts("""
        SELECT kind, scope, quality, (validation_success + 1.0) / (validation_count + 2.0) AS trust,
               usage_count, reference_count FROM documents""")


def scope_counts(catalog: Catalog) -> list[dict[str, Any]]:
    return catalog._dicts("SELECT scope, kind, count(*) AS documents FROM documents GROUP BY 1, 2 ORDER BY 1, 2")


def outcomes_by_day(catalog: Catalog) -> list[dict[str, Any]]:
    return catalog._dicts("""
        SELECT CAST(created_at AS DATE) AS day, validation_outcome AS outcome, count(*) AS turns
        FROM turn_index GROUP BY 1, 2 ORDER BY 1, 2""")


def llm_by_phase(catalog: Catalog) -> list[dict[str, Any]]:
    return catalog._dicts("""
        SELECT phase, count(*) AS calls, sum(prompt_tokens) AS prompt_tokens, sum(completion_tokens) AS completion_tokens,
               avg(latency_ms) AS avg_latency_ms, quantile_cont(latency_ms, 0.95) AS p95_latency_ms
        FROM llm_calls GROUP BY 1 ORDER BY 1""")


def eval_runs(catalog: Catalog) -> list[dict[str, Any]]:
    return catalog._dicts("SELECT run_id, dataset, mode, started_at, items, metrics FROM eval_runs ORDER BY started_at")
