"""Opening a home and choosing a backend: the one place that wires Panda's parts together.

`open_home` creates the vault skeleton, writes or strictly reads the policy, opens the catalog and
the embedder, and returns the `Home` the pipeline and jobs share. `make_backend` picks a
backend class from a plain dict (a typo fails at once with the valid names, unlike dotted paths).
`home_with_backend` opens both and closes both; `process_turns`, `enrich_turns` and `ingest` are the whole
jobs of `panda run` / `panda ingest`, which the CLI and the Prefect flows both call (so a flow stays one call).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from panda.catalog.store import Catalog
from panda.config import Settings, load_policy
from panda.conversations.ingest import IngestReport, ingest_messages
from panda.conversations.messages import MessageInput
from panda.documents.vault import Vault
from panda.errors import ConfigError
from panda.home import Home
from panda.llm.backend import Backend
from panda.llm.model_cache import role_models_for
from panda.memory import embedder_profiles
from panda.memory.embeddings import BASE_IDENTITY, EMBEDDER_SETTING, Embedder, SentenceEmbedder
from panda.memory.search import MemoryStore
from panda.pipeline.turn_input import TurnInput


def _vllm(settings: Settings) -> Backend:
    from panda.llm.vllm_backend import VLLMBackend

    return VLLMBackend(model=settings.model, role_models=settings.role_models, max_model_len=settings.max_model_len)


def _openai(settings: Settings) -> Backend:
    from panda.llm.openai_backend import OpenAIBackend

    return OpenAIBackend(settings.openai_base_url, settings.model, settings.openai_api_key, settings.role_models)


def _scripted(settings: Settings) -> Backend:
    from panda.llm.scripted import ScriptedBackend
    from panda.llm.scripted_replies import schema_responder

    # seconds per batch ($PANDA_SCRIPTED_LATENCY_S), so a test can act while a (sharded) run is under way
    return ScriptedBackend(responder=schema_responder, latency_s=settings.scripted_latency_s)


BACKENDS: dict[str, Callable[[Settings], Backend]] = {"vllm": _vllm, "openai": _openai, "scripted": _scripted}


def settings_for(home: str | Path | None = None, backend: str | None = None, model: str | None = None,
                 base_url: str | None = None, role_models: dict[str, str] | None = None,
                 embedding_model: str | None = None, embedding_dim: int | None = None, one_engine: bool = False,
                 **overrides: Any) -> Settings:
    """Settings from plain options — a flow's parameters, the CLI's flags (cli.engine_options); None keeps
    the default (and the environment's: $PANDA_HOME, $PANDA_EMBEDDING_MODEL, ...). A run on the embedded engine
    without --model takes this machine's model per role (llm/model_cache.role_models_for) unless `one_engine`
    (a sharded run starts an engine in every shard)."""
    given: dict[str, Any] = {"home": Path(home) if home else None, "backend": backend, "model": model,
                             "openai_base_url": base_url, "role_models": role_models or None,
                             "embedding_model": embedding_model, "embedding_dim": embedding_dim}
    settings = Settings(**{k: v for k, v in given.items() if v is not None}, **overrides)
    if one_engine:
        return settings
    return settings.model_copy(update={"role_models": role_models_for(settings.backend, settings.model,
                                                                      settings.role_models)})


def make_backend(settings: Settings) -> Backend:
    try:
        factory = BACKENDS[settings.backend]
    except KeyError as exc:
        raise ValueError(f"unknown backend {settings.backend!r}; choose one of {sorted(BACKENDS)}") from exc
    return factory(settings)


def embedder_choice(settings: Settings, catalog: Catalog) -> Settings:
    """The settings with the embedder a home keeps: an unset embedding_model (embedder_profiles.is_default) takes
    the profile and width the catalog records, so a home made on a machine whose default was EmbeddingGemma keeps
    it on one whose default is MiniLM, and the other way round. A set model, a home with no vectors yet, or one
    made by a folder's model keep the settings as they are (a folder's home then needs its folder named)."""
    if not embedder_profiles.is_default(settings.embedding_model):
        return settings
    recorded = recorded_embedder(catalog)
    found = embedder_profiles.from_identity(recorded) if recorded else None
    if found is None:
        return settings
    name, dim = found
    if settings.embedding_dim is not None and settings.embedding_dim != dim:
        return settings  # a width asked for: check_embedder says what to do
    native = embedder_profiles.PROFILES[name].native_dim
    return settings.model_copy(update={"embedding_model": name, "embedding_dim": None if dim == native else dim})


def recorded_embedder(catalog: Catalog) -> str | None:
    """The identity of the embedder that made a catalog's vectors; a catalog with documents but no record
    predates the record and was made by all-MiniLM-L6-v2. None: no vectors yet."""
    recorded = catalog.setting(EMBEDDER_SETTING)
    return BASE_IDENTITY if recorded is None and catalog.count_documents() else recorded


def check_embedder(catalog: Catalog, embedder: Embedder, where: Path, reembedding: bool = False) -> None:
    """The one rule for every opener: a catalog's vectors and its queries come from the same model.

    A catalog records the identity of the embedder that made its vectors (SentenceEmbedder.identity); one
    with documents but no record predates the record and was made by the base model. A different model
    is refused (its cosines against those vectors would be noise) unless the caller re-embeds everything
    (`reembedding`: `panda reindex`, which records the new identity when it has finished)."""
    current = getattr(embedder, "identity", None)
    if current is None or reembedding:  # an embedder without an identity (tests' stand-ins) is not checked
        return
    recorded = recorded_embedder(catalog)
    if recorded is None:
        if not catalog.read_only:
            catalog.set_setting(EMBEDDER_SETTING, current)
        return
    if recorded != current:
        raise ConfigError(f"{where}: the catalog's vectors were made by embedder {recorded!r}, but this run uses "
                          f"{current!r}. Re-embed with `panda reindex --home {where}` (same embedding settings), or "
                          "run with the embedder that made them (embedding_model: gemma is EmbeddingGemma-300M, minilm "
                          "is all-MiniLM-L6-v2; embedding_dim: a truncation, e.g. 256).")


def open_home(settings: Settings, embedder: Embedder | None = None, backend: Backend | None = None,
              read_only: bool = False, in_shard: bool = False, reembedding: bool = False,
              lock_timeout: float | None = None) -> Home:
    """Open a home to write (the default: takes the home's writer lock, waiting for another writer) or,
    with `read_only`, to read (a consistent snapshot; never fails because a writer is busy).

    A shard of a sharded run (`in_shard`) opens its catalog partition (`settings.catalog_file`) and writes
    no global file and no counter back to the vault (sharding.py). A writer first finishes what
    an earlier process left: journalled reader searches and counter write-backs (both exactly once).
    The embedder must be the one that made the catalog's vectors (check_embedder) unless `reembedding`.
    `lock_timeout` bounds the wait for the writer lock (0: take it only if free now; HomeBusyError otherwise)."""
    settings.home.mkdir(parents=True, exist_ok=True)
    vault = Vault(settings.home)
    policy = load_policy(settings.home)
    catalog = Catalog.open_reader(settings.catalog_path) if read_only else \
        Catalog(settings.catalog_path, lock_timeout=lock_timeout)
    try:
        if embedder is None:
            settings = embedder_choice(settings, catalog)
            embedder = SentenceEmbedder(settings.embedding_model, dim=settings.embedding_dim)
        check_embedder(catalog, embedder, settings.home, reembedding)
        memory = MemoryStore(vault, catalog, embedder, policy)
        memory.in_shard = catalog.counters_authoritative = in_shard
        if not catalog.read_only:
            from panda.catalog.journal import apply_pending

            apply_pending(catalog)
            memory.sync_counters()
    except BaseException:
        catalog.close()
        raise
    model_for: Any = backend.model_for if backend is not None else (lambda role: settings.model or "default")
    return Home(settings=settings, policy=policy, vault=vault, catalog=catalog, memory=memory,
                           model_for=model_for)


@contextmanager
def home_with_backend(settings: Settings, **options: Any) -> Iterator[tuple[Home, Backend]]:
    """The backend `settings` name and the home opened with it (`options`: open_home's); both are closed however
    the block ends (the backend's engine process included)."""
    backend = make_backend(settings)
    try:
        with open_home(settings, backend=backend, **options) as ctx:
            yield ctx, backend
    finally:
        backend.close()


def process_turns(settings: Settings, turns: list[TurnInput], enrich: bool = False,
                  on_turn_done: Callable[[Any, str], None] | None = None) -> dict[str, Any]:
    """`panda run` and the turns flow: the batch in one process, then (`enrich`) its messages' enrichment (seed
    004). Returns the batch summary with the enrichment counts and the catalog's turn count."""
    from panda.conversations.enrich import enrich_turn_messages
    from panda.pipeline.scheduler import run_batch

    with home_with_backend(settings) as (ctx, backend):
        summary = run_batch(turns, ctx, backend, settings.max_active_users, on_turn_done=on_turn_done).summary()
        if enrich:
            summary["enrichment"] = enrich_turn_messages(ctx, backend, turns)
        summary["turns_in_catalog"] = ctx.catalog.table_count("turn_index")
    return summary


def enrich_turns(settings: Settings, turns: list[TurnInput]) -> dict[str, int]:
    """Enrich the messages of `turns` (after a sharded run's reduce, in the process that reduced)."""
    from panda.conversations.enrich import enrich_turn_messages

    with home_with_backend(settings) as (ctx, backend):
        return enrich_turn_messages(ctx, backend, turns)


def ingest(settings: Settings, messages: list[MessageInput], enrich: bool = False,
           enrich_limit: int | None = None) -> IngestReport:
    """`panda ingest` and the ingest flow in one process: store the messages (sessions, transcripts, facts), then
    (`enrich`) enrich what is pending with the settings' backend. Returns the IngestReport."""
    from panda.conversations.enrich import enrich_pending

    if not enrich:
        with open_home(settings) as ctx:
            return ingest_messages(ctx, messages)
    with home_with_backend(settings) as (ctx, backend):
        report = ingest_messages(ctx, messages)
        report.enrichment = enrich_pending(ctx, backend, limit=enrich_limit)
        return report


def enrich_users(settings: Settings, users: list[str], limit: int | None = None) -> dict[str, int]:
    """Enrich the pending messages of `users` (after an import) with the settings' backend."""
    from panda.conversations.enrich import enrich_pending

    with home_with_backend(settings) as (ctx, backend):
        return enrich_pending(ctx, backend, users=users, limit=limit)
