"""The in-memory candidate index returns exactly what the catalog's SQL returns, and follows changes."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from panda.catalog.filters import SearchFilters
from panda.catalog.store import Catalog
from panda.documents.model import Document
from panda.language.text import tokenize
from panda.memory.index import SearchIndex, _top, _top_matched

NOW = datetime(2026, 6, 1, tzinfo=UTC)
WORDS = "hamster laptop budget hiking boston denver cage food gaming travel coffee garden piano guitar".split()


def _docs(n: int, seed: int = 7) -> tuple[list[Document], list[np.ndarray]]:
    rng = np.random.default_rng(seed)
    docs, vectors = [], []
    for i in range(n):
        text = " ".join(rng.choice(WORDS, size=int(rng.integers(3, 12))))
        scope = "global" if i % 9 == 0 else ("new" if i % 5 == 0 else "user")
        docs.append(Document(
            id=f"d{i:04d}", kind=("message", "memory", "note", "context")[i % 4], title=text[:30],
            primary_topic=("pet.hamster", "tech.laptop", "travel")[i % 3], scope=scope,  # type: ignore[arg-type]
            owner_user=None if scope == "global" else f"u{i % 4}", session_id=f"u{i % 4}:chat-s{i % 3:04d}",
            content_types=[("message", "pricing", "memory")[i % 3]], quality=float(rng.random()),
            created_at=NOW - timedelta(days=i), body=text,
            expires_at=NOW - timedelta(hours=1) if i % 11 == 0 else (NOW + timedelta(days=1) if i % 7 == 0 else None),
            invalid_at=NOW - timedelta(days=1) if i % 13 == 0 else None))
        vectors.append(None if i % 17 == 0 else rng.normal(size=384).astype(np.float32))
    return docs, vectors


FILTERS = [
    SearchFilters(user_id="u1", now=NOW),
    SearchFilters(user_id=None, now=NOW),
    SearchFilters(user_id="u2", now=NOW, include_expired=True, include_invalid=True),
    SearchFilters(user_id="u3", now=NOW, kinds=("message", "note")),
    SearchFilters(user_id="u1", now=NOW, topic_prefix="pet", min_quality=0.3),
    SearchFilters(user_id="u0", now=NOW, session_prefix="u0:chat-s", content_types=("pricing",)),
    SearchFilters(user_id="u2", now=NOW, session_id="u2:chat-s0001", scope="user"),
]


@pytest.mark.parametrize("filters", FILTERS)
def test_index_candidates_equal_the_catalog_sql(filters):
    catalog = Catalog()
    docs, vectors = _docs(300)
    catalog.upsert_documents(docs, vectors)
    index = SearchIndex(catalog)
    query = np.random.default_rng(1).normal(size=384).astype(np.float32)
    for text in ("hamster cage food", "gaming laptop budget", "boston"):
        terms = tokenize(text)
        sql = catalog.bm25_candidates(terms, filters, 40)
        mem = index.bm25(terms, filters, 40)
        assert [i for i, _ in mem] == [i for i, _ in sql]
        assert [s for _, s in mem] == pytest.approx([s for _, s in sql], rel=1e-6)
    sql_v = catalog.vector_candidates(query.tolist(), filters, 40)
    mem_v = index.vectors(query, filters, 40)
    assert [i for i, _ in mem_v] == [i for i, _ in sql_v]
    assert [s for _, s in mem_v] == pytest.approx([s for _, s in sql_v], abs=1e-5)


def test_index_follows_upserts_moves_and_deletes():
    catalog = Catalog()
    docs, vectors = _docs(60)
    catalog.upsert_documents(docs, vectors)
    index = SearchIndex(catalog)
    filters = SearchFilters(user_id="u1", now=NOW)
    before = index.bm25(["piano"], filters, 100)
    new = Document(id="zz1", kind="memory", title="piano", owner_user="u1", scope="user", body="piano piano lessons",
                   created_at=NOW)
    catalog.upsert_documents([new], [np.ones(384, dtype=np.float32)])
    after = index.bm25(["piano"], filters, 100)
    assert after[0][0] == "zz1" and len(after) == len(before) + 1
    moved = new.model_copy(update={"scope": "global", "owner_user": None})  # promoted: another partition
    catalog.upsert_documents([moved], [np.ones(384, dtype=np.float32)])
    assert index.bm25(["piano"], SearchFilters(user_id="u3", now=NOW), 100)[0][0] == "zz1"
    catalog.delete_document("zz1")
    assert "zz1" not in [i for i, _ in index.bm25(["piano"], filters, 100)]
    mem, sql = index.bm25(["piano"], filters, 100), catalog.bm25_candidates(["piano"], filters, 100)
    assert [i for i, _ in mem] == [i for i, _ in sql] and [s for _, s in mem] == pytest.approx([s for _, s in sql])
    catalog.clear_derived()
    assert index.bm25(["piano"], filters, 100) == []


def test_index_rows_equal_candidate_rows_and_follow_counter_increments():
    catalog = Catalog()
    docs, vectors = _docs(120)
    catalog.upsert_documents(docs, vectors)
    index = SearchIndex(catalog)
    query = np.random.default_rng(3).normal(size=384).astype(np.float32)
    ids = [d.id for d in docs[::7]]
    catalog.increment_counters(ids[:3], "reference_count", 2)
    index.bm25(["hamster"], SearchFilters(now=NOW), 5)  # builds the index
    catalog.increment_counters(ids[:2], "reference_count")  # after the build: replayed, not reloaded
    catalog.increment_counters(ids[1:4], "validation_success", 1)
    generation = index.generation
    mem = {r["id"]: r for r in index.rows(ids, query)}
    sql = {r["id"]: r for r in catalog.candidate_rows(ids, query.tolist())}
    assert index.generation == generation and set(mem) == set(sql)
    for doc_id, row in sql.items():
        for key in ("kind", "title", "primary_topic", "doc_path", "search_text", "scope", "content_types", "created_at",
                    "expires_at", "reference_count", "usage_count", "validation_count", "validation_success"):
            assert mem[doc_id][key] == row[key], (doc_id, key)
        assert mem[doc_id]["quality"] == pytest.approx(row["quality"])
        assert mem[doc_id]["importance"] == pytest.approx(row["importance"])
        assert mem[doc_id]["cosine"] == pytest.approx(row["cosine"], abs=1e-5)
    assert mem[ids[0]]["reference_count"] == 3 and mem[ids[1]]["validation_success"] == 1
    try:
        with catalog.transaction():
            catalog.increment_counters(ids[:1], "usage_count", 5)
            raise RuntimeError("rolled back")
    except RuntimeError:
        pass
    assert index.rows(ids[:1], query)[0]["usage_count"] == 0  # a rolled-back increment is not kept


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 40), min_size=1, max_size=120), st.integers(1, 12), st.integers(0, 2**32 - 1))
def test_the_best_matched_rows_are_what_a_pass_over_every_matched_row_gives(matched, limit, seed):
    """BM25's top rows come from the postings it matched (index._top_matched), repeated rows and ties
    included, equal to `_top` over the distinct rows."""
    rng = np.random.default_rng(seed)
    scores = rng.integers(1, 6, size=41).astype(np.float64)  # few values: many ties at the cut
    rows = np.array(matched, dtype=np.int64)
    ids = np.array([f"r{i:02d}" for i in range(41)], dtype=object)
    terms = max(np.bincount(rows).max(), 1)  # a row appears at most once per query term
    distinct = np.unique(rows)
    assert sorted(_top_matched(ids, rows, scores, limit, int(terms))) == sorted(_top(ids, distinct, scores[distinct], limit))
