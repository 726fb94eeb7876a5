"""memory.search / memory.save / memory.retrieve: one interface over every document kind.

Search runs two candidate legs — BM25 over the postings and cosine similarity over the embeddings,
from the in-memory index (memory/index.py, a cache of the catalog) or, with the index turned off,
in the catalog's SQL — merges them, and ranks the union with memory/scoring.py. Returned documents get
their reference counts incremented (catalog and vault) and the search is recorded in
retrieval_operations. Expired documents appear only with include_expired=True, marked
`possibly_outdated`. Left out: what to do with results (the pipeline decides).
"""

from __future__ import annotations

import logging
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import KW_ONLY, dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

import numpy as np

from panda.catalog.filters import GLOBAL_PARTITION, SearchFilters
from panda.catalog.store import Catalog
from panda.config import Policy
from panda.documents.budgets import estimate_tokens
from panda.documents.model import Document, new_id, utc
from panda.documents.paths import validate_name
from panda.documents.transcript import transcript_entry
from panda.documents.vault import Vault
from panda.errors import UnsafePathError
from panda.language.text import STOP_WORDS, tokenize, words
from panda.llm import cpu
from panda.memory import compute_threads, conversation_signals, current_facts, relevance_model, scoring
from panda.memory.ann import AnnSettings
from panda.memory.embeddings import Embedder, embed_documents, query_embedding
from panda.memory.index import SearchIndex
from panda.memory.relevance_model import RelevanceModel
from panda.privacy import visibility

log = logging.getLogger(__name__)

_embedding_thread: tuple[int, ThreadPoolExecutor] | None = None  # (the process that made it, the executor)
_embedding_thread_lock = threading.Lock()


def _query_embedding_thread() -> ThreadPoolExecutor:
    """The one worker thread that embeds search queries (MemoryStore.query_vector_soon), made on first use
    in each process: a forked child inherits the executor but not its thread, so it makes its own."""
    global _embedding_thread
    with _embedding_thread_lock:
        if _embedding_thread is None or _embedding_thread[0] != os.getpid():
            _embedding_thread = os.getpid(), ThreadPoolExecutor(max_workers=1, thread_name_prefix="panda-query-embedding")
        return _embedding_thread[1]


@dataclass
class SearchResult:
    id: str
    kind: str
    title: str
    primary_topic: str
    doc_path: str
    score: float
    snippet: str
    quality: float
    scope: str
    created_at: datetime
    content_types: list[str] = field(default_factory=list)
    possibly_outdated: bool = False
    factors: dict[str, float] = field(default_factory=dict)
    superseded: bool = False  # a fact no longer true, or a message that stated one (memory/current_facts.py)
    valid_at: datetime | None = None
    invalid_at: datetime | None = None

    def as_dict(self) -> dict[str, Any]:
        out = self.__dict__.copy()
        for key in ("created_at", "valid_at", "invalid_at"):
            out[key] = out[key].isoformat() if out[key] is not None else None
        return out


@dataclass(frozen=True)
class SearchRequest:
    """One memory.search: the query, seed 001's filters, the time it runs at, and how it is recorded.

    Filters: `topic_filter` (a topic prefix), `content_types`, `scope`, `user_id` (whose view: own and global
    documents), `session_id`/`session_prefix`, `min_quality`, `include_expired` (None: the policy's), `kinds`,
    `exclude_ids`. Time: `now` (recency and expiry), `as_of` (the memory as it was then; replaces `now`),
    `time_range` (today, week, recent, month, all). `query_topic` ranks without filtering. Recording: `record`,
    `turn_id`, `deferred` (a turn's list the entry is appended to, committed by save), `retrieval_type`.
    """

    query: str
    _: KW_ONLY
    topic_filter: str | None = None
    content_types: list[str] | None = None
    scope: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    session_prefix: str | None = None
    min_quality: float = 0.0
    include_expired: bool | None = None
    kinds: list[str] | None = None
    limit: int | None = None
    now: datetime | None = None
    query_topic: str | None = None
    record: bool = True
    turn_id: str | None = None
    exclude_ids: set[str] | None = None
    deferred: list[dict[str, Any]] | None = None
    retrieval_type: str = "memory.search"
    as_of: datetime | None = None
    time_range: str | None = None


class MemoryStore:
    """The memory tools over one home: vault (truth) + catalog (index) + embedder."""

    def __init__(self, vault: Vault, catalog: Catalog, embedder: Embedder, policy: Policy) -> None:
        self.vault = vault
        self.catalog = catalog
        self.embedder = embedder
        self.policy = policy
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()  # a turn searches the same text twice
        # Candidates from the in-memory index (memory/index.py) unless the policy turns it off.
        rp = policy.retrieval
        ann = AnnSettings(min_rows=rp.ann_min_rows, list_factor=rp.ann_list_factor, probe_share=rp.ann_probe_share,
                          probe_rows=rp.ann_probe_rows, subvectors=rp.ann_subvectors, rerank=rp.ann_rerank)
        self.search_index: SearchIndex | None = SearchIndex(catalog, ann) if rp.in_memory_index else None
        # A shard of a sharded run (sharding.py) writes no global file and no counter back to the vault.
        self.in_shard = False

    def lexical_mix(self) -> float:
        """BM25's share of relevance for this store (scoring.chosen)."""
        return scoring.chosen(self.policy.retrieval.lexical_mix, getattr(self.embedder, "lexical_mix", None),
                              scoring.DEFAULT_LEXICAL_MIX)

    def speaker_weight(self) -> float:
        """The named speaker's lift for this store (scoring.chosen)."""
        return scoring.chosen(self.policy.retrieval.speaker_weight, getattr(self.embedder, "speaker_weight", None),
                              scoring.DEFAULT_SPEAKER_WEIGHT)

    def relevance_model(self) -> RelevanceModel | None:
        """The learned relevance for this store's embedder, unless the policy turns it off."""
        if not self.policy.retrieval.learned_relevance:
            return None
        return getattr(self.embedder, "relevance_model", None)

    def leg_beside_embedding(self) -> bool:
        """Whether a search runs its BM25 leg while the query is embedded: when the embedding leaves a core free (EmbeddingGemma's
        int8 queries take both here; at 1M documents the leg beside them gave p95 32 / p99 100+ ms, after them 26.5 / 36)."""
        threads = getattr(self.embedder, "query_threads", None)
        return threads is None or threads() < cpu.cores()

    def query_vector(self, query: str) -> np.ndarray:
        """The query's embedding, remembered for the last 256 distinct queries."""
        return self.query_vector_soon(query)()

    def query_vector_soon(self, query: str) -> Callable[[], np.ndarray]:
        """Start the query's embedding on a worker thread and return what waits for it (a remembered query: at once). A search
        runs its BM25 leg meanwhile when a core is free: the kernels and the tokenizer release the GIL."""
        if query in self._query_vectors:
            self._query_vectors.move_to_end(query)
            vector = self._query_vectors[query]
            return lambda: vector
        pending = _query_embedding_thread().submit(query_embedding, self.embedder, query)

        def wait() -> np.ndarray:
            vector = np.asarray(pending.result())
            self._query_vectors[query] = vector
            if len(self._query_vectors) > 256:
                self._query_vectors.popitem(last=False)
            return vector

        return wait

    # ---- indexing ------------------------------------------------------------------------------
    def index(self, docs: list[Document]) -> None:
        """Embed and upsert documents into the catalog (their files must already exist)."""
        if not docs:
            return
        vectors = embed_documents(self.embedder, docs)
        self.catalog.upsert_documents(docs, list(vectors))

    # ---- memory.search -------------------------------------------------------------------------
    def search(self, request: SearchRequest) -> list[SearchResult]:
        """Rank every document `user_id` may read (its own and global ones; privacy/visibility.py).

        A question about a user attribute leads with the current fact (memory/current_facts.py).
        `as_of`: search the memory as it was then — documents created later are left out, and facts
        are the ones true then (it replaces `now`). `time_range` (seed 001: today, week, recent = 30
        days, month, all): only documents created in that window before `now`.

        Recording (`record`): inside a turn the caller passes `deferred`, a list the retrieval is appended
        to — the save phase commits it with the turn, so a re-run turn never counts twice. Otherwise the
        reference counts and the retrieval row are written in one transaction (a reader on a snapshot
        journals them for the next writer, catalog/journal.py) and the vault files follow.
        """
        q = request
        rp = self.policy.retrieval
        now = utc(q.as_of or q.now or datetime.now(UTC))
        limit = min(q.limit or self.policy.search.default_limit, self.policy.search.max_results)
        expired_ok = self.policy.search.include_expired if q.include_expired is None else q.include_expired
        started = time.perf_counter()
        filters = SearchFilters(
            user_id=q.user_id, session_id=q.session_id, session_prefix=q.session_prefix, scope=q.scope,
            content_types=tuple(q.content_types or ()),
            kinds=tuple(q.kinds or ()), topic_prefix=q.topic_filter, min_quality=q.min_quality,
            include_expired=expired_ok, now=now, created_before=utc(q.as_of) if q.as_of else None,
            created_after=scoring.time_range_start(q.time_range, now),
        )
        floor = scoring.chosen(self.policy.research.relevance_floor, getattr(self.embedder, "relevance_floor", None),
                               scoring.DEFAULT_RELEVANCE_FLOOR)  # web pages' and notes' least cosine (FLOORED_KINDS)
        with compute_threads.single_blas():  # steadier and faster: memory/compute_threads.py
            rows, lexical, candidates = self.candidates(q.query, filters, self.pool_size(limit), q.user_id, q.exclude_ids)
            results = [r for r in rank(rows, lexical, q.query, q.query_topic or q.topic_filter, now, self.policy,
                                       self.lexical_mix(), self.speaker_weight(), self.relevance_model())
                       if r.kind not in FLOORED_KINDS or r.factors["cosine"] >= floor]
            if q.user_id is not None and rp.current_facts_first and filters_allow_facts(filters) and not q.time_range:
                results = self.facts_first(results, q.query, q.user_id, now)
        results = results[:limit]
        elapsed = (time.perf_counter() - started) * 1000
        if q.record:
            entry = retrieval_entry(q.user_id, q.session_id, q.turn_id, q.query, q.retrieval_type, candidates, results,
                                    elapsed, now)
            if q.deferred is not None:
                q.deferred.append(entry)
            elif self.catalog.is_snapshot:
                from panda.catalog.journal import write_retrieval

                assert self.catalog.snapshot_of is not None
                write_retrieval(self.catalog.snapshot_of, entry)
            else:
                with self.catalog.transaction():
                    self.catalog.increment_counters(entry["result_ids"], "reference_count")
                    self.catalog.record_retrieval_entry(entry)
                self.sync_counters()
        return results

    def pool_size(self, limit: int) -> int:
        """How many candidates each leg of a search returning `limit` results brings (the policy's pool, or
        three per result when more are asked)."""
        return max(self.policy.retrieval.candidate_pool, limit * 3)

    def candidates(self, query: str, filters: SearchFilters, pool: int, user_id: str | None,
                   exclude_ids: set[str] | None = None) -> tuple[list[dict[str, Any]], dict[str, float], int]:
        """What a search ranks: the candidate rows `user_id` may read (each with its `cosine`), BM25 scores by id,
        and how many candidates the two legs (up to `pool` each) found."""
        embedding = self.query_vector_soon(query)  # embedded while the BM25 leg runs, when a core is left for it
        rp, index, terms = self.policy.retrieval, self.search_index, tokenize(query)
        if index is not None and not self.leg_beside_embedding():  # else both legs after it, at once
            vector = embedding()
            found, semantic = index.legs(terms, vector, filters, pool, rp.bm25_k1, rp.bm25_b, _query_embedding_thread())
            lexical = dict(found)
        elif index is not None:
            lexical = dict(index.bm25(terms, filters, pool, rp.bm25_k1, rp.bm25_b))
            vector = embedding()
            semantic = index.vectors(vector, filters, pool)
        else:
            lexical = dict(self.catalog.bm25_candidates(terms, filters, pool, rp.bm25_k1, rp.bm25_b))
            vector = embedding()
            semantic = self.catalog.vector_candidates(vector.tolist(), filters, pool)
        ids = [i for i in dict.fromkeys([*lexical, *(i for i, _ in semantic)]) if not exclude_ids or i not in exclude_ids]
        rows = index.rows(ids, vector) if index is not None else self.catalog.candidate_rows(ids, vector.tolist())
        return [row for row in rows if visibility.may_read(user_id, row["owner_user"], row["scope"])], lexical, len(ids)

    def facts_first(self, results: list[SearchResult], query: str, user_id: str, now: datetime) -> list[SearchResult]:
        """Current facts of the attribute asked about, then its superseded ones, then the rest with the
        messages that stated superseded values marked and scaled (memory/current_facts.py)."""
        if not current_facts.attributes_asked(query):
            return results
        files = {kind: self.vault.memory_file(user_id, kind) for kind in ("fact", "preference")}
        entries = [(kind, e) for kind, f in files.items() for e in f.entries]
        hits = current_facts.facts_for(entries, query, now, user_id)
        if not hits:
            return results
        top = max((r.score for r in results), default=1.0) or 1.0
        factor = self.policy.retention.superseded_score_factor
        rels = {kind: self.vault.layout.relative(self.vault.layout.memory_path(user_id, kind)) for kind in files}
        led = [fact_result(h, rels[h.kind], top * (factor if h.superseded else 1.0)) for h in hits]
        stated_old = current_facts.superseded_sources(hits)
        rest = [r for r in results if r.id not in {h.entry.id for h in hits}]
        for r in rest:
            if r.id in stated_old:
                r.superseded, r.score = True, round(r.score * factor, 6)
        rest.sort(key=lambda r: (-r.score, r.id))
        return led + rest

    def freeze_global_counters(self) -> None:
        """Rank global documents by their counters as of now until `thaw_counters` (a batch's view:
        another user's turn in the same batch, on this shard or another, does not move them)."""
        if self.search_index is not None:
            self.search_index.freeze_counters({GLOBAL_PARTITION})

    def thaw_counters(self) -> None:
        if self.search_index is not None:
            self.search_index.thaw_counters()

    def sync_counters(self) -> int:
        """Write the catalog's counter values into the vault files of documents queued in counter_sync.

        Absolute values, so repeating a write-back a crash interrupted changes nothing. Returns how many.
        """
        if self.catalog.read_only:
            return 0
        if self.in_shard:  # the reduce's commits count the shard's turns and write the values back, once
            return 0
        rows = self.catalog.counters_to_sync()
        self.vault.update_counters_many(
            [(r["doc_path"], {k: r[k] for k in ("usage_count", "reference_count", "validation_count",
                                                  "validation_success")}) for r in rows if r["doc_path"]],
            absolute=True)
        self.catalog.counters_synced([r["id"] for r in rows])
        return len(rows)

    # ---- memory.save ---------------------------------------------------------------------------
    def prepare_save(self, content: str, *, doc_type: str, topic: str, keywords: list[str], user_id: str | None,
                     scope: str = "new", ttl_hours: float | None = None, now: datetime | None = None,
                     doc_id: str | None = None, session_id: str | None = None,
                     source: str | None = None) -> Document:
        """Build (not yet write) a memory document; NEW documents get the policy TTL (24 h).

        doc_type (seed 000): memory, preference, or site_knowledge — a memory document whose content type
        is seed 000's `site_pattern` (topic "site.<domain>"), informational rather than personal."""
        now = utc(now or datetime.now(UTC))
        if scope == "new" and ttl_hours is None:
            ttl_hours = self.policy.scope.new_ttl_hours
        if user_id is not None:
            validate_name(user_id, "user_id")
        return Document(
            id=doc_id or new_id("mem"), kind="preference" if doc_type == "preference" else "memory",
            title=" ".join(content.split()[:10]), primary_topic=topic or "general", keywords=keywords[:10],
            intent="personal" if doc_type in ("preference", "memory") else "informational",
            content_types=[SAVE_CONTENT_TYPES.get(doc_type, doc_type)],
            scope=scope if scope in ("new", "user", "global") else "new",  # type: ignore[arg-type]
            quality=0.5, owner_user=user_id, session_id=session_id, created_at=now,
            expires_at=now + timedelta(hours=ttl_hours) if ttl_hours else None,
            body=content, extra={"source": source} if source else {},
        )

    def duplicate_of(self, content: str, user_id: str | None, now: datetime | None = None) -> str | None:
        """The id of a current memory or preference of this user that says the same thing, if any
        (normalised text equal or ≥ 90 % similar: language/facts.py near_duplicate); memory.save skips it."""
        from panda.language.facts import near_duplicate

        terms = tokenize(content)
        if not terms or user_id is None:
            return None
        filters = SearchFilters(user_id=user_id, kinds=("memory", "preference"), now=utc(now or datetime.now(UTC)))
        ids = [i for i, _ in self.catalog.bm25_candidates(terms, filters, 10)]
        for row in self.catalog.candidate_rows(ids, None):
            if row["owner_user"] == user_id and near_duplicate((row.get("search_text") or "").split("\n", 1)[-1], content):
                return str(row["id"])
        return None

    def save(self, doc: Document) -> Document:
        """Write the document file, then index it."""
        self.vault.write_document(doc)
        self.index([doc])
        return doc

    # ---- memory.retrieve -----------------------------------------------------------------------
    def retrieve(self, doc_id: str | None = None, doc_path: str | None = None,
                 user_id: str | None = None) -> Document | None:
        """A document by id or vault path, if `user_id` may read it (None: the operator's view)."""
        row = self.catalog.get_document(doc_id) if doc_id else None
        if row is None and doc_path:
            row = self.catalog.find_by_path(doc_path)
        if row is not None and not visibility.may_read(user_id, row["owner_user"], row["scope"]):
            return None
        if row is None:
            if not doc_path or not doc_path.endswith(".md") or not visibility.may_read_path(user_id, doc_path):
                return None
            try:
                return self.vault.read_document(doc_path)
            except (OSError, ValueError, UnsafePathError):
                return None
        path = row["doc_path"]
        try:
            if row["kind"] in ("message", "session_summary"):  # an entry of a session transcript
                return Document(**{k: v for k, v in row.items() if k in Document.model_fields},
                                body=transcript_entry(self.vault.read_text(path), row["id"], row["kind"]))
            if row and row["kind"] in ("preference", "fact", "context"):
                return Document(**{k: v for k, v in row.items() if k in Document.model_fields},
                                body=self.vault.read_text(path) if row["kind"] == "context" else row.get("title", ""))
            return self.vault.read_document(path)
        except FileNotFoundError:
            log.warning("document %s is in the catalog but its file %s is missing", doc_id, path)
            return None


SAVE_CONTENT_TYPES = {"site_knowledge": "site_pattern"}  # seed 000: "Type is just metadata"

# Web pages and knowledge notes are global and many: one not about the query at all (raw cosine below `research.relevance_floor`,
# the embedder's, chosen 2-fold by benchmarks/relevance_floor.py) is no result of any search (research.search, gather, …).
FLOORED_KINDS = ("webpage", "note")


def filters_allow_facts(filters: SearchFilters) -> bool:
    """Whether the user's fact and preference entries could pass these filters (facts-first applies)."""
    wanted = {"fact", "preference"}
    return (filters.session_id is None and filters.session_prefix is None and filters.scope in (None, "user")
            and not filters.topic_prefix and (not filters.kinds or bool(wanted & set(filters.kinds)))
            and (not filters.content_types or bool(wanted & set(filters.content_types))))


def fact_result(hit: current_facts.FactHit, file_rel: str, score: float) -> SearchResult:
    """A facts.md / preferences.md entry as a search result, superseded ones marked."""
    e = hit.entry
    return SearchResult(id=e.id, kind=hit.kind, title=e.text[:80], primary_topic=f"user.{hit.kind}",
                        doc_path=f"{file_rel}#{e.id}", score=round(score, 6), snippet=e.text,
                        quality=min(1.0, max(0.0, e.confidence)), scope="user",
                        created_at=e.learned_at or datetime.fromtimestamp(0, UTC), content_types=[hit.kind],
                        superseded=hit.superseded, valid_at=e.learned_at, invalid_at=e.invalid_at)


def retrieval_entry(user_id: str | None, session_id: str | None, turn_id: str | None, query: str,
                    retrieval_type: str, candidates: int, results: list[SearchResult], elapsed_ms: float,
                    when: datetime) -> dict[str, Any]:
    """One retrieval as plain, JSON-able data: what a turn keeps in metadata.json and a reader journals."""
    return {"user_id": user_id, "session_id": session_id, "turn_id": turn_id, "query": query,
            "retrieval_type": retrieval_type, "candidates": candidates, "result_ids": [r.id for r in results],
            "retrieval_ms": round(elapsed_ms, 3), "context_tokens": sum(estimate_tokens(r.snippet) for r in results),
            "created_at": when.isoformat()}


def signal_weights(policy: Policy, speaker_weight: float | None) -> conversation_signals.SignalWeights:
    """The conversation signals' weights of a search (`speaker_weight`: the store's, MemoryStore.speaker_weight)."""
    rp = policy.retrieval
    speaker = scoring.chosen(rp.speaker_weight, speaker_weight, scoring.DEFAULT_SPEAKER_WEIGHT)
    return conversation_signals.SignalWeights(speaker, rp.neighbour_weight, rp.date_weight, rp.date_scale_days)


def rank(rows: list[dict[str, Any]], lexical: dict[str, float], query: str, query_topic: str | None,
         now: datetime, policy: Policy, lexical_mix: float | None = None,
         speaker_weight: float | None = None, learned: RelevanceModel | None = None) -> list[SearchResult]:
    """Score candidate rows with the seed factors and sort, best first (ties by id). `lexical_mix`,
    `speaker_weight` and `learned` are the store's (MemoryStore.lexical_mix/speaker_weight/relevance_model);
    None: the policy's or the base model's, and the hand-set relevance."""
    rp = policy.retrieval
    mix = scoring.chosen(rp.lexical_mix, lexical_mix, scoring.DEFAULT_LEXICAL_MIX)
    signals = signal_weights(policy, speaker_weight)
    if learned is not None:
        rel = learned.relevance([row["id"] for row in rows],
                                relevance_model.features(rows, lexical, query, now, mix, signals))
    else:
        _, rel = relevance_model.hand_set_relevance(rows, lexical, query, now, mix, signals)
    query_words = [w for w in words(query) if len(w) > 1]
    matcher = scoring.FuzzyWords(rp.fuzzy_threshold, rp.fuzzy_exact_max_len)  # word pairs compared once a search
    doc_words = {row["id"]: words(row.get("search_text") or "")[:150] for row in rows}
    title_words = {row["id"]: words(row["title"] or "") for row in rows}
    matcher.prepare(query_words, set().union(*doc_words.values(), *title_words.values()), complete=True)
    results = []
    for row in rows:
        created = utc(row["created_at"]) if row["created_at"] else now
        age_days = max((now - created).total_seconds() / 86400, 0.0)
        trust = (row["validation_success"] + 1) / (row["validation_count"] + 2)
        text = row.get("search_text") or ""
        factors = scoring.Factors(
            semantic=rel.get(row["id"], 0.0),
            recency=scoring.recency_score(age_days, rp.recency_half_life_days),
            frequency=scoring.frequency_score(int(row["reference_count"]), rp.frequency_saturation_count),
            vehemence=float(row["importance"] or 0.0),
            quality=scoring.effective_quality(float(row["quality"] or 0.0), trust),
            freshness=scoring.freshness_factor(age_days, list(row["content_types"] or []), policy.freshness),
            topic_match=scoring.topic_matches(query_topic, row["primary_topic"]),
            fuzzy=matcher.share(query_words, doc_words[row["id"]]),
        )
        expires = row["expires_at"]
        score = scoring.combine(factors, rp)
        if "archived" in (row["content_types"] or []):
            score *= policy.retention.archived_score_factor
        if "rejected" in (row["content_types"] or []):  # the user said this turn's answer was wrong
            score *= policy.retention.rejected_score_factor
        results.append(SearchResult(
            id=row["id"], kind=row["kind"], title=row["title"] or "", primary_topic=row["primary_topic"] or "",
            doc_path=row["doc_path"] or "", score=round(score, 6),
            snippet=" ".join(text.split("\n", 1)[-1].split(maxsplit=60)[:60]), quality=float(row["quality"] or 0),
            scope=row["scope"] or "new",
            created_at=created, content_types=list(row["content_types"] or []),
            possibly_outdated=bool(expires is not None and utc(expires) <= now),
            factors={**{k: float(v) for k, v in factors.__dict__.items()}, "cosine": float(row["cosine"] or 0.0)},
        ))
    results.sort(key=lambda r: (-r.score, r.id))
    if rp.priority_band > 0:
        by_id = {row["id"]: row for row in rows}
        content_words = [w for w in query_words if w not in STOP_WORDS]
        tiers = scoring.priority_tiers([r.factors["topic_match"] > 0 for r in results], content_words,
                                       [list(by_id[r.id].get("keywords") or []) for r in results],
                                       [title_words[r.id] for r in results], rp.fuzzy_threshold,
                                       matcher if rp.fuzzy_exact_max_len == 3 else None)
        for r, tier in zip(results, tiers, strict=True):
            r.factors["priority_tier"] = float(tier)
        results = [results[i] for i in scoring.order_by_priority([r.score for r in results], tiers, rp.priority_band)]
    return results

