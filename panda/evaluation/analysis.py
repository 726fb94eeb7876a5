"""Memory-quality analysis as Polars frames, for notebooks (they import these; they never re-implement them).

Each function reads the catalog (DuckDB) through panda/catalog/analysis.py or the validated eval
tables, and returns a Polars DataFrame ready to plot. `vault_sizes` walks the home's folders (active
turns, archive, conversations) so archive and compression effects can be seen in bytes.
"""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl

from panda.catalog import analysis as q
from panda.catalog.store import Catalog
from panda.evaluation.results import load_items


def _frame(rows: list[dict[str, object]], columns: list[str]) -> pl.DataFrame:
    return pl.DataFrame(rows) if rows else pl.DataFrame({c: [] for c in columns})


def latest_run_id(catalog: Catalog, dataset: str | None = None) -> str | None:
    runs = [r for r in q.eval_runs(catalog) if dataset is None or r["dataset"] == dataset]
    return runs[-1]["run_id"] if runs else None


def recall_by_category(catalog: Catalog, run_id: str) -> pl.DataFrame:
    """Long format: category, k, recall (mean over the run's questions with evidence)."""
    items = load_items(catalog, run_id)
    rows = []
    for category, recall in zip(items["category"].to_list(), items["recall"].to_list(), strict=True):
        for k, value in json.loads(recall).items():
            rows.append({"category": category, "k": int(k), "recall": float(value)})
    frame = _frame(rows, ["category", "k", "recall"])
    if frame.is_empty():
        return frame
    return frame.group_by(["category", "k"]).agg(pl.col("recall").mean()).sort(["category", "k"])


def f1_by_category(catalog: Catalog, run_id: str) -> pl.DataFrame:
    items = load_items(catalog, run_id).filter(pl.col("f1").is_not_null())
    return items.group_by("category").agg(pl.col("f1").mean(), pl.col("em").mean(), pl.len().alias("questions")).sort("category")


def trust_and_quality(catalog: Catalog) -> pl.DataFrame:
    return _frame(q.documents_quality(catalog), ["kind", "scope", "quality", "trust", "usage_count", "reference_count"])


def scope_funnel(catalog: Catalog) -> pl.DataFrame:
    frame = _frame(q.scope_counts(catalog), ["scope", "kind", "documents"])
    if frame.is_empty():
        return pl.DataFrame({"scope": ["new", "user", "global"], "documents": [0, 0, 0]})
    totals = frame.group_by("scope").agg(pl.col("documents").sum())
    order = pl.DataFrame({"scope": ["new", "user", "global"]})
    return order.join(totals, on="scope", how="left").fill_null(0)


def outcomes_over_time(catalog: Catalog) -> pl.DataFrame:
    return _frame(q.outcomes_by_day(catalog), ["day", "outcome", "turns"])


def llm_cost_by_phase(catalog: Catalog) -> pl.DataFrame:
    return _frame(q.llm_by_phase(catalog), ["phase", "calls", "prompt_tokens", "completion_tokens", "avg_latency_ms",
                                            "p95_latency_ms"])


def vault_sizes(home: Path) -> pl.DataFrame:
    """Bytes and files per area of the vault: active turns, archive, conversations, knowledge, catalog."""
    areas = {"turns": "users/*/turns", "conversations": "users/*/threads", "archive": "archive",
             "knowledge": "Knowledge", "catalog": "catalog"}
    rows = []
    for area, pattern in areas.items():
        files = [p for root in home.glob(pattern) for p in root.rglob("*") if p.is_file()]
        rows.append({"area": area, "files": len(files), "bytes": sum(p.stat().st_size for p in files)})
    return pl.DataFrame(rows)
