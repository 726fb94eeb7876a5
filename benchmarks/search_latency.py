"""memory.search latency at 10k and 100k documents (add 1000000 on the command line for 1M).

Builds a fresh catalog per size with synthetic documents (vocabulary words, random embeddings, 100
users), then times memory.search — the real code path: query embedding, BM25 leg, vector leg,
candidate rows, ranking — for 60 distinct queries, each as one of the users (so every query pays its
own embedding). The first search builds the in-memory index; its time is reported as index_build_s.
`--sql` times the catalog's SQL candidate legs instead of the index. Prints JSON.
Usage: python benchmarks/search_latency.py [--sql] [SIZE ...]
"""

from __future__ import annotations

import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

from panda.catalog.store import Catalog
from panda.config import Policy
from panda.documents.vault import Vault
from panda.memory.embeddings import SentenceEmbedder
from panda.memory.search import MemoryStore
from panda.memory.text import tokenize

WORDS = """hamster laptop budget hiking boston denver cage food gaming travel coffee garden piano guitar
painting marathon recipe vegan python database kitchen wedding sister brother daughter school teacher doctor
dentist insurance mortgage salary vacation beach mountain camping fishing soccer basketball novel poetry movie
concert museum camera phone tablet monitor keyboard charger battery bicycle train flight hotel passport visa
allergy vitamin yoga pilates swimming tennis chess puzzle podcast newsletter startup investor meeting deadline
project report budget invoice receipt holiday birthday anniversary puppy kitten parrot turtle aquarium""".split()
QUERIES = ["what food does my hamster like", "laptop budget for gaming", "hiking near denver",
           "my sister's wedding plans", "python database project deadline", "vacation beach hotel"]


def percentile(values: list[float], p: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))]


def measure(size: int, embedder: SentenceEmbedder, sql: bool = False) -> dict[str, object]:
    vocabulary = sorted({w for w in WORDS if tokenize(w) == [w]})
    with tempfile.TemporaryDirectory() as tmp:
        home = Path(tmp)
        catalog = Catalog(home / "catalog" / "panda.duckdb")
        started = time.perf_counter()
        catalog.load_synthetic_documents(size, vocabulary)
        build_s = time.perf_counter() - started
        policy = Policy.model_validate({"retrieval": {"in_memory_index": not sql}})
        store = MemoryStore(Vault(home), catalog, embedder, policy)
        t0 = time.perf_counter()
        store.search("warm up", user_id="user1", record=False)
        index_s = time.perf_counter() - t0
        timings = []
        for i in range(60):
            query = f"{QUERIES[i % len(QUERIES)]} {vocabulary[(7 * i) % len(vocabulary)]}"  # 60 distinct texts
            t0 = time.perf_counter()
            store.search(query, user_id=f"user{i % 100}", record=False)
            timings.append((time.perf_counter() - t0) * 1000)
        catalog.close()
    return {"documents": size, "candidates": "sql" if sql else "in-memory index", "build_s": round(build_s, 1),
            "index_build_s": round(index_s, 1), "p50_ms": round(statistics.median(timings), 1),
            "p95_ms": round(percentile(timings, 95), 1), "queries": len(timings)}


def main() -> None:
    sql = "--sql" in sys.argv
    sizes = [int(a) for a in sys.argv[1:] if a != "--sql"] or [10_000, 100_000]
    embedder = SentenceEmbedder()
    results = [measure(size, embedder, sql) for size in sizes]
    print(json.dumps({"benchmark": "memory.search", "results": results}, indent=2))


if __name__ == "__main__":
    main()
