"""Boilerplate removal chosen on one half of the web pages and reported on the other (issue 12).

Each of the 40 pages in ../shared/data/webpages is extracted once by trafilatura, keeping links, and the
candidate filters of panda/research/extract.py are applied to that markdown with their parameters.
Fold A chooses the parameters on the pages with even positions in the manifest and reports on the odd
ones; fold B swaps. The choice rule: the fewest leaked boilerplate phrases with at least 95 % of the
expected phrases kept on the tuning half; ties go to the gentler setting (more text kept).
Reported per report half: expected phrases kept, boilerplate phrases leaked, pages with inline script
left in the text. Also the plain trafilatura baseline and the phrase list Panda used before.
Usage: python benchmarks/boilerplate_folds.py [WEBPAGES_DIR]
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path
from typing import Any

from panda.research.extract import (
    LINK_DENSITY,
    StructuralFilter,
    code_like,
    markdown_to_text,
    raw_markdown,
    structural_clean,
)

LINK_DENSITIES = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8]
MIN_LINKED_WORDS = [2, 4, 8]


def _norm(text: str) -> str:
    return " ".join(text.split())


def score(pages: list[dict[str, Any]], texts: list[str]) -> dict[str, Any]:
    expected = sum(len(p["expected_phrases"]) for p in pages)
    unexpected = sum(len(p["unexpected_phrases"]) for p in pages)
    kept = sum(_norm(x) in _norm(t) for p, t in zip(pages, texts, strict=True) for x in p["expected_phrases"])
    leaked = sum(_norm(x) in _norm(t) for p, t in zip(pages, texts, strict=True) for x in p["unexpected_phrases"])
    scripts = sum(any(code_like(line) for line in t.splitlines()) for t in texts)
    return {"expected_kept": round(kept / expected, 3), "boilerplate_leaked": round(leaked / unexpected, 3),
            "kept": kept, "expected": expected, "leaked": leaked, "unexpected": unexpected, "pages_with_script": scripts}


def texts_for(raws: list[str], config: StructuralFilter | None) -> list[str]:
    if config is None:  # trafilatura alone
        return [markdown_to_text(r) for r in raws]
    return [markdown_to_text(structural_clean(r, config)) for r in raws]


def choose(pages: list[dict[str, Any]], raws: list[str]) -> StructuralFilter:
    best: tuple[Any, ...] | None = None
    chosen = StructuralFilter()
    for density, linked in itertools.product(LINK_DENSITIES, MIN_LINKED_WORDS):
        config = StructuralFilter(link_density=density, min_linked_words=linked)
        s = score(pages, texts_for(raws, config))
        if s["expected_kept"] < 0.95:
            continue
        key = (s["leaked"], -s["kept"], -density, linked)
        if best is None or key < best:
            best, chosen = key, config
    return chosen


def main() -> None:
    folder = Path(sys.argv[1]) if len(sys.argv) > 1 else Path(__file__).resolve().parents[2] / "shared" / "data" / "webpages"
    manifest = json.loads((folder / "manifest.json").read_text())["pages"]
    raws = [raw_markdown((folder / p["filename"]).read_bytes(), p["source_url"]) for p in manifest]
    halves = {"even": list(range(0, len(manifest), 2)), "odd": list(range(1, len(manifest), 2))}
    out: dict[str, Any] = {"default": {"link_density": LINK_DENSITY}}
    for tune, report in (("even", "odd"), ("odd", "even")):
        tp, tr = [manifest[i] for i in halves[tune]], [raws[i] for i in halves[tune]]
        rp, rr = [manifest[i] for i in halves[report]], [raws[i] for i in halves[report]]
        config = choose(tp, tr)
        out[f"tune {tune} -> report {report}"] = {
            "chosen": {"link_density": config.link_density, "min_linked_words": config.min_linked_words},
            "tuning half": score(tp, texts_for(tr, config)),
            "report half": score(rp, texts_for(rr, config)),
            "report half, trafilatura alone": score(rp, texts_for(rr, None)),
        }
    out["all 40, the shipped default"] = score(manifest, texts_for(raws, StructuralFilter()))
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
