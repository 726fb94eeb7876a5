"""Approximate nearest neighbours for one large partition of the search index: inverted lists (IVF).

memory/index.py scores every row of the searcher's partitions exactly. That is fast while a scope is
small, but one scope can hold a million rows (a global web corpus, one heavy user), and an exact scan
of 1M x 384 float32 reads 1.5 GB per query. A partition with at least `ann_min_rows` rows (policy)
gets this index instead:

- **Lists.** Spherical k-means (cosine) over a sample (40 rows a list) puts every row in one of about
  `list_factor` x sqrt(n) lists;
  the rows are stored list by list, so a list is one contiguous slice.
- **Coarse scan.** The rows are also kept projected onto their top principal components (`dims`,
  from the same sample): a query scores the rows of its `probes` nearest lists in that space, which
  reads a quarter of the bytes.
- **Two steps.** The coarse scan reads the first half of the components for every probed row, then
  adds the second half for the best `refine` rows only: the leading components carry most of the
  variance, and the scan is bound by the bytes it reads (128 components read whole: 8 ms at 1M;
  this way about as fast as 64, with 128's recall).
- **Exact re-ranking.** The best `rerank` rows of the coarse scan are scored again with their full
  vectors; the scores the search returns are exact cosines.

Filters apply to the scanned rows before the coarse cut (memory/index.py passes them in), so a
filtered search does not lose its rows to unfiltered neighbours; when a filter leaves fewer rows than
asked for among the probed lists, the caller falls back to the exact scan. benchmarks/search_latency.py
reports this index's recall@10 against the exact scan next to its latency.

Built with numpy alone, from the partition's vectors, whenever the partition is (re)loaded from the
catalog, like the rest of the index.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

SAMPLE_PER_LIST = 40  # k-means runs over this many sampled rows per list
BASIS_SAMPLE_ROWS = 40_000  # the principal components come from this many of them
ITERATIONS = 5
CHUNK = 65_536


@dataclass(frozen=True)
class AnnSettings:
    min_rows: int = 50_000
    list_factor: float = 2.0  # lists: this many x sqrt(rows)
    probe_share: float = 0.2  # of the lists, at least 8
    probe_rows: int = 0  # and at least enough lists to hold this many rows (a smaller partition probes a larger share)
    dims: int = 128  # principal components of the coarse scan
    rerank: int = 1500  # rows re-scored exactly, at least 4 x the limit
    refine: int = 16_000  # rows whose second half of components is added before the re-ranking cut


class InvertedFileIndex:
    def __init__(self, vectors: np.ndarray, usable: np.ndarray, settings: AnnSettings, seed: int = 0) -> None:
        """`vectors`: unit rows (n, d); `usable`: rows that have a vector (others are never returned)."""
        self.settings = settings
        rows = np.flatnonzero(usable)
        rng = np.random.default_rng(seed)
        count = max(1, min(rows.size, round(settings.list_factor * math.sqrt(rows.size))))
        sample = vectors[rng.choice(rows, size=min(SAMPLE_PER_LIST * count, rows.size), replace=False)]
        self.mean = sample.mean(axis=0)
        dims = min(settings.dims, vectors.shape[1])
        basis_sample = sample[: BASIS_SAMPLE_ROWS] - self.mean  # the sample is already in random order
        _, _, vt = np.linalg.svd(basis_sample, full_matrices=False)
        self.basis = np.ascontiguousarray(vt[:dims].T.astype(np.float32))  # (d, dims)
        self.centroids = _spherical_kmeans(sample, count, rng)
        lists = _nearest(vectors[rows], self.centroids)
        order = np.argsort(lists, kind="stable")
        self.rows = rows[order]  # list-order position -> partition row
        counts = np.bincount(lists, minlength=len(self.centroids))
        self.bounds = np.r_[0, np.cumsum(counts)]
        coarse = ((vectors[self.rows] - self.mean) @ self.basis).astype(np.float32)
        self.head = max(1, dims // 2)
        self.coarse_head = np.ascontiguousarray(coarse[:, : self.head])
        self.coarse_tail = np.ascontiguousarray(coarse[:, self.head:])

    @property
    def lists(self) -> int:
        return len(self.centroids)

    def probes(self) -> int:
        """Lists a query scans: `probe_share` of them, at least 8, and at least as many as hold `probe_rows`
        rows on average. Example: 100,000 rows in 632 lists, share 0.2, probe_rows 60,000 -> 380 lists."""
        by_rows = math.ceil(self.settings.probe_rows * self.lists / max(1, self.rows.size))
        return min(self.lists, max(8, math.ceil(self.lists * self.settings.probe_share), by_rows))

    def search(self, vectors: np.ndarray, query: np.ndarray, limit: int,
               allowed: Callable[[np.ndarray], np.ndarray] | None) -> tuple[np.ndarray, np.ndarray] | None:
        """Rows and exact cosines of the best candidates among the probed lists, or None when the filter
        (`allowed`: partition rows -> bool mask; None: no filter) leaves fewer than `limit` rows there
        (scan exactly)."""
        nearest = np.argsort(-(self.centroids @ query))[: self.probes()]
        q = query @ self.basis  # v.q = mean.q + (v - mean).q, and mean.q is the same for every row
        q_head, q_tail = q[: self.head], q[self.head:]
        spans = [(lo, hi) for lo, hi in zip(self.bounds[nearest].tolist(), self.bounds[nearest + 1].tolist(), strict=True)
                 if hi > lo]
        if not spans:
            return None
        scores = np.concatenate([self.coarse_head[lo:hi] @ q_head for lo, hi in spans])
        # Entry i of `scores` is list-order position starts[k] + i - offsets[k], k the span holding it:
        # positions are worked out for the entries that survive a cut, not for every probed row.
        starts = np.array([lo for lo, _ in spans], dtype=np.int64)
        offsets = np.cumsum([0] + [hi - lo for lo, hi in spans[:-1]], dtype=np.int64)

        def positions_of(entries: np.ndarray) -> np.ndarray:
            k = np.searchsorted(offsets, entries, side="right") - 1
            return starts[k] + entries - offsets[k]

        positions: np.ndarray | None = None
        if allowed is not None:
            positions = positions_of(np.arange(scores.size))
            keep = allowed(self.rows[positions])
            positions, scores = positions[keep], scores[keep]
        if scores.size < limit:
            return None
        refine = max(self.settings.refine, 4 * self.settings.rerank, 16 * limit)
        if scores.size > refine and q_tail.size:
            top = _about_best(scores, refine)
            positions, scores = (positions_of(top) if positions is None else positions[top]), scores[top]
        elif positions is None:
            positions = positions_of(np.arange(scores.size))
        if q_tail.size:
            scores = scores + self.coarse_tail[positions] @ q_tail
        cut = max(self.settings.rerank, 4 * limit)
        if positions.size > cut:
            top = np.argpartition(-scores, cut)[:cut]
            positions = positions[top]
        rows = self.rows[positions]
        return rows, vectors[rows] @ query


def _about_best(scores: np.ndarray, count: int) -> np.ndarray:
    """Indices (ascending) of about the `count` best of `scores` (more than `count` of them): those at least the
    (count / stride)-th best of every stride-th score. One pass over the scores instead of a partition of them
    (at 200,000 probed rows: ~0.5 ms against ~2.5). Example: 1,000,000 scores, count 16,000 -> stride 16, the
    1,000th best of 62,500 sampled scores as the cut, ~16,000 +- 500 indices."""
    stride = max(1, min(16, count // 1000))
    if stride == 1:
        return np.sort(np.argpartition(-scores, count)[:count])
    sample = scores[::stride]
    kth = sample.size - count // stride
    return np.flatnonzero(scores >= np.partition(sample, kth)[kth])


def _nearest(vectors: np.ndarray, centroids: np.ndarray) -> np.ndarray:
    out = np.empty(len(vectors), dtype=np.int64)
    for start in range(0, len(vectors), CHUNK):
        out[start:start + CHUNK] = np.argmax(vectors[start:start + CHUNK] @ centroids.T, axis=1)
    return out


def _spherical_kmeans(sample: np.ndarray, k: int, rng: np.random.Generator) -> np.ndarray:
    """k unit centroids; an empty list takes a random sample row instead."""
    k = min(k, len(sample))
    centroids = sample[rng.choice(len(sample), size=k, replace=False)].copy()
    for _ in range(ITERATIONS):
        assign = _nearest(sample, centroids)
        counts = np.bincount(assign, minlength=k)
        order = np.argsort(assign, kind="stable")
        filled = np.flatnonzero(counts)
        sums = np.zeros_like(centroids)
        sums[filled] = np.add.reduceat(sample[order], np.r_[0, np.cumsum(counts)][filled], axis=0)
        empty = counts == 0
        sums[empty] = sample[rng.choice(len(sample), size=int(empty.sum()))]
        centroids = sums / np.maximum(np.linalg.norm(sums, axis=1, keepdims=True), 1e-12)
    return centroids.astype(np.float32)
