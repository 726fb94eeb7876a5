"""Approximate nearest neighbours for one large partition of the search index: faiss IVF-PQ, fast scan.

memory/index.py scores every row of the searcher's partitions exactly. That is fast while a scope is
small, but one scope can hold a million rows (a global web corpus, one heavy user), and an exact scan
of 1M x 384 float32 reads 1.5 GB per query. A partition with at least `ann_min_rows` rows (policy)
gets this index instead (faiss `IndexIVFPQFastScan`):

- **Lists.** k-means over a sample (40 rows a list) puts every row in one of about `list_factor` x
  sqrt(n) lists; a query scans the rows of its `probes` nearest lists.
- **Codes.** A row is scanned as a product-quantisation code of `subvectors` 4-bit sub-codes (96 for
  384 dimensions: 48 bytes a row, against 1,536 for the vector), compared through SIMD lookup tables:
  ~1.5 ms for the 200k rows a 1M partition probes, where the numpy scan over 128 principal components it
  replaced took ~6 ms (stop 32).
- **Exact re-ranking.** The best `rerank` codes are scored again with their full vectors; the scores the
  search returns are exact cosines.

Filters apply inside the scan (a bitmap of the rows that pass, faiss `IDSelectorBitmap`), so a filtered
search does not lose its rows to unfiltered neighbours; when a filter leaves fewer rows than asked for
among the probed lists, the caller falls back to the exact scan. benchmarks/search_latency.py reports
this index's recall@10 against the exact scan next to its latency.

Built from the partition's vectors whenever the partition is (re)loaded from the catalog, like the rest
of the index: on every core while it is built, on the calling thread alone while it searches.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

import numpy as np

SAMPLE_PER_LIST = 40  # k-means runs over this many sampled rows per list
SEED = 1234


@dataclass(frozen=True)
class AnnSettings:
    min_rows: int = 50_000
    list_factor: float = 2.0  # lists: this many x sqrt(rows)
    probe_share: float = 0.2  # of the lists, at least 8
    probe_rows: int = 0  # and at least enough lists to hold this many rows (a smaller partition probes a larger share)
    subvectors: int = 96  # 4-bit sub-codes a row: the largest divisor of the dimension not above this
    rerank: int = 1000  # rows re-scored exactly, at least 4 x the limit


def subvector_count(dim: int, wanted: int) -> int:
    """The largest divisor of `dim` not above `wanted` (product quantisation splits a vector evenly).
    Example: 384 dimensions, 96 wanted -> 96 sub-vectors of 4 dimensions; 100 wanted -> 96 too."""
    return max(m for m in range(1, min(dim, max(1, wanted)) + 1) if dim % m == 0)


class InvertedFileIndex:
    def __init__(self, vectors: np.ndarray, usable: np.ndarray, settings: AnnSettings, seed: int = SEED) -> None:
        """`vectors`: unit rows (n, d); `usable`: rows that have a vector (others are never returned)."""
        import faiss  # only a process with a large partition pays its import

        self.settings = settings
        self.rows = np.flatnonzero(usable)  # the partition rows the index holds (faiss ids)
        dim = vectors.shape[1]
        count = max(1, min(self.rows.size, round(settings.list_factor * math.sqrt(self.rows.size))))
        index = faiss.IndexIVFPQFastScan(faiss.IndexFlatIP(dim), dim, count, subvector_count(dim, settings.subvectors),
                                         4, faiss.METRIC_INNER_PRODUCT)
        index.cp.seed = seed
        index.cp.min_points_per_centroid = 1  # a small partition (tests) trains on what it has, without a warning
        index.pq.cp.min_points_per_centroid = 1
        rng = np.random.default_rng(seed)
        sample = self.rows[np.sort(rng.choice(self.rows.size, size=min(SAMPLE_PER_LIST * count, self.rows.size),
                                              replace=False))]
        index.train(np.ascontiguousarray(vectors[sample], dtype=np.float32))
        index.add_with_ids(np.ascontiguousarray(vectors[self.rows], dtype=np.float32), self.rows.astype(np.int64))
        self.index: Any = index

    @property
    def lists(self) -> int:
        return int(self.index.nlist)

    def probes(self) -> int:
        """Lists a query scans: `probe_share` of them, at least 8, and at least as many as hold `probe_rows`
        rows on average. Example: 100,000 rows in 632 lists, share 0.2, probe_rows 60,000 -> 380 lists."""
        by_rows = math.ceil(self.settings.probe_rows * self.lists / max(1, self.rows.size))
        return min(self.lists, max(8, math.ceil(self.lists * self.settings.probe_share), by_rows))

    def search(self, vectors: np.ndarray, query: np.ndarray, limit: int,
               allowed: np.ndarray | None) -> tuple[np.ndarray, np.ndarray] | None:
        """Rows and exact cosines of the best candidates among the probed lists, or None when the filter
        (`allowed`: one bool a partition row; None: no filter) leaves fewer than `limit` rows there (the
        caller scans exactly)."""
        import faiss

        params = faiss.SearchParametersIVF()
        params.nprobe = self.probes()
        if allowed is not None:
            bits = np.packbits(allowed, bitorder="little")  # kept alive until the search returns
            params.sel = faiss.IDSelectorBitmap(allowed.size, faiss.swig_ptr(bits))
        with _one_thread():
            _, found = self.index.search(np.asarray(query, dtype=np.float32)[None, :],
                                         max(self.settings.rerank, 4 * limit), params=params)
        rows = found[0][found[0] >= 0]
        if rows.size < limit:
            return None
        return rows, vectors[rows] @ query


@contextmanager
def _one_thread() -> Iterator[None]:
    """faiss's OpenMP on the calling thread alone (one query: a pool would only hand work about); the
    setting is the calling thread's, so a build elsewhere keeps every core."""
    import faiss

    before = faiss.omp_get_max_threads()
    faiss.omp_set_num_threads(1)
    try:
        yield
    finally:
        faiss.omp_set_num_threads(before)
