"""What this CPU computes well: bfloat16 or not, and how many cores the vLLM CPU engine may take.

Measured on an AVX2 EPYC with 2 cores (no AVX-512 BF16; benchmarks/RESULTS.md, issue 43): the small model's batch
of 5 requests took 62.8 s in bfloat16 with vLLM's default of one core kept for its scheduler, 38.0 s in bfloat16 on
both cores and 23.7 s in float32 on both cores. Without native bfloat16 every bfloat16 matrix product is converted
on the fly, so the engine computes in float32 there (its weights take twice the memory: vllm_backend.check_memory).
vLLM keeps one core out of its compute threads for the scheduler process, which on a 2-core machine is half of it
while that process mostly waits; on up to 4 cores the engine takes them all. An operator's
VLLM_CPU_NUM_OF_RESERVED_CPU wins.
"""

from __future__ import annotations

import functools
import os
import re

SMALL_MACHINE_CORES = 4


@functools.cache
def native_bfloat16() -> bool:
    """Whether this CPU computes in bfloat16 natively (oneDNN: AVX-512 BF16 or AMX); probed once a process."""
    import torch

    try:  # a private probe: a torch without it is treated as a CPU without native bfloat16
        return bool(torch.ops.mkldnn._is_mkldnn_bf16_supported())
    except (AttributeError, RuntimeError):
        return False


@functools.cache
def int8_dot_products() -> bool:
    """Whether this CPU sums int8 products without saturating (VNNI: avx512_vnni, avx_vnni, or AMX), which ONNX
    Runtime's dynamic int8 products need for 8-bit weights; read once from /proc/cpuinfo (False where it cannot be).
    Without it, u8 x s8 pairs are summed in 16 bits and saturate: on the AVX2 EPYC, EmbeddingGemma's int8 query path
    agreed with the model to a cosine of 0.913 only (memory/quantized_query.py quantises to 7 bits there)."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            flags = handle.read()
    except OSError:
        return False
    return bool(re.search(r"\b(?:avx512_vnni|avx_vnni|amx_int8)\b", flags))


def cores() -> int:
    """The cores this process may run on (its affinity), what the engine and a search query's threads share."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def total_memory() -> int | None:
    """This machine's memory in bytes (Linux sysconf), None where it cannot be read."""
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


def engine_dtype(native_bf16: bool) -> str:
    """The vLLM CPU engine's dtype. Example: engine_dtype(False) -> 'float32'; engine_dtype(True) -> 'bfloat16'."""
    return "bfloat16" if native_bf16 else "float32"


def reserved_cores(cores: int | None) -> int | None:
    """Cores vLLM keeps from its compute threads: 0 on a small machine, else vLLM's own choice (None).
    Example: reserved_cores(2) -> 0; reserved_cores(32) -> None."""
    return 0 if cores is not None and cores <= SMALL_MACHINE_CORES else None


def configure_engine_cores() -> None:
    """Give the engine every core of a small machine unless the operator set VLLM_CPU_NUM_OF_RESERVED_CPU."""
    reserved = reserved_cores(cores())
    if reserved is not None:
        os.environ.setdefault("VLLM_CPU_NUM_OF_RESERVED_CPU", str(reserved))
