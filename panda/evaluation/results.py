"""Evaluation results as Polars frames, validated with pandera on the way into and out of the catalog.

A run's items must satisfy `ITEM_SCHEMA` before they are stored and again when they are read back,
so a notebook comparing runs over time can trust every row (scores within [0, 1], known columns,
recall as a JSON map of k -> value).
"""

from __future__ import annotations

import json
from typing import Any

import pandera.polars as pa
import polars as pl

from panda.catalog.evaluation import ITEM_COLUMNS, EvalTables
from panda.catalog.store import Catalog


def _recall_map(series: pl.Series) -> bool:
    for value in series.to_list():
        data = json.loads(value)
        if not all(k.isdigit() and 0.0 <= float(v) <= 1.0 for k, v in data.items()):
            return False
    return True


ITEM_SCHEMA = pa.DataFrameSchema(
    {
        "run_id": pa.Column(pl.Utf8, nullable=False),
        "item_id": pa.Column(pl.Utf8, nullable=False, unique=True),
        "conversation": pa.Column(pl.Utf8),
        "category": pa.Column(pl.Utf8),
        "question": pa.Column(pl.Utf8, nullable=False),
        "gold": pa.Column(pl.Utf8, nullable=True),
        "prediction": pa.Column(pl.Utf8, nullable=True),
        "f1": pa.Column(pl.Float64, pa.Check.in_range(0.0, 1.0), nullable=True),
        "em": pa.Column(pl.Float64, pa.Check.isin([0.0, 1.0]), nullable=True),
        "abstention_expected": pa.Column(pl.Boolean),
        "abstained": pa.Column(pl.Boolean, nullable=True),
        "recall": pa.Column(pl.Utf8, pa.Check(lambda data: _recall_map(data.lazyframe.collect()[data.key]),
                                              element_wise=False)),
        "context_tokens": pa.Column(pl.Int64, pa.Check.ge(0), nullable=True),
        "latency_ms": pa.Column(pl.Float64, pa.Check.ge(0.0), nullable=True),
        "judge_label": pa.Column(pl.Utf8, pa.Check.isin(["CORRECT", "WRONG"]), nullable=True),
        "judge_reason": pa.Column(pl.Utf8, nullable=True),
    },
    strict=True,
)

_DTYPES: dict[str, Any] = {"f1": pl.Float64, "em": pl.Float64, "context_tokens": pl.Int64, "latency_ms": pl.Float64,
                           "abstention_expected": pl.Boolean, "abstained": pl.Boolean}


def items_frame(items: list[dict[str, Any]]) -> pl.DataFrame:
    columns = {c: [item.get(c) for item in items] for c in ITEM_COLUMNS}
    return pl.DataFrame({c: pl.Series(c, v, dtype=_DTYPES.get(c, pl.Utf8)) for c, v in columns.items()})


def store_run(catalog: Catalog, run: dict[str, Any], items: list[dict[str, Any]]) -> pl.DataFrame:
    """Validate, then store a run and its items. Raises pandera's SchemaError on a bad row."""
    frame = ITEM_SCHEMA.validate(items_frame(items))
    EvalTables(catalog).save_run(run, frame.to_dicts())
    return frame


def load_items(catalog: Catalog, run_id: str) -> pl.DataFrame:
    """A stored run's items, validated again on the way out."""
    return ITEM_SCHEMA.validate(items_frame(EvalTables(catalog).items(run_id)))
