"""research.search's relevance floor, chosen on one half of the web pages and reported on the other.

Ingests ../shared/data/webpages into a temporary home (the real corpus path: trafilatura, embeddings,
catalog), then asks one question per page (benchmarks/data/webpage_queries.json, written for Panda) and
ten questions no page answers. For each search the candidate pages carry their raw query-page cosine
(SearchResult.factors['cosine']). A floor keeps a page when its cosine ≥ floor. Fold A chooses the floor
on pages 0-19 (even filenames sorted) and reports pages 20-39; fold B swaps. The choice rule: the
highest floor that still keeps the answering page of every tuning question, one step (0.05) lower
for margin (a floor must not cost answers; Page Intelligence still judges what passes it). Reported per report half:
kept-right rate, wrong pages kept per question, unanswered questions with any page kept.
Usage: python benchmarks/relevance_floor.py [WEBPAGES_DIR]
"""

from __future__ import annotations

import json
import sys
import tempfile
from datetime import UTC, datetime
from pathlib import Path

from panda.config import Settings
from panda.memory.search import SearchRequest
from panda.research.corpus import ingest_corpus, page_id, read_manifest
from panda.runtime import open_home

HERE = Path(__file__).parent
FLOORS = [round(0.05 * i, 2) for i in range(0, 13)]


def searches(webpages: Path) -> tuple[dict[str, list[tuple[bool, float]]], list[list[float]]]:
    """Per answerable page: (is the answering page, cosine) of every candidate; per unanswered: cosines."""
    spec = json.loads((HERE / "data" / "webpage_queries.json").read_text())
    urls = read_manifest(webpages)
    with tempfile.TemporaryDirectory() as home:
        ctx = open_home(Settings(home=Path(home)))
        now = datetime.now(UTC)
        ingest_corpus(ctx, webpages, now)
        answerable: dict[str, list[tuple[bool, float]]] = {}
        for filename, question in spec["pages"].items():
            target = page_id(urls[filename])
            found = ctx.memory.search(SearchRequest(question, kinds=["webpage"], limit=10, now=now, record=False))
            answerable[filename] = [(r.id == target, r.factors["cosine"]) for r in found]
        unanswered = [[r.factors["cosine"] for r in ctx.memory.search(SearchRequest(q, kinds=["webpage"], limit=10, now=now,
                                                                      record=False))]
                      for q in spec["unanswered"]]
        ctx.catalog.close()
    return answerable, unanswered


def measure(rows: dict[str, list[tuple[bool, float]]], unanswered: list[list[float]], floor: float) -> dict[str, float]:
    kept_right = sum(any(right and c >= floor for right, c in hits) for hits in rows.values()) / len(rows)
    wrong = sum(sum(1 for right, c in hits if not right and c >= floor) for hits in rows.values()) / len(rows)
    noise = sum(any(c >= floor for c in hits) for hits in unanswered) / max(1, len(unanswered))
    return {"floor": floor, "kept_right": round(kept_right, 3), "wrong_kept_per_question": round(wrong, 2),
            "unanswered_with_pages": round(noise, 2)}


def choose(rows: dict[str, list[tuple[bool, float]]], unanswered: list[list[float]]) -> float:
    ok = [f for f in FLOORS if measure(rows, unanswered, f)["kept_right"] >= 1.0]
    return round(max(max(ok) - 0.05, 0.0), 2) if ok else 0.0


def main() -> None:
    webpages = Path(sys.argv[1]) if len(sys.argv) > 1 else HERE.parent.parent / "shared" / "data" / "webpages"
    answerable, unanswered = searches(webpages)
    names = sorted(answerable)
    halves = {"A": set(names[0::2]), "B": set(names[1::2])}
    folds = {}
    for tune, report in (("A", "B"), ("B", "A")):
        tune_rows = {k: v for k, v in answerable.items() if k in halves[tune]}
        report_rows = {k: v for k, v in answerable.items() if k in halves[report]}
        # the unanswered questions are split the same way: first five tune fold A, last five fold B
        tune_un, report_un = (unanswered[:5], unanswered[5:]) if tune == "A" else (unanswered[5:], unanswered[:5])
        floor = choose(tune_rows, tune_un)
        folds[f"tune {tune} / report {report}"] = {"chosen_floor": floor, "tuning": measure(tune_rows, tune_un, floor),
                                                   "report": measure(report_rows, report_un, floor)}
    curve = [measure(answerable, unanswered, f) for f in FLOORS]
    print(json.dumps({"folds": folds, "all_pages_curve": curve}, indent=2))


if __name__ == "__main__":
    main()
