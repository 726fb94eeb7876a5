"""Panda's extraction beside trafilatura alone, per page and on each half of the 40 shared pages (issue 45).

    python benchmarks/boilerplate_folds.py [WEBPAGES_DIR] [--eval-dir TRAFILATURA_TESTS] [--pages]

Each page of ../shared/data/webpages is extracted twice: by trafilatura alone, as its README shows it
(`trafilatura.extract(bytes, url=...)`, default settings), and by `panda.research.extract.extract_page`.
Reported for each half (even and odd positions in the manifest): expected phrases kept, boilerplate
phrases leaked, pages with script text left, for both; with --pages, the pages where they differ.
Panda's rules have no parameter fitted on these pages: they were chosen on trafilatura's own evaluation
set (`--eval-dir` pointing at a checkout's tests/ folder: evaldata.json, eval/, cache/), which the same
report covers in two halves with the 40 shared pages left out, and with what each rule added or lost.
"""

from __future__ import annotations

import argparse
import json
import warnings
from pathlib import Path
from typing import Any

from panda.research.boilerplate import code_like
from panda.research.extract import ExtractionError, extract_page

warnings.filterwarnings("ignore")  # trafilatura's and lxml's parser warnings on broken markup


def _norm(text: str) -> str:
    return " ".join(text.split())


def score(pages: list[dict[str, Any]], texts: list[str]) -> dict[str, Any]:
    expected = sum(len(p["expected"]) for p in pages)
    unexpected = sum(len(p["unexpected"]) for p in pages)
    kept = sum(_norm(x) in _norm(t) for p, t in zip(pages, texts, strict=True) for x in p["expected"])
    leaked = sum(_norm(x) in _norm(t) for p, t in zip(pages, texts, strict=True) for x in p["unexpected"])
    scripts = sum(any(code_like(line) for line in t.splitlines()) for t in texts)
    return {"expected_kept": round(kept / max(1, expected), 3), "boilerplate_leaked": round(leaked / max(1, unexpected), 3),
            "kept": kept, "expected": expected, "leaked": leaked, "unexpected": unexpected, "pages_with_script": scripts}


def trafilatura_alone(raw: bytes, url: str) -> str:
    import trafilatura

    return trafilatura.extract(raw, url=url) or ""


def panda(raw: bytes, url: str) -> str:
    try:
        return extract_page(raw, url).text
    except ExtractionError:
        return ""


def compare(pages: list[dict[str, Any]], label: str, show_pages: bool) -> dict[str, Any]:
    alone = [trafilatura_alone(p["raw"], p["url"]) for p in pages]
    ours = [panda(p["raw"], p["url"]) for p in pages]
    out: dict[str, Any] = {}
    for half, start in (("even", 0), ("odd", 1)):
        idx = range(start, len(pages), 2)
        sel = [pages[i] for i in idx]
        out[f"{label}, {half} half"] = {"trafilatura alone": score(sel, [alone[i] for i in idx]),
                                        "panda": score(sel, [ours[i] for i in idx])}
    diffs = []
    for p, a, o in zip(pages, alone, ours, strict=True):
        lost = [x for x in p["expected"] if _norm(x) in _norm(a) and _norm(x) not in _norm(o)]
        gained = [x for x in p["expected"] if _norm(x) not in _norm(a) and _norm(x) in _norm(o)]
        removed = [x for x in p["unexpected"] if _norm(x) in _norm(a) and _norm(x) not in _norm(o)]
        added = [x for x in p["unexpected"] if _norm(x) not in _norm(a) and _norm(x) in _norm(o)]
        if lost or gained or removed or added:
            diffs.append({"page": p["name"], "lost": lost, "gained": gained, "boilerplate removed": removed,
                          "boilerplate added": added})
    out[f"{label}, against trafilatura alone"] = {
        kind: sum(len(d[kind]) for d in diffs) for kind in ("lost", "gained", "boilerplate removed", "boilerplate added")}
    if show_pages:
        out[f"{label}, pages that differ"] = diffs
    return out


def shared_pages(folder: Path) -> list[dict[str, Any]]:
    manifest = json.loads((folder / "manifest.json").read_text())["pages"]
    return [{"name": p["filename"], "url": p["source_url"], "raw": (folder / p["filename"]).read_bytes(),
             "expected": p["expected_phrases"], "unexpected": p["unexpected_phrases"]} for p in manifest]


def eval_pages(tests: Path, leave_out: set[str]) -> list[dict[str, Any]]:
    data = json.loads((tests / "evaldata.json").read_text())
    pages = []
    for url, item in data.items():
        if item["file"] in leave_out:
            continue
        path = tests / "eval" / item["file"]
        path = path if path.exists() else tests / "cache" / item["file"]
        pages.append({"name": item["file"], "url": url, "raw": path.read_bytes(),
                      "expected": item["with"], "unexpected": item["without"]})
    return pages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("webpages", nargs="?",
                        default=str(Path(__file__).resolve().parents[2] / "shared" / "data" / "webpages"))
    parser.add_argument("--eval-dir", help="trafilatura's tests/ folder (evaldata.json, eval/, cache/)")
    parser.add_argument("--pages", action="store_true", help="list the pages where Panda and trafilatura differ")
    args = parser.parse_args()
    shared = shared_pages(Path(args.webpages))
    out = compare(shared, "40 shared pages", show_pages=True)
    if args.eval_dir:
        others = eval_pages(Path(args.eval_dir), {p["name"] for p in shared})
        out.update(compare(others, f"{len(others)} trafilatura evaluation pages", show_pages=args.pages))
    print(json.dumps(out, indent=2, ensure_ascii=False))


if __name__ == "__main__":
    main()
