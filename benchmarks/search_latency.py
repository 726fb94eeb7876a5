"""memory.search latency at 10k and 100k documents (add 1000000 on the command line for 1M), in two layouts.

- `spread`: the documents belong to 100 users, so one search reads about 1 % of them.
- `one scope`: 99 % are global (one web corpus) and 1 % belong to the 100 users, so one search reads
  99 % of them — the case an approximate vector index (memory/ann.py) exists for.

Documents are composed from real sentences (LoCoMo, LongMemEval and MemoryBank turns in ../shared/data,
embedded once with the real model and cached): each is two random sentences, its vector the normalised
weighted sum of theirs (catalog/synthetic.py). Words follow real text and vectors cluster
as real embeddings do; random uniform vectors would be the worst case for any ANN and unlike any
embedding model's output. Queries are QUERIES distinct LoCoMo questions, each asked as one of the users, so
every query pays its own embedding (200 since stop 31: a p95 over 60 was their 3rd slowest, and one-off
stalls early in a run moved it by 10 ms between runs; p99 and the slowest are printed beside it); the
timed path is memory.search itself (query embedding, BM25 leg,
vector leg, candidate rows, ranking, current facts first). The first search builds the in-memory index
(index_build_s). `ann_recall@10`: the vector leg's top 10 against an exact scan of the same rows, over
the last 200 questions (LoCoMo conv-47/48; the ANN's settings were chosen with questions of conv-26/30).
`--sql` times the catalog's SQL candidate legs instead of the index. `machine`: the speed of this machine at
the end of the run (machine_speed), since the same code measured on the same machine has differed by half
between days. Prints JSON.
`--embedder NAME` (default: the product's default, EmbeddingGemma) and `--dim N` (a Matryoshka truncation) pick the
embedding model whose vectors and queries are timed.
Usage: python benchmarks/search_latency.py [--sql] [--embedder gemma|minilm] [--dim N] [SIZE ...]
"""

from __future__ import annotations

import hashlib
import json
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import numpy as np

from panda.catalog.filters import SearchFilters
from panda.catalog.store import Catalog
from panda.catalog.synthetic import load_synthetic_documents
from panda.config import Policy
from panda.documents.vault import Vault
from panda.memory import compute_threads
from panda.memory.embeddings import SentenceEmbedder
from panda.memory.index import SearchIndex
from panda.memory.search import MemoryStore, SearchRequest

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
CACHE = Path.home() / ".cache" / "panda" / "benchmarks"
LAYOUTS = {"spread": 0.0, "one scope": 0.99}
QUERIES = 200  # timed searches per size and layout (LoCoMo's first questions; ANN recall reads the last 200)


def real_sentences() -> tuple[list[str], list[str]]:
    """Conversation turns (first 400 characters) and LoCoMo questions from ../shared/data."""
    texts: list[str] = []
    questions: list[str] = []
    for conv in json.loads((DATA / "locomo" / "locomo_conv0-7.json").read_text()):
        for key, value in conv["conversation"].items():
            if key.startswith("session_") and isinstance(value, list):
                texts += [t["text"] for t in value if t.get("text")]
        questions += [q["question"] for q in conv["qa"]]
    for item in json.loads((DATA / "longmemeval" / "longmemeval_oracle_subset60.json").read_text()):
        texts += [t["content"] for s in item["haystack_sessions"] for t in s if t.get("content")]
    for person in json.loads((DATA / "memorybank" / "memory_bank_en.json").read_text()).values():
        for day in person["history"].values():
            texts += [t[k] for t in day for k in ("query", "response") if t.get(k)]
    return list(dict.fromkeys(t[:400] for t in texts)), list(dict.fromkeys(questions))


def embedded(texts: list[str], embedder: SentenceEmbedder) -> np.ndarray:
    # The model's identity is part of the key: vectors from an earlier default embedder would not match
    # the queries the current one embeds.
    key = hashlib.sha256("\n".join([embedder.identity, *texts]).encode()).hexdigest()[:16]
    path = CACHE / f"sentences-{key}.npy"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        np.save(path, np.asarray(embedder.embed(texts), dtype=np.float32))
    return np.load(path)


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def ann_recall(index: SearchIndex, embedder: SentenceEmbedder, questions: list[str]) -> float | None:
    """The vector leg's top 10 through the index as built, against the same leg with every partition scanned."""
    if not any(p.ann for p in index.parts.values()):
        return None
    hits = 0
    for i, question in enumerate(questions):
        vector = embedder.embed_query(question)
        filters = SearchFilters(user_id=f"user{i % 100}")
        approx = {d for d, _ in index.vectors(vector, filters, 10)[:10]}
        saved = {k: p.ann for k, p in index.parts.items()}
        for p in index.parts.values():
            p.ann = None
        exact = {d for d, _ in index.vectors(vector, filters, 10)[:10]}
        for k, ann in saved.items():
            index.parts[k].ann = ann
        hits += len(approx & exact)
    return round(hits / (10 * len(questions)), 4)


def measure(size: int, layout: str, sentences: list[str], vectors: np.ndarray, questions: list[str],
            embedder: SentenceEmbedder, sql: bool = False) -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        catalog = Catalog(home / "catalog" / "panda.duckdb")
        started = time.perf_counter()
        load_synthetic_documents(catalog, size, sentences, vectors, global_share=LAYOUTS[layout])
        build_s = time.perf_counter() - started
        policy = Policy.model_validate({"retrieval": {"in_memory_index": not sql}})
        store = MemoryStore(Vault(home), catalog, embedder, policy)
        t0 = time.perf_counter()
        store.search(SearchRequest("warm up", user_id="user1", record=False))
        index_s = time.perf_counter() - t0
        timings = []
        for i, question in enumerate(questions[:QUERIES]):
            t0 = time.perf_counter()
            store.search(SearchRequest(question, user_id=f"user{i % 100}", record=False))
            timings.append((time.perf_counter() - t0) * 1000)
        recall = None if store.search_index is None else ann_recall(store.search_index, embedder, questions[-200:])
        catalog.close()
    visible = size * LAYOUTS[layout] + size * (1 - LAYOUTS[layout]) / 100
    return {"documents": size, "layout": layout, "visible_per_search": int(visible),
            "candidates": "sql" if sql else "in-memory index", "build_s": round(build_s, 1),
            "index_build_s": round(index_s, 1), "p50_ms": round(statistics.median(timings), 1),
            "p95_ms": round(percentile(timings, 95), 1), "p99_ms": round(percentile(timings, 99), 1),
            "max_ms": round(max(timings), 1), "queries": len(timings), "ann_recall@10": recall}


def machine_speed(embedder: SentenceEmbedder, questions: list[str]) -> dict[str, float]:
    """Two figures to compare runs on machines (or days) of different speed: one query's embedding alone
    (p50 over 40 questions not asked in the timed runs) and a one-thread matrix-vector product over 200,000
    x 64 float32 (the shape of the numpy coarse scan the approximate index read until stop 32; kept so runs compare)."""
    embedder.embed_query("warm up")
    timings = []
    for question in questions[QUERIES:QUERIES + 40]:
        t0 = time.perf_counter()
        embedder.embed_query(question)
        timings.append((time.perf_counter() - t0) * 1000)
    matrix, vector = np.ones((200_000, 64), dtype=np.float32), np.ones(64, dtype=np.float32)
    scans = []
    with compute_threads.single_blas():
        for _ in range(20):
            t0 = time.perf_counter()
            matrix @ vector
            scans.append((time.perf_counter() - t0) * 1000)
    return {"query_embedding_p50_ms": round(statistics.median(timings), 1),
            "scan_200k_x_64_p50_ms": round(statistics.median(scans), 2)}


def main() -> None:
    import argparse

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("sizes", nargs="*", type=int, default=[10_000, 100_000])
    parser.add_argument("--sql", action="store_true")
    parser.add_argument("--embedder", default=None)
    parser.add_argument("--dim", type=int, default=None)
    parser.add_argument("--layouts", default=",".join(LAYOUTS), help="comma-separated: spread, one scope")
    args = parser.parse_args()
    sql, sizes = args.sql, args.sizes
    embedder = SentenceEmbedder(args.embedder, dim=args.dim)
    sentences, questions = real_sentences()
    vectors = embedded(sentences, embedder)
    results = [measure(size, layout, sentences, vectors, questions, embedder, sql)
               for size in sizes for layout in args.layouts.split(",")]
    print(json.dumps({"benchmark": "memory.search", "embedder": embedder.identity, "sentences": len(sentences),
                      "machine": machine_speed(embedder, questions), "results": results}, indent=2))


if __name__ == "__main__":
    main()
