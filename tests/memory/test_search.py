import multiprocessing
import threading
import time
from datetime import UTC, datetime, timedelta

from panda.documents.model import Document
from panda.memory import search as search_module
from panda.memory.search import SearchRequest

NOW = datetime(2026, 3, 1, 12, tzinfo=UTC)


def save(ctx, **fields):
    doc = Document(**{"owner_user": "alice", "created_at": NOW - timedelta(days=1), "scope": "user", **fields})
    return ctx.memory.save(doc)


def test_search_finds_by_meaning_and_keyword_and_counts_references(ctx):
    hamster = save(ctx, id="m_hamster", title="Hamster food", primary_topic="pet.hamster.syrian",
                   body="Syrian hamsters eat seed mix, fresh vegetables and a little boiled egg.")
    save(ctx, id="m_laptop", title="Laptop budget", primary_topic="electronics.laptop",
         body="The user wants a gaming laptop under $1000 with an RTX GPU.")
    results = ctx.memory.search(SearchRequest("what should my hamster eat", user_id="alice", now=NOW))
    assert results[0].id == "m_hamster"
    assert results[0].factors["semantic"] > results[1].factors["semantic"]
    row = ctx.catalog.get_document("m_hamster")
    assert row["reference_count"] == 1
    assert ctx.vault.read_document(hamster.doc_path).reference_count == 1  # counted in the vault too
    assert ctx.catalog.table_count("retrieval_operations") == 1
    ctx.memory.search(SearchRequest("hamster", user_id="alice", now=NOW, record=False))
    assert ctx.catalog.get_document("m_hamster")["reference_count"] == 1


def test_topic_filter_uses_the_hierarchy(ctx):
    save(ctx, id="syrian", primary_topic="pet.hamster.syrian", body="Syrian hamster care")
    save(ctx, id="dwarf", primary_topic="pet.hamster", body="Dwarf hamster care")
    save(ctx, id="cat", primary_topic="pet.cat", body="Cat hamster-hunting care")
    found = {r.id for r in ctx.memory.search(SearchRequest("care", user_id="alice", topic_filter="pet.hamster", now=NOW))}
    assert found == {"syrian", "dwarf"}
    topical = ctx.memory.search(SearchRequest("care", user_id="alice", query_topic="pet.hamster", now=NOW))
    assert topical[-1].id == "cat"


def test_users_see_their_own_and_global_documents_only(ctx):
    save(ctx, id="alice_secret", body="alice's bank PIN hint is the hamster's birthday")
    save(ctx, id="bob_note", owner_user="bob", body="bob's hamster is called Pip")
    save(ctx, id="global_fact", owner_user=None, scope="global", body="Hamsters are nocturnal")
    ids = {r.id for r in ctx.memory.search(SearchRequest("hamster", user_id="bob", now=NOW))}
    assert ids == {"bob_note", "global_fact"}


def test_expired_documents_only_when_asked_and_marked(ctx):
    save(ctx, id="old_price", body="RTX 4060 laptop price is $999", content_types=["pricing"],
         expires_at=NOW - timedelta(hours=1))
    assert ctx.memory.search(SearchRequest("laptop price", user_id="alice", now=NOW)) == []
    results = ctx.memory.search(SearchRequest("laptop price", user_id="alice", now=NOW, include_expired=True))
    assert [r.id for r in results] == ["old_price"] and results[0].possibly_outdated


def test_recency_and_frequency_break_ties(ctx):
    save(ctx, id="old", body="my favourite colour is green", created_at=NOW - timedelta(days=200))
    save(ctx, id="new", body="my favourite colour is green", created_at=NOW - timedelta(days=1))
    results = ctx.memory.search(SearchRequest("favourite colour", user_id="alice", now=NOW, record=False))
    assert [r.id for r in results] == ["new", "old"]
    assert results[0].factors["recency"] > results[1].factors["recency"]


def test_memory_save_new_scope_gets_ttl_and_retrieve_reads_it_back(ctx):
    doc = ctx.memory.prepare_save("budget is $800", doc_type="preference", topic="user.preference",
                                  keywords=["budget"], user_id="alice", now=NOW)
    assert doc.expires_at == NOW + timedelta(hours=24)
    ctx.memory.save(doc)
    back = ctx.memory.retrieve(doc_id=doc.id)
    assert back is not None and back.body == "budget is $800"
    assert ctx.memory.retrieve(doc_id="nope") is None
    assert ctx.memory.retrieve(doc_id="x", doc_path="../../etc/passwd.md") is None
    assert ctx.memory.retrieve(doc_path=doc.doc_path).id == doc.id


class SlowEmbedder:
    """The real embedder, slowed down, noting the thread each embedding ran on."""

    def __init__(self, inner):
        self.inner, self.threads, self.finished = inner, [], []

    def __getattr__(self, name):
        return getattr(self.inner, name)

    def embed(self, texts):
        self.threads.append(threading.current_thread().name)
        time.sleep(0.2)
        vectors = self.inner.embed(texts)
        self.finished.append(time.perf_counter())
        return vectors

    def embed_query(self, text):
        return self.embed([text])[0]


def test_the_query_is_embedded_on_a_worker_thread_while_the_bm25_leg_runs(ctx):
    save(ctx, id="m_hamster", title="Hamster food", body="Syrian hamsters eat seed mix and fresh vegetables.")
    save(ctx, id="m_laptop", title="Laptop budget", body="The user wants a gaming laptop under $1000.")
    expected = [r.id for r in ctx.memory.search(SearchRequest("what should my hamster eat", user_id="alice", now=NOW, record=False))]
    slow = SlowEmbedder(ctx.memory.embedder)
    ctx.memory.embedder = slow
    bm25, started = ctx.memory.search_index.bm25, []
    ctx.memory.search_index.bm25 = lambda *a, **k: started.append(time.perf_counter()) or bm25(*a, **k)
    found = [r.id for r in ctx.memory.search(SearchRequest("what should my hamster eat?", user_id="alice", now=NOW, record=False))]
    assert found == expected  # the same ranking (the question mark is not a word)
    assert slow.threads == ["panda-query-embedding_0"]
    assert started[0] < slow.finished[0]  # BM25 did not wait for the embedding
    ctx.memory.search(SearchRequest("what should my hamster eat?", user_id="alice", now=NOW, record=False))
    assert len(slow.threads) == 1  # a remembered query is not embedded again


def test_a_query_embedding_that_takes_every_core_runs_before_the_bm25_leg(ctx):
    """EmbeddingGemma's int8 queries take both cores here: a BM25 leg beside them slowed them and stalled the 1M
    search's tail (p99 100+ ms), so the legs follow the embedding, side by side."""
    from panda.llm import cpu

    save(ctx, id="m_hamster", title="Hamster food", body="Syrian hamsters eat seed mix and fresh vegetables.")
    slow = SlowEmbedder(ctx.memory.embedder)
    slow.query_threads = cpu.cores
    ctx.memory.embedder = slow
    assert ctx.memory.leg_beside_embedding() is False
    index, started, vector_leg = ctx.memory.search_index, [], []
    bm25, vectors = index.bm25, index.vectors
    index.bm25 = lambda *a, **k: started.append((time.perf_counter(), threading.current_thread().name)) or bm25(*a, **k)
    index.vectors = lambda *a, **k: vector_leg.append(threading.current_thread().name) or vectors(*a, **k)
    found = ctx.memory.search(SearchRequest("what should my hamster eat?", user_id="alice", now=NOW, record=False))
    assert [r.id for r in found] == ["m_hamster"] and slow.threads == ["panda-query-embedding_0"]
    assert started[0][0] > slow.finished[0]
    # then both legs at once: BM25 on the searching thread, the vector leg on the worker
    assert started[0][1] == threading.current_thread().name and vector_leg == ["panda-query-embedding_0"]
    slow.query_threads = lambda: cpu.cores() - 1
    assert ctx.memory.leg_beside_embedding() is True


def _submit_in_child() -> int:
    return search_module._query_embedding_thread().submit(lambda: 2).result(timeout=10)


def test_a_forked_process_embeds_queries_on_a_thread_of_its_own():
    # The parent's worker has run a task and sits idle: a child inheriting that executor would queue its task
    # for a thread it does not have and wait forever.
    assert search_module._query_embedding_thread().submit(lambda: 1).result(timeout=10) == 1
    with multiprocessing.get_context("fork").Pool(1) as pool:
        assert pool.apply_async(_submit_in_child).get(timeout=30) == 2
