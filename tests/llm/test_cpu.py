"""The vLLM CPU engine's dtype and cores (llm/cpu.py) and the memory check that follows the dtype."""

import json

import pytest

from panda.errors import BackendUnavailableError
from panda.llm import cpu
from panda.llm.vllm_backend import check_memory


def test_float32_without_native_bfloat16_and_every_core_of_a_small_machine():
    assert cpu.engine_dtype(False) == "float32" and cpu.engine_dtype(True) == "bfloat16"
    assert [cpu.reserved_cores(n) for n in (1, 2, 4, 8, 64, None)] == [0, 0, 0, None, None, None]


def test_the_operator_reserved_cores_win(monkeypatch):
    monkeypatch.setenv("VLLM_CPU_NUM_OF_RESERVED_CPU", "1")
    monkeypatch.setattr(cpu.os, "sched_getaffinity", lambda pid: {0, 1})
    cpu.configure_engine_cores()
    assert cpu.os.environ["VLLM_CPU_NUM_OF_RESERVED_CPU"] == "1"
    monkeypatch.delenv("VLLM_CPU_NUM_OF_RESERVED_CPU")
    cpu.configure_engine_cores()
    assert cpu.os.environ["VLLM_CPU_NUM_OF_RESERVED_CPU"] == "0"


def test_float32_doubles_the_memory_a_16_bit_model_needs(tmp_path):
    model = tmp_path / "model"
    model.mkdir()
    (model / "model.safetensors").write_bytes(b"\0" * (1 << 20))
    (model / "config.json").write_text(json.dumps({"dtype": "bfloat16"}))
    gib = 1 << 30
    check_memory(str(model), 1, gib + int(1.5 * (1 << 20)))  # bfloat16: 1.2 MiB of weights fit
    with pytest.raises(BackendUnavailableError, match="not enough free memory"):
        check_memory(str(model), 1, gib + int(1.5 * (1 << 20)), widened=True)  # float32: 2.4 MiB do not


def test_the_answers_run_on_base_only_with_native_bfloat16_and_memory_for_two_engines():
    from panda.llm.model_cache import default_role_models

    gib = 1 << 30
    assert default_role_models(True, 24 * gib) == {"VOICE": "base"}
    assert default_role_models(False, 24 * gib) == {} and default_role_models(True, 16 * gib) == {}
    assert default_role_models(True, None) == {}
    from panda.llm.vllm_backend import VLLMBackend  # two engines, each with a smaller KV cache (vllm_backend._engine)

    assert VLLMBackend("/m/small", {"VOICE": "/m/base"}).engines_needed() == 2
    assert VLLMBackend("/m/small", {"VOICE": "/m/small"}).engines_needed() == 1
    assert cpu.total_memory() > gib  # this machine's, read


@pytest.mark.parametrize(("given", "roles"), [
    ({}, {"VOICE": "base"}),  # the embedded engine, no --model: this machine's default
    ({"role_models": {"MIND": "base"}}, {"VOICE": "base", "MIND": "base"}),  # --role-model adds to it
    ({"role_models": {"VOICE": "/models/big"}}, {"VOICE": "/models/big"}),  # and wins
    ({"model": "small"}, {}),  # --model names every role's model
    ({"one_engine": True}, {}),  # a sharded run: an engine in every shard
    ({"backend": "openai"}, {}),  # a server's model is the operator's
    ({"backend": "scripted"}, {}),
])
def test_a_runs_role_models_are_the_given_ones_over_this_machines(monkeypatch, tmp_path, given, roles):
    from panda.runtime import settings_for

    monkeypatch.setattr(cpu, "native_bfloat16", lambda: True)
    monkeypatch.setattr(cpu, "total_memory", lambda: 24 << 30)
    assert settings_for(tmp_path, **given).role_models == roles
    monkeypatch.setattr(cpu, "native_bfloat16", lambda: False)
    assert settings_for(tmp_path, **given).role_models == given.get("role_models", {})
