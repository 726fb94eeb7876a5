"""Catalog SQL for evaluation results: eval_runs and eval_items (pandera checks live in evaluation/results.py)."""

from __future__ import annotations

import json
from typing import Any

from panda.catalog.store import Catalog

ITEM_COLUMNS = ("run_id", "item_id", "conversation", "category", "question", "gold", "prediction", "f1", "em",
                "abstention_expected", "abstained", "recall", "context_tokens", "latency_ms", "judge_label",
                "judge_reason")


class EvalTables:
    def __init__(self, catalog: Catalog) -> None:
        self.catalog = catalog
        self.con = catalog.con

    def save_run(self, run: dict[str, Any], items: list[dict[str, Any]]) -> None:
        with self.catalog.transaction():
            self.con.execute("DELETE FROM eval_items WHERE run_id = ?", [run["run_id"]])
            self.con.execute("DELETE FROM eval_runs WHERE run_id = ?", [run["run_id"]])
            self.con.execute(
                "INSERT INTO eval_runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                [run["run_id"], run["dataset"], run["source"], run["mode"], run["backend"], run["model"],
                 run["started_at"], run["finished_at"], run["items"], json.dumps(run["metrics"])])
            if items:
                self.con.executemany(
                    f"INSERT INTO eval_items ({', '.join(ITEM_COLUMNS)}) VALUES ({', '.join('?' for _ in ITEM_COLUMNS)})",
                    [[item.get(c) for c in ITEM_COLUMNS] for item in items])

    def runs(self, dataset: str | None = None) -> list[dict[str, Any]]:
        sql = "SELECT * FROM eval_runs" + (" WHERE dataset = ?" if dataset else "") + " ORDER BY started_at"
        return self.catalog._dicts(sql, [dataset] if dataset else [])

    def items(self, run_id: str) -> list[dict[str, Any]]:
        return self.catalog._dicts(f"SELECT {', '.join(ITEM_COLUMNS)} FROM eval_items WHERE run_id = ? ORDER BY item_id",
                                   [run_id])
