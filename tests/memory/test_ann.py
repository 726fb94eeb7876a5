"""The approximate vector leg for large partitions (memory/ann.py): close to the exact scan, exact scores,
filters honoured, and an exact fallback when a filter empties the probed lists."""

from __future__ import annotations

from datetime import UTC, datetime

import numpy as np

from panda.catalog.filters import SearchFilters
from panda.catalog.store import Catalog
from panda.documents.model import Document
from panda.memory.ann import AnnSettings, InvertedFileIndex, subvector_count
from panda.memory.index import SearchIndex

NOW = datetime(2026, 6, 1, tzinfo=UTC)


def clustered(n: int, dim: int = 64, centres: int = 40, seed: int = 3) -> np.ndarray:
    """Unit vectors around random centres, as sentence embeddings cluster by topic, with their variance
    concentrated in few directions (a decaying spectrum) as real embeddings have it."""
    rng = np.random.default_rng(seed)
    centre = rng.normal(size=(centres, dim))
    spectrum = 1.5 * (1 + np.arange(dim)) ** -0.8
    x = centre[rng.integers(0, centres, size=n)] + rng.normal(size=(n, dim)) * spectrum
    return (x / np.linalg.norm(x, axis=1, keepdims=True)).astype(np.float32)


def test_ivf_finds_nearly_what_the_exact_scan_finds_with_exact_scores():
    vectors = clustered(6000)
    usable = np.ones(len(vectors), dtype=bool)
    usable[::50] = False  # rows without an embedding are never returned
    index = InvertedFileIndex(vectors, usable, AnnSettings(min_rows=1, probe_share=0.2, rerank=100))
    assert index.lists == round(2 * np.sqrt(usable.sum()))  # list_factor 2
    assert sorted(index.rows.tolist()) == np.flatnonzero(usable).tolist()  # every usable row in exactly one list
    queries = clustered(40, seed=9)
    overlap = 0
    for q in queries:
        rows, sims = index.search(vectors, q, 10, np.ones(len(vectors), dtype=bool))
        unfiltered = index.search(vectors, q, 10, None)  # no filter: the same rows
        assert unfiltered is not None
        assert sorted(unfiltered[0].tolist()) == sorted(rows.tolist())
        assert usable[rows].all()
        np.testing.assert_allclose(sims, vectors[rows] @ q, rtol=1e-6)  # exact cosines, not coarse ones
        mine = set(rows[np.argsort(-sims)[:10]].tolist())
        exact = np.where(usable, vectors @ q, -np.inf)
        overlap += len(mine & set(np.argsort(-exact)[:10].tolist()))
    assert overlap / (10 * len(queries)) >= 0.95


def test_a_filter_applies_before_the_cut_and_an_empty_probe_falls_back():
    vectors = clustered(3000)
    index = InvertedFileIndex(vectors, np.ones(3000, dtype=bool), AnnSettings(min_rows=1, probe_share=0.2))
    q, row = vectors[0], np.arange(3000)
    even = index.search(vectors, q, 10, row % 2 == 0)
    assert even is not None and (even[0] % 2 == 0).all() and len(even[0]) >= 10
    odd = index.search(vectors, q, 10, row % 2 == 1)
    assert odd is not None and (odd[0] % 2 == 1).all() and 0 not in odd[0].tolist()  # the query's own row is even
    assert index.search(vectors, q, 10, row == 5) is None  # too few rows pass: the caller scans exactly


def test_a_large_partition_searches_through_the_ann_and_agrees_with_the_exact_leg():
    n = 2400
    vectors = clustered(n, dim=384)
    docs = [Document(id=f"g{i:05d}", kind="note", title=f"note {i}", primary_topic="web.page", scope="global",
                     owner_user=None, content_types=["note"], quality=0.5, created_at=NOW, body=f"note {i}")
            for i in range(n)]
    docs += [Document(id=f"u{i}", kind="memory", title=f"own {i}", primary_topic="user.fact", scope="user",
                      owner_user="ann", content_types=["memory"], quality=0.5, created_at=NOW, body=f"own {i}")
             for i in range(30)]
    catalog = Catalog()
    catalog.upsert_documents(docs, [*vectors, *clustered(30, dim=384, seed=5)])
    approx = SearchIndex(catalog, AnnSettings(min_rows=1000, probe_share=0.25, rerank=200))
    exact = SearchIndex(catalog, AnnSettings(min_rows=10**9))
    filters = SearchFilters(user_id="ann", now=NOW)
    hits = total = 0
    for q in clustered(20, dim=384, seed=11):
        a, e = approx.vectors(q, filters, 10), exact.vectors(q, filters, 10)
        hits += len({i for i, _ in a[:10]} & {i for i, _ in e[:10]})
        total += 10
        scores = dict(e)
        assert all(abs(s - scores[i]) < 1e-5 for i, s in a if i in scores)  # the same cosine for the same row
    assert hits / total >= 0.95
    assert any(p.ann is not None for p in approx.parts.values())  # the global partition got the index
    assert all(p.ann is None for p in exact.parts.values())
    assert all(p.ann is None for k, p in approx.parts.items() if p.size < 1000)  # the user's own rows: exact


def test_a_smaller_partition_probes_enough_lists_to_hold_probe_rows():
    vectors = clustered(6000, centres=300)  # many small clusters: 8 lists miss much of a query's neighbourhood
    usable = np.ones(len(vectors), dtype=bool)
    share_only = InvertedFileIndex(vectors, usable, AnnSettings(min_rows=1, list_factor=1.0, probe_share=0.05, rerank=100))
    by_rows = InvertedFileIndex(vectors, usable, AnnSettings(min_rows=1, list_factor=1.0, probe_share=0.05,
                                                             probe_rows=3000, rerank=100))
    assert share_only.lists == by_rows.lists == 77
    assert share_only.probes() == 8  # 5 % of 77 lists is 4: at least 8
    assert by_rows.probes() == 39  # lists of ~78 rows: 3000 rows need 39 of them

    assert recall(by_rows, vectors) >= recall(share_only, vectors) + 0.1  # measured: 0.64 -> 0.98


def test_finer_lists_find_more_for_the_same_share_of_rows_read():
    vectors = clustered(8000, centres=300)
    usable = np.ones(len(vectors), dtype=bool)
    coarse, fine = (InvertedFileIndex(vectors, usable, AnnSettings(min_rows=1, list_factor=f, probe_share=0.1,
                                                                   rerank=100)) for f in (1.0, 4.0))
    assert (coarse.lists, fine.lists) == (89, 358)
    assert (coarse.probes(), fine.probes()) == (9, 36)  # a tenth of the rows either way
    assert recall(fine, vectors) >= recall(coarse, vectors) + 0.1  # measured: 0.73 -> 0.97


def recall(index: InvertedFileIndex, vectors: np.ndarray) -> float:
    """recall@10 against the exact scan over 30 queries drawn like the rows."""
    hits = 0
    queries = clustered(30, centres=300, seed=21)
    for q in queries:
        found = index.search(vectors, q, 10, None)
        assert found is not None
        mine = set(found[0][np.argsort(-found[1])[:10]].tolist())
        hits += len(mine & set(np.argsort(-(vectors @ q))[:10].tolist()))
    return hits / (10 * len(queries))


def test_subvectors_divide_the_dimension():
    assert subvector_count(384, 96) == 96
    assert subvector_count(384, 100) == 96
    assert subvector_count(64, 96) == 64
    assert subvector_count(30, 8) == 6


def test_filters_on_the_approximate_partition_pass_its_rows_as_the_exact_leg_does():
    n = 3000
    vectors = clustered(n, dim=384)
    topics = ("web.recipes", "web.recipes.cake", "web.travel", "product.laptop")
    docs = [Document(id=f"g{i:05d}", kind=("webpage", "note")[i % 2], title=f"page {i}", primary_topic=topics[i % 4],
                     scope="global", owner_user=None, content_types=[("webpage", "pricing")[i % 3 == 0]], quality=0.5,
                     created_at=NOW, body=f"page {i}") for i in range(n)]
    catalog = Catalog()
    catalog.upsert_documents(docs, list(vectors))
    approx = SearchIndex(catalog, AnnSettings(min_rows=1000, probe_share=0.3, rerank=300))
    exact = SearchIndex(catalog, AnnSettings(min_rows=10**9))
    cases = [SearchFilters(now=NOW, topic_prefix="web.recipes"), SearchFilters(now=NOW, content_types=("pricing",)),
             SearchFilters(now=NOW, kinds=("note",), topic_prefix="web")]
    for filters in cases:
        passing = {d.id for d in docs if (not filters.topic_prefix or d.primary_topic.startswith(filters.topic_prefix))
                   and (not filters.content_types or set(filters.content_types) & set(d.content_types))
                   and (not filters.kinds or d.kind in filters.kinds)}
        hits = 0
        for q in clustered(10, dim=384, seed=13):
            a, e = approx.vectors(q, filters, 10), exact.vectors(q, filters, 10)
            assert {i for i, _ in a} <= passing and {i for i, _ in e} <= passing
            hits += len({i for i, _ in a[:10]} & {i for i, _ in e[:10]})
        assert hits >= 90  # filtered inside the scan: the approximate leg still finds the exact leg's rows
    assert any(p.ann is not None for p in approx.parts.values())
