"""In-memory candidate index for memory.search: per-owner partitions of postings and unit vectors.

The catalog stays the source (and `panda reindex` rebuilds it from the vault); this index is a cache
of it in numpy, built lazily on the first search and refreshed partition by partition when the
catalog reports which owners' documents changed. A search as a user touches two partitions — the
user's own documents and the global ones — instead of scanning every row, which is what keeps
memory.search fast at a million documents (DuckDB's full-scan cosine + postings join measured
p95 360 ms there). Results are the catalog's, exactly: the same Okapi BM25 (document frequency,
N and average length over all documents), the same cosine, the same filters (SearchFilters), the
same tie order (score, then id); a test compares both paths.

One exception, by design: a partition of at least `ann_min_rows` rows (a global web corpus, one heavy
user) answers the vector leg from an approximate index (memory/ann.py) instead of scanning every row;
its scores are still exact cosines, and benchmarks/search_latency.py measures its recall against the
exact scan. BM25's filters are evaluated only on the matched rows; the vector leg's over the visible
partitions (the approximate index takes them as a bitmap), each distinct session, topic and content-type
list tested once (`_Partition.values_pass`). (BM25 over each term's
highest-impact postings only was tried and dropped: at 1M it saved ~1 ms of p95 and agreed with the
exact top 60 on 94 % of rows.)
"""

from __future__ import annotations

import functools
import math
from collections import Counter
from collections.abc import Callable
from concurrent.futures import Executor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

import numpy as np

from panda.catalog import index_source
from panda.catalog.filters import GLOBAL_PARTITION as GLOBAL
from panda.catalog.filters import NO_OWNER_PARTITION as NOBODY
from panda.catalog.filters import SearchFilters
from panda.catalog.store import Catalog
from panda.memory import compute_threads
from panda.memory.ann import AnnSettings, InvertedFileIndex


@dataclass
class _Partition:
    ids: np.ndarray  # object
    kind: np.ndarray
    scope: np.ndarray
    session: np.ndarray
    topic: np.ndarray
    ctypes: list[tuple[str, ...]]
    keywords: list[tuple[str, ...]]
    quality: np.ndarray  # float64
    expires: np.ndarray  # epoch seconds, +inf when none
    invalid: np.ndarray
    length: np.ndarray  # float64 doc length
    vectors: np.ndarray  # float32 (n, d), unit rows; zero rows where there is no embedding
    has_vector: np.ndarray  # bool
    title: np.ndarray
    doc_path: np.ndarray
    text: np.ndarray  # search_text (head), for ranking and snippets
    importance: np.ndarray
    created: np.ndarray  # epoch seconds, nan when none
    position: np.ndarray  # turn_number (a message's place in its session), -1 when none
    counters: dict[str, np.ndarray]  # reference_count, usage_count, validation_count, validation_success
    postings: dict[str, tuple[np.ndarray, np.ndarray]] = field(default_factory=dict)  # term -> (rows, tf)
    row_of: dict[str, int] = field(default_factory=dict)
    ann: InvertedFileIndex | None = None  # large partitions only
    is_note: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=bool))  # notes never expire from search
    # The earliest expires/invalid time of the partition: before it, the time filters let every row through.
    first_expiry: float = math.inf
    _codes: dict[str, tuple[list[Any], np.ndarray]] = field(default_factory=dict)  # values_pass

    @property
    def size(self) -> int:
        return len(self.ids)

    def values_pass(self, column: str, test: Callable[[Any], bool], rows: Any) -> np.ndarray:
        """`test` of the value in `column` (session, topic, ctypes) of `rows` (an index or a slice), one bool a
        row: the test runs once a distinct value (a partition of 1M web pages has a few thousand topics and
        sessions), then the rows take their value's answer."""
        values, codes = self._value_codes(column)
        return np.fromiter((test(v) for v in values), bool, len(values))[codes[rows]]

    def _value_codes(self, column: str) -> tuple[list[Any], np.ndarray]:
        """The distinct values of `column` and each row's index into them (computed once: the columns
        never change in place)."""
        if column not in self._codes:
            first: dict[Any, int] = {}
            codes = np.fromiter((first.setdefault(v, len(first)) for v in getattr(self, column)), np.int64, self.size)
            self._codes[column] = list(first), codes
        return self._codes[column]

    @functools.cached_property
    def total_length(self) -> float:
        """Sum of the rows' lengths (BM25's average document length; the lengths never change in place)."""
        return float(self.length.sum())


COUNTERS = ("reference_count", "usage_count", "validation_count", "validation_success")
TEXT_CHARS = 4000  # ranking reads the first 150 words and the snippet the first 60
VECTOR_BATCH_ROWS = 50_000  # embeddings streamed from the catalog this many rows at a time


def _rows_by_partition(parts: dict[str, _Partition], keys: np.ndarray,
                       ids: list[str]) -> list[tuple[str, np.ndarray, np.ndarray]]:
    """A batch of (key, id) split by partition: per key, the batch positions and the partition rows they fill. A
    document the rows did not hold (written between the two reads) is left for the next refresh, which reloads its
    partition."""
    out = []
    names, which = np.unique(keys.astype(str), return_inverse=True)
    for group, key in enumerate(names.tolist()):
        if key not in parts:
            continue
        at = np.flatnonzero(which == group)
        row_of = parts[key].row_of
        rows = np.fromiter((row_of.get(ids[i], -1) for i in at), np.int64, len(at))
        out.append((key, at[rows >= 0], rows[rows >= 0]))
    return out


class SearchIndex:
    def __init__(self, catalog: Catalog, ann: AnnSettings | None = None) -> None:
        self.catalog = catalog
        self.ann = ann or AnnSettings()
        self.parts: dict[str, _Partition] = {}
        self.part_df: dict[str, Counter[str]] = {}
        self.generation = -1
        self.counter_seq = 0
        self.where: dict[str, str] = {}  # document id -> partition key
        # Partitions whose counters stay as loaded while a batch runs (global documents: MemoryStore.batch_view).
        self.frozen: set[str] = set()

    # ---- keeping in step with the catalog ----------------------------------------------------------
    def refresh(self) -> None:
        self._apply_counters()  # to every partition; reloaded ones then read the current values anyway
        generation, dirty = self.catalog.changes_since(self.generation)
        if generation == self.generation:
            return
        if dirty is None or self.generation < 0:
            self.parts, self.part_df = {}, {}
            self._load(None)
        elif dirty:
            self._load(sorted(dirty))
        self.generation = generation
        self._map_ids()


    def _map_ids(self) -> None:
        self.where = {i: key for key, part in self.parts.items() for i in part.row_of}

    def freeze_counters(self, keys: set[str]) -> None:
        """Keep these partitions' counters as they are now (current first) until `thaw_counters`."""
        self.refresh()
        self.frozen = set(keys)

    def thaw_counters(self) -> None:
        """Back to live counters: the frozen partitions reload the catalog's values."""
        keys, self.frozen = sorted(self.frozen & set(self.parts)), set()
        if keys:
            self._load(keys)
            self._map_ids()

    def _apply_counters(self) -> None:
        """Counter increments the catalog made since the last search (references, usage, validation)."""
        seq, changes = self.catalog.counter_changes_since(self.counter_seq)
        for ids, column, by in changes:
            for doc_id in ids:
                key = self.where.get(doc_id)
                if key is not None and key not in self.frozen:
                    part = self.parts[key]
                    part.counters[column][part.row_of[doc_id]] += by
        self.counter_seq = seq

    def rows(self, ids: list[str], vector: Any) -> list[dict[str, Any]]:
        """The ranking fields of the candidates (what Catalog.candidate_rows returns), from memory."""
        self.refresh()
        query = np.asarray(vector, dtype=np.float32)
        query = query / (float(np.linalg.norm(query)) or 1.0)
        found: list[tuple[str, str, int]] = []  # (doc id, partition key, row)
        for doc_id in ids:
            key = self.where.get(doc_id)
            if key is not None:
                found.append((doc_id, key, self.parts[key].row_of[doc_id]))
        cosines = self._cosines(found, query)
        out = []
        for (doc_id, key, r), cosine in zip(found, cosines, strict=True):
            part = self.parts[key]
            created, expires = part.created[r], part.expires[r]
            out.append({
                "id": doc_id, "kind": part.kind[r], "title": part.title[r], "primary_topic": part.topic[r],
                "doc_path": part.doc_path[r], "search_text": part.text[r], "quality": float(part.quality[r]),
                "importance": float(part.importance[r]), "scope": part.scope[r], "content_types": list(part.ctypes[r]),
                "keywords": list(part.keywords[r]), "session_id": part.session[r],
                "turn_number": None if part.position[r] < 0 else int(part.position[r]),
                "owner_user": None if key in (GLOBAL, NOBODY) else key,
                "created_at": None if math.isnan(created) else datetime.fromtimestamp(created, UTC),
                "expires_at": None if math.isinf(expires) else datetime.fromtimestamp(expires, UTC),
                "cosine": cosine, **{c: int(part.counters[c][r]) for c in COUNTERS}})
        return out

    def _cosines(self, found: list[tuple[str, str, int]], query: np.ndarray) -> list[float]:
        """Each found row's cosine to the (unit) query, one product per partition; 0.0 without a vector."""
        cosines = [0.0] * len(found)
        for key in dict.fromkeys(k for _, k, _ in found):
            part = self.parts[key]
            if part.vectors.shape[1] != query.shape[0]:
                continue
            at = [i for i, (_, k, r) in enumerate(found) if k == key and part.has_vector[r]]
            rows = [found[i][2] for i in at]
            for i, value in zip(at, (part.vectors[rows] @ query).tolist(), strict=True):
                cosines[i] = value
        return cosines

    def _load(self, keys: list[str] | None) -> None:
        for key in keys or []:
            self.part_df.pop(key, None)
            self.parts.pop(key, None)
        table = index_source.partition_rows(self.catalog, keys, TEXT_CHARS)
        if table.num_rows == 0:
            return
        keys_col = table.column("key").to_numpy(zero_copy_only=False)
        bounds = np.flatnonzero(np.r_[True, keys_col[1:] != keys_col[:-1], True])
        columns = {name: table.column(name) for name in table.column_names}
        loaded = {}
        for start, end in zip(bounds[:-1], bounds[1:], strict=True):
            part = self._partition(columns, int(start), int(end))
            part.is_note = part.kind == "note"
            part.first_expiry = float(min(part.expires.min(initial=math.inf), part.invalid.min(initial=math.inf)))
            loaded[str(keys_col[start])] = part
        del table, columns
        self._fill_vectors(loaded, keys)
        for key, part in loaded.items():
            if part.size >= self.ann.min_rows and int(part.has_vector.sum()) >= self.ann.min_rows:
                part.ann = InvertedFileIndex(part.vectors, part.has_vector, self.ann)
            self.parts[key] = part
        postings = index_source.partition_postings(self.catalog, keys)
        part_keys = postings.column("key").to_pylist()
        terms = postings.column("term").to_pylist()
        rows_col, tfs_col = postings.column("rows").combine_chunks(), postings.column("tfs").combine_chunks()
        offsets = rows_col.offsets.to_numpy()
        flat_rows = rows_col.values.to_numpy().astype(np.int64)
        flat_tfs = tfs_col.values.to_numpy().astype(np.float64)
        for i, (key, term) in enumerate(zip(part_keys, terms, strict=True)):
            lo, hi = offsets[i], offsets[i + 1]
            self.parts[key].postings[term] = (flat_rows[lo:hi], flat_tfs[lo:hi])
            counts = self.part_df.setdefault(key, Counter())
            counts[term] = hi - lo

    def _fill_vectors(self, parts: dict[str, _Partition], keys: list[str] | None) -> None:
        """Each loaded partition's unit vectors, streamed from the catalog into one float32 matrix per partition:
        its rows in the partition's order, zero rows where a document has none. Peak memory is the matrices and
        one batch: a 1M x 768 partition is 3 GB, and read with the other columns in one sorted table it was killed
        for memory on a 24 GB machine (stop 48). One width per catalog
        (Catalog.check_dim); a partition without vectors keeps width 0 (its vector leg is skipped)."""
        for batch in index_source.partition_vectors(self.catalog, keys, VECTOR_BATCH_ROWS):
            embedding = batch.column("embedding")
            flat = embedding.flatten().to_numpy(zero_copy_only=False)
            block = flat.reshape(len(batch), -1).astype(np.float32, copy=False)
            batch_keys = batch.column("key").to_numpy(zero_copy_only=False)
            for key, at, rows in _rows_by_partition(parts, batch_keys, batch.column("id").to_pylist()):
                part = parts[key]
                if part.vectors.shape[1] != block.shape[1]:
                    part.vectors = np.zeros((part.size, block.shape[1]), dtype=np.float32)
                part.vectors[rows] = block[at]
        for part in parts.values():
            if part.vectors.shape[1]:
                norms = np.linalg.norm(part.vectors, axis=1)
                part.vectors /= np.where(norms > 0, norms, 1.0)[:, None]

    @staticmethod
    def _partition(columns: dict[str, Any], start: int, end: int) -> _Partition:
        def col(name: str) -> np.ndarray:
            return columns[name].slice(start, end - start).to_numpy(zero_copy_only=False)

        has_vector = col("has_vector").astype(bool)
        vectors = np.zeros((end - start, 0), dtype=np.float32)  # _fill_vectors
        ctypes = [tuple(x or ()) for x in columns["content_types"].slice(start, end - start).to_pylist()]
        keywords = [tuple(x or ()) for x in columns["keywords"].slice(start, end - start).to_pylist()]
        ids = col("id")
        counters = {c: np.nan_to_num(col(c).astype(np.float64)).astype(np.int64) for c in COUNTERS}
        return _Partition(ids=ids, kind=col("kind"), scope=col("scope"), session=col("session_id"),
                          topic=col("primary_topic"), ctypes=ctypes, keywords=keywords, quality=col("quality").astype(np.float64),
                          expires=col("expires").astype(np.float64), invalid=col("invalid").astype(np.float64),
                          length=col("length").astype(np.float64), vectors=vectors, has_vector=has_vector,
                          title=col("title"), doc_path=col("doc_path"), text=col("text"),
                          importance=col("importance").astype(np.float64), created=col("created").astype(np.float64),
                          position=col("position").astype(np.int64), counters=counters,
                          row_of={str(i): r for r, i in enumerate(ids)})

    # ---- queries -----------------------------------------------------------------------------------
    def _visible_keys(self, filters: SearchFilters) -> list[str]:
        if filters.user_id is None:
            return list(self.parts)
        return [k for k in (filters.user_id, GLOBAL) if k in self.parts]

    def _visible(self, filters: SearchFilters) -> list[_Partition]:
        return [self.parts[k] for k in self._visible_keys(filters)]

    @staticmethod
    def _mask(part: _Partition, filters: SearchFilters, rows: np.ndarray | None = None) -> np.ndarray | None:
        """Which rows pass the filters: every row of the partition, or only `rows` (in their order).
        None when no filter applies to this partition (every row passes; callers skip the work)."""
        sel: Any = slice(None) if rows is None else rows
        now = (filters.now or datetime.now(UTC)).timestamp()
        tests: list[Callable[[], np.ndarray]] = []
        if filters.session_id is not None:
            tests.append(lambda: part.session[sel] == filters.session_id)
        if filters.session_prefix is not None:
            prefix = filters.session_prefix
            tests.append(lambda: part.values_pass("session", lambda s: isinstance(s, str) and s.startswith(prefix), sel))
        if filters.scope is not None:
            tests.append(lambda: part.scope[sel] == filters.scope)
        if filters.content_types:
            wanted = set(filters.content_types)
            tests.append(lambda: part.values_pass("ctypes", lambda c: bool(wanted.intersection(c)), sel))
        if filters.kinds:
            tests.append(lambda: np.isin(part.kind[sel], list(filters.kinds)))
        if filters.topic_prefix:
            t = filters.topic_prefix
            tests.append(lambda: part.values_pass(
                "topic", lambda x: isinstance(x, str) and (x == t or x.startswith(t + ".") or t.startswith(x + ".")), sel))
        if filters.min_quality > 0:
            tests.append(lambda: part.quality[sel] >= filters.min_quality)
        if not filters.include_expired and now >= part.first_expiry:
            tests.append(lambda: (part.expires[sel] > now) | part.is_note[sel])
        if not filters.include_invalid and now >= part.first_expiry:
            tests.append(lambda: part.invalid[sel] > now)
        if filters.created_before is not None:
            before = filters.created_before.timestamp()
            tests.append(lambda: (part.created[sel] <= before) | np.isnan(part.created[sel]))
        if filters.created_after is not None:
            after = filters.created_after.timestamp()
            tests.append(lambda: part.created[sel] >= after)
        if not tests:
            return None
        mask = tests[0]()
        for test in tests[1:]:
            mask &= test()
        return mask

    def legs(self, terms: list[str], vector: Any, filters: SearchFilters, limit: int, k1: float, b: float,
             beside: Executor) -> tuple[list[tuple[str, float]], list[tuple[str, float]]]:
        """bm25 and vectors at once, after one refresh: the vector leg on `beside` (its scan releases the GIL), BM25 on
        the calling thread. For a search whose query embedding took every core: the legs then have both."""
        self.refresh()
        semantic = beside.submit(self.vectors, vector, filters, limit, fresh=True)
        try:
            lexical = self.bm25(terms, filters, limit, k1, b, fresh=True)
        finally:
            found = semantic.result()
        return lexical, found

    @compute_threads.on_single_blas
    def bm25(self, terms: list[str], filters: SearchFilters, limit: int, k1: float = 1.2,
             b: float = 0.75, fresh: bool = False) -> list[tuple[str, float]]:
        if not fresh:  # `fresh`: the caller has just refreshed (legs)
            self.refresh()
        unique = sorted(set(terms))
        # Corpus statistics of what the searcher may read (Catalog.bm25_candidates says why).
        keys = self._visible_keys(filters)
        docs = sum(self.parts[k].size for k in keys)
        if not unique or docs == 0:
            return []
        n, avgdl = float(docs), (sum(self.parts[k].total_length for k in keys) / docs) or 1.0
        df = {t: sum(self.part_df.get(k, Counter()).get(t, 0) for k in keys) for t in unique}
        idf = {t: math.log(1 + (n - df[t] + 0.5) / (df[t] + 0.5)) for t in unique if df[t]}
        out: list[tuple[str, float]] = []
        for part in self._visible(filters):
            all_rows, contributions = [], []
            for term, weight in idf.items():
                found = part.postings.get(term)
                if found is None:
                    continue
                rows, tf = found
                norm = part.length[rows]  # tf + k1 * (1 - b + b * length / avgdl), in place
                norm *= k1 * b / avgdl
                norm += k1 * (1 - b)
                norm += tf
                all_rows.append(rows)
                contributions.append(np.divide(tf * (weight * (k1 + 1)), norm, out=norm))
            if not all_rows:
                continue
            # One pass for all terms: a row's terms are summed in query-term order, as term by term would.
            matched = np.concatenate(all_rows)
            scores = np.bincount(matched, weights=np.concatenate(contributions), minlength=part.size)
            mask = self._mask(part, filters, matched)
            out += _top_matched(part.ids, matched if mask is None else matched[mask], scores, limit, len(all_rows))
        out.sort(key=lambda item: (-item[1], item[0]))
        return out[:limit]

    @compute_threads.on_single_blas
    def vectors(self, vector: Any, filters: SearchFilters, limit: int, fresh: bool = False) -> list[tuple[str, float]]:
        if not fresh:
            self.refresh()
        query = np.asarray(vector, dtype=np.float32)
        norm = float(np.linalg.norm(query)) or 1.0
        query = query / norm
        out: list[tuple[str, float]] = []
        for part in self._visible(filters):
            if part.vectors.shape[1] != query.shape[0]:
                continue
            found = None
            mask = self._mask(part, filters)
            if part.ann is not None:  # its rows all have vectors
                found = part.ann.search(part.vectors, query, limit, mask)
            if found is None:  # a small partition, or a filter the probed lists cannot satisfy: scan exactly
                rows = np.flatnonzero(part.has_vector if mask is None else part.has_vector & mask)
                found = rows, part.vectors[rows] @ query
            out += _top(part.ids, found[0], found[1].astype(np.float64), limit)
        out.sort(key=lambda item: (-item[1], item[0]))
        return out[:limit]


def _top_matched(ids: np.ndarray, matched: np.ndarray, scores: np.ndarray, limit: int,
                 terms: int) -> list[tuple[str, float]]:
    """`_top` over the distinct rows of `matched` (a row appears once per query term it holds, at most
    `terms` times; `scores` covers the whole partition), without a pass over the whole partition.

    `_top` keeps every row scoring at least the (2 x limit)-th best. Among the best 2 x limit x terms
    entries of `matched` there are at least 2 x limit distinct rows, so that score is found there; then
    every matched row scoring at least it is taken. Example: matched [7, 3, 7, 9], scores[3] = 1.0,
    scores[7] = 2.0, scores[9] = 0.5, limit 1, terms 2 -> rows 7 and 3 (the 2nd best distinct score is 1.0).
    """
    if matched.size == 0:
        return []
    values = scores[matched]
    want = 2 * limit
    if matched.size > want * terms:
        best = np.argpartition(-values, want * terms)[: want * terms]
        distinct = np.unique(matched[best])
        if distinct.size >= want:
            cut = np.partition(-scores[distinct], want - 1)[want - 1]
            chosen = np.unique(matched[values >= -cut])
            return [(str(ids[r]), float(scores[r])) for r in chosen]
    return _top(ids, (rows := np.unique(matched)), scores[rows], limit)


def _top(ids: np.ndarray, rows: np.ndarray, scores: np.ndarray, limit: int) -> list[tuple[str, float]]:
    """The best rows (scores aligned with rows) and everything tied with the last of them."""
    if rows.size == 0:
        return []
    if rows.size > limit * 2:
        keep = np.argpartition(-scores, limit * 2)[: limit * 2]  # ties at the cut are settled by the sort
        chosen = scores >= scores[keep].min()
        rows, scores = rows[chosen], scores[chosen]
    return [(str(ids[r]), float(s)) for r, s in zip(rows, scores, strict=True)]
