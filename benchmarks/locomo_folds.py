"""LoCoMo evidence recall under the 2-fold discipline (issue 12): halves of the eight conversations.

Half A = conv-26, conv-30, conv-41, conv-42; half B = conv-43, conv-44, conv-47, conv-48. A retrieval
change is chosen on one half and reported on the other, then the other way round; this prints, for each
half, recall@1/5/10/25 by category, the categories 1-4 headline (question-weighted) and the plain BM25
baseline, so both folds and their mean can be read off one run. Runs `panda eval locomo --retrieval-only`
in-process (a temporary home per run; nothing is tuned here).
Usage: python benchmarks/locomo_folds.py [LOCOMO_JSON]   (the default policy; ~5 min on 2 cores)
"""

from __future__ import annotations

import json
import sys
import tempfile
from pathlib import Path

from panda.config import Settings
from panda.evaluation.baseline import bm25_recall
from panda.evaluation.locomo import load_samples
from panda.evaluation.runner import LOADERS, run_eval, summarise

HALVES = {"A": ["conv-26", "conv-30", "conv-41", "conv-42"], "B": ["conv-43", "conv-44", "conv-47", "conv-48"]}
KS = [1, 5, 10, 25]


def main() -> None:
    args = sys.argv[1:]
    path = Path(args[0]) if args else Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_conv0-7.json"
    load_samples(path, None)  # a clear error on a bad file before any work
    out = {}
    with tempfile.TemporaryDirectory() as home:
        settings = Settings(home=Path(home))
        for half, convs in HALVES.items():
            run = run_eval("locomo", path, ks=KS, retrieval_only=True, settings=settings, backend=None, only=convs,
                           work_dir=Path(home))
            metrics = summarise(run["items"], KS, {})
            bench = LOADERS["locomo"](path, convs, None)
            out[half] = {"conversations": convs, "questions": metrics["items"],
                         **{f"recall@{k}_cat1_4": metrics[f"recall@{k}_cat1_4"] for k in KS},
                         "recall_by_category": {metrics["category_names"][c]: v
                                                for c, v in metrics["recall_by_category"].items()},
                         "bm25_baseline": bm25_recall(bench.messages, bench.questions, KS),
                         "seconds": run["metrics"]["seconds"]}
    out["mean_recall@10_cat1_4"] = round((out["A"]["recall@10_cat1_4"] + out["B"]["recall@10_cat1_4"]) / 2, 4)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
