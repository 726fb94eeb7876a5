"""An engine that dies on a batch is started again once for that batch; a second death is one clear TransientError
(llm/vllm_backend.py). Fake engines stand in for vLLM's, whose own failure is not something a test can cause."""

from __future__ import annotations

import importlib.util
from types import SimpleNamespace

import pytest

from panda.errors import BackendUnavailableError, TransientError
from panda.llm.backend import ChatRequest, Sampling

if importlib.util.find_spec("vllm") is None:
    pytest.skip("vLLM is not installed (run scripts/setup.sh)", allow_module_level=True)

from panda.llm import vllm_backend  # noqa: E402
from panda.llm.vllm_backend import VLLMBackend  # noqa: E402


class Engine:
    def __init__(self, dies: bool) -> None:
        self.dies, self.batches, self.stopped = dies, 0, False
        self.llm_engine = SimpleNamespace(engine_core=SimpleNamespace(shutdown=self.stop))

    def stop(self) -> None:
        self.stopped = True

    def chat(self, messages, sampling_params, use_tqdm):
        self.batches += 1
        if self.dies:
            raise RuntimeError("EngineCore encountered an issue. See stack trace (above) for the root cause.")
        return [SimpleNamespace(outputs=[SimpleNamespace(text='{"ok": true}', token_ids=[1, 2], finish_reason="stop")],
                                prompt_token_ids=[1, 2, 3], metrics=None) for _ in messages]


def _backend(engines: list[Engine]) -> VLLMBackend:
    backend = VLLMBackend.__new__(VLLMBackend)
    backend.model, backend.role_models, backend.max_model_len, backend.engine_args, backend._cpu = "m", {}, 512, {}, True
    backend._engines = {}
    started = iter(engines)

    def engine(model: str):
        if model not in backend._engines:
            backend._engines[model] = next(started)
        return backend._engines[model]

    backend._engine = engine  # type: ignore[method-assign]
    return backend


def _requests(n: int) -> list[ChatRequest]:
    return [ChatRequest(role="MIND", sampling=Sampling(0.5, 20), phase="plan",
                        messages=[{"role": "user", "content": f"q{i}"}]) for i in range(n)]


def test_an_engine_that_dies_on_a_batch_is_restarted_once_and_the_batch_finishes():
    first, second = Engine(dies=True), Engine(dies=False)
    results = _backend([first, second]).generate(_requests(3))
    assert [r.text for r in results] == ['{"ok": true}'] * 3
    assert first.stopped and (first.batches, second.batches) == (1, 1)


def test_a_second_death_is_one_clear_transient_error_and_no_engine_is_left_running():
    first, second = Engine(dies=True), Engine(dies=True)
    backend = _backend([first, second])
    with pytest.raises(TransientError, match=r"failed twice on a batch of 2 requests, the second time after a restart "
                                             r"\(EngineCore encountered an issue"):
        backend.generate(_requests(2))
    assert first.stopped and second.stopped and backend._engines == {}


def test_an_engine_that_cannot_fit_in_free_memory_is_refused_before_it_starts(tmp_path):
    from panda.llm.vllm_backend import check_memory

    model = tmp_path / "model"
    model.mkdir()
    (model / "model.safetensors").write_bytes(b"\0" * (1 << 20))  # 1 MiB of "weights"
    check_memory(str(model), 0.001, 50 << 20)  # fits: no error
    with pytest.raises(BackendUnavailableError, match=r"not enough free memory to start the vLLM engine for model: "
                                                        r"it needs about .* GiB \(weights 0.0 GiB \+ KV cache 4 GiB\)"):
        check_memory(str(model), 4, 3 << 30)
    check_memory(str(model), 4, None)  # memory unknown: no refusal



def test_an_engine_that_fails_to_start_is_one_clear_line(monkeypatch, tmp_path):
    """vLLM's engine core refuses to start when its KV cache does not fit beside other engines; the command gets one
    BackendUnavailableError naming the usual cause, not vLLM's traceback."""
    import vllm

    def refuses(**kwargs):
        raise RuntimeError("Engine core initialization failed. See root cause above. Failed core proc(s): {}")

    monkeypatch.setattr(vllm, "LLM", refuses)
    monkeypatch.setattr(vllm_backend, "available_bytes", lambda: 64 * 2**30)  # the memory check passes on a busy box
    model = tmp_path / "model"
    model.mkdir()
    backend = VLLMBackend(str(model))
    with pytest.raises(BackendUnavailableError, match=r"the vLLM engine for model did not start \(Engine core "
                                                        r"initialization failed.*VLLM_CPU_KVCACHE_SPACE"):
        backend.generate(_requests(1))


def test_a_role_model_that_cannot_start_moves_its_roles_to_the_default_model():
    """The answers' engine on a machine sized for two (llm/model_cache.TWO_ENGINES_MEMORY) whose memory other jobs have
    taken: the run goes on with the roles on the default model, not a failed command; a default that cannot start
    still fails."""
    backend = _backend([Engine(dies=False)])
    backend.role_models = {"MIND": "big"}
    fits = backend._engine

    def engine(model: str):
        if model == "big":
            raise BackendUnavailableError("not enough free memory to start the vLLM engine for big")
        return fits(model)

    backend._engine = engine  # type: ignore[method-assign]
    results = backend.generate(_requests(2))
    assert [r.model for r in results] == ["m", "m"] and backend.role_models == {}
    backend.model, backend._engines = "big", {}
    with pytest.raises(BackendUnavailableError, match="not enough free memory"):
        backend.generate(_requests(1))
