"""A query's embedding (one text: the traced encoder) is the vector a batch gives; search threads."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import numpy as np
from threadpoolctl import threadpool_info

from panda.memory import compute_threads
from panda.memory.embeddings import QueryEncoder, SentenceEmbedder

QUESTIONS = ["where does dana live", "What did Caroline research after the LGBTQ support group meeting?",
             "Biscuit", " ".join(["a question far longer than the model's maximum sequence length"] * 30)]


def test_one_text_goes_through_the_traced_encoder_and_gives_the_batch_vector(embedder: SentenceEmbedder):
    assert embedder._query_encoder() is not None  # the default model gets the fast path
    batch = embedder.embed([*QUESTIONS, "padding makes this a batch"])[: len(QUESTIONS)]
    for text, expected in zip(QUESTIONS, batch, strict=True):
        single = embedder.embed([text])
        assert single.shape == (1, embedder.dim) and single.dtype == np.float32
        assert float(single[0] @ expected) > 0.9999
        assert abs(float(np.linalg.norm(single[0])) - 1.0) < 1e-5
        # a stored vector: the float32 trace, never the timed bfloat16 one, so one process's choice cannot change it
        assert np.allclose(single[0], expected, atol=1e-5)


def test_short_queries_take_the_short_trace_and_longer_texts_the_float32_one(embedder: SentenceEmbedder):
    encoder = embedder._query_encoder()
    assert encoder is not None
    taken: list[str] = []

    def recording(name: str, forward: object) -> object:
        def run(ids: object, mask: object) -> object:
            taken.append(name)
            return forward(ids, mask)  # type: ignore[operator]
        return run

    routed = QueryEncoder(encoder.tokenizer, recording("float32", encoder.traced), encoder.max_length,
                          recording("short", encoder.short or encoder.traced))
    long_question = " ".join(["what did we say about the trip"] * 8)  # > SHORT_TOKENS tokens
    assert len(encoder.tokenizer([long_question])["input_ids"][0]) > QueryEncoder.SHORT_TOKENS
    for text in ["where does dana live", long_question]:
        assert float(routed.encode(text) @ embedder.embed([text, "a batch"])[0]) > QueryEncoder.AGREEMENT
    assert taken == ["short", "float32"]
    routed.encode("where does dana live", exact=True)  # a document's vector
    assert taken[-1] == "float32"


def test_warming_runs_the_short_query_trace_at_every_length_it_will_take(embedder: SentenceEmbedder):
    encoder = embedder._query_encoder()
    assert encoder is not None
    lengths: list[int] = []

    def recording(ids: object, mask: object) -> None:
        lengths.append(ids.shape[1])  # type: ignore[attr-defined]
        assert mask.shape == ids.shape  # type: ignore[attr-defined]

    QueryEncoder(encoder.tokenizer, encoder.traced, encoder.max_length, recording).warm()
    assert lengths == list(range(1, QueryEncoder.SHORT_TOKENS + 1))


class _Pooling:
    def get_config_dict(self) -> dict[str, object]:
        return {"pooling_mode": "cls"}


def test_a_model_without_mean_pooling_is_left_to_encode():
    class Transformer:
        auto_model = None

    assert QueryEncoder.build([Transformer(), _Pooling()]) is None


def _blas_threads() -> list[int]:
    return [lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"]


def test_a_search_runs_blas_on_one_thread_and_gives_the_threads_back():
    before = _blas_threads()
    assert before  # numpy's BLAS is loaded
    with compute_threads.single_blas():
        assert _blas_threads() == [1] * len(before)
        with compute_threads.single_blas():  # nested: still one, and the outer block restores
            assert _blas_threads() == [1] * len(before)
        assert _blas_threads() == [1] * len(before)
    assert _blas_threads() == before


LATE_BLAS = """
import json, numpy
from threadpoolctl import threadpool_info
from panda.memory import compute_threads

def blas():
    return {lib["filepath"]: lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

with compute_threads.single_blas():
    first = blas()
import scipy.linalg  # brings its own OpenBLAS after the first search
with compute_threads.single_blas():
    second = blas()
print(json.dumps({"first": first, "second": second, "after": blas()}))
"""


def test_a_blas_loaded_after_the_first_search_is_held_to_one_thread_too():
    env = {**os.environ, "OPENBLAS_NUM_THREADS": "2"}
    out = subprocess.run([sys.executable, "-c", LATE_BLAS], capture_output=True, text=True, env=env, check=True)
    seen = json.loads(out.stdout)
    assert len(seen["second"]) > len(seen["first"])  # a library arrived between the two searches
    assert set(seen["second"].values()) == {1}
    assert set(seen["after"].values()) == {2}
