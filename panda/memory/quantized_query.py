"""EmbeddingGemma's search queries through an int8 copy of its query path in ONNX Runtime.

With EmbeddingGemma a query's embedding is most of memory.search's time: ~5 GFLOP for a 20-token query, so even
the frozen bfloat16 trace (memory/unmasked_query.py) takes p50 22-25 ms on the 2 cores here, and the search's p95 at
1M documents missed issue 40's 30 ms bound. ONNX Runtime's dynamic int8 matrix products cut the arithmetic, and the
exported graph, slimmed (onnxslim: ~6,700 operations per query down to ~2,500), cuts their dispatch. Measured on a
2-core AMD EPYC with AVX-512 BF16 (benchmarks/RESULTS.md, "Issue 40, stop 52"): on THREADS (two) threads that spin
within a query and stop when it returns, p50 ~10 / p95 ~11.5 ms against 22.5 / 26; cosine to the float32 model >=
0.984 over the 1,226 LoCoMo questions of categories 1-4 (mean 0.993); raw-cosine recall@10 0.7366 / 0.7864 on the
two LoCoMo halves against 0.7359 / 0.7900 with the exact query. A query then takes every core, so memory.search runs
its legs after it (MemoryStore.leg_beside_embedding).

Only the query is approximated: documents keep the full model (their vectors are what the catalog stores, and a
batch of them is not bound the same way), so a home's vectors and its recorded embedder are the same with either
query path, and `PANDA_EMBEDDING_QUERY=exact` (config.embedding_query) turns this off at any time.

Built once from the verified weights (memory/embedder_supply.py) into the model cache beside them: the float32
transformer with no attention mask (one query has no padding; see unmasked_query.py), mean pooling and the Dense
heads, exported to ONNX and slimmed, then its MatMul, Gemm and Gather weights quantised per channel to int8 (~310 MB;
7-bit where the CPU has no VNNI, whose int8 sums saturate: 0.913 against the model on the AVX2 EPYC otherwise). Built
in a temporary folder under a lock and renamed into place with a manifest (the source's and the file's sha256, the
agreement measured); loaded only when the manifest and the file's hash match, and used only when it agrees with
the model on PROBES (cosine >= AGREEMENT). Any failure logs one line and leaves queries on the torch path.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import logging
import shutil
import tempfile
import warnings
from pathlib import Path
from typing import Any

import numpy as np

from panda.llm import cpu

log = logging.getLogger(__name__)

THREADS = 2  # ONNX Runtime threads for one query: both cores here (the search runs its legs after it)
SPIN = "1"  # those threads busy-wait between the operations of one query...
SPIN_STOP = "1"  # ...and stop the moment it returns: the cores go back to the ranking and the LLM engine
BUILD = 2  # bumped when the export or the quantisation changes: an older build is rebuilt
SUFFIX = "-query-int8"  # the built folder: <model folder><SUFFIX>, beside the model's in the cache
MODEL_FILE = "query.onnx"
MANIFEST = "manifest.json"
MAX_TOKENS = 512  # longer queries go through the torch path (EmbeddingGemma's window: no mask is needed up to it)
AGREEMENT = 0.98  # lowest cosine to the model on PROBES (int8: 0.984 was the lowest over 1,226 LoCoMo questions)
PROBES = ("hi", "Where did Caroline move from four years ago, and why did she leave?",
          "What did they do by the lake in May 2023?", "When did Melanie paint a sunrise, and what did she say "
          "about the colours she used? Was it before or after her trip to the beach with the kids in July 2023?",
          "Which planet is known as the Red Planet?")


def folder_for(model_path: str | Path) -> Path:
    path = Path(model_path)
    return path.with_name(path.name + SUFFIX)


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 22), b""):
            digest.update(block)
    return digest.hexdigest()


def _available() -> bool:
    try:
        import onnx  # noqa: F401
        import onnxruntime  # noqa: F401
    except ImportError:
        return False
    return True


class QuantizedQueryEncoder:
    def __init__(self, tokenizer: Any, session: Any, prompt: str, threads: int = 1) -> None:
        self.tokenizer, self.session, self.prompt = tokenizer, session, prompt
        self.threads = threads  # the cores one query takes

    @classmethod
    def load_or_build(cls, model: Any, model_path: str, source_sha256: str, prompt: str, threads: int = THREADS,
                      agreement_floor: float = AGREEMENT) -> QuantizedQueryEncoder | None:
        """The encoder for `model` (loaded from `model_path`, whose weights have `source_sha256`), built the first
        time; None when ONNX Runtime is missing, the build fails or the result disagrees with the model (a cosine
        below `agreement_floor` on PROBES)."""
        if not _available():
            log.info("onnxruntime is not installed: EmbeddingGemma queries use the torch path")
            return None
        folder = folder_for(model_path)
        try:
            if not _current(folder, source_sha256):
                with (folder.parent / f".{folder.name}.lock").open("w") as lock:
                    fcntl.flock(lock, fcntl.LOCK_EX)  # two processes at once: one builds, the other reuses it
                    if not _current(folder, source_sha256):
                        log.info("building EmbeddingGemma's int8 query encoder (once, ~1 minute)")
                        _build(model_path, folder, source_sha256, prompt)
            threads = min(threads, cpu.cores())
            encoder = cls(model.tokenizer, _session(folder / MODEL_FILE, threads), prompt, threads)
        except Exception as exc:  # noqa: BLE001 - any failure here means: queries use the torch path
            log.warning("int8 query encoder not used (%s: %s); queries use the torch path", type(exc).__name__, exc)
            return None
        reference = model.encode([prompt + p for p in PROBES], normalize_embeddings=True, convert_to_numpy=True)
        agreement = min(float(encoder.encode(p) @ (r / np.linalg.norm(r)))  # type: ignore[operator]
                        for p, r in zip(PROBES, reference, strict=True))
        if agreement < agreement_floor:
            log.warning("int8 query encoder disagrees with the model (cosine %.4f < %.2f); queries use the torch path",
                        agreement, agreement_floor)
            return None
        return encoder

    def encode(self, text: str) -> np.ndarray | None:
        """The unit vector of `text` (the prompt is added here), or None when it is longer than MAX_TOKENS."""
        ids = self.tokenizer([self.prompt + text], return_tensors="np")["input_ids"].astype(np.int64)
        if ids.shape[1] > MAX_TOKENS:
            return None
        vector = np.asarray(self.session.run(None, {"ids": ids})[0][0], dtype=np.float32)
        return vector / max(float(np.linalg.norm(vector)), 1e-12)


def _current(folder: Path, source_sha256: str) -> bool:
    """Whether `folder` holds this build of the encoder for these weights, its file intact."""
    try:
        manifest = json.loads((folder / MANIFEST).read_text(encoding="utf-8"))
        return (manifest.get("build") == BUILD and manifest.get("source_sha256") == source_sha256
                and manifest.get("reduce_range", False) == _reduce_range()
                and manifest.get("sha256") == _sha256(folder / MODEL_FILE))
    except (OSError, ValueError, AttributeError):
        return False


def _reduce_range() -> bool:
    """7-bit weights where the CPU has no VNNI (cpu.int8_dot_products): ONNX Runtime's advice, as 8-bit ones saturate
    the 16-bit sums of AVX2's int8 products. A cache moved to a CPU of the other kind is rebuilt (_current)."""
    return not cpu.int8_dot_products()


def _session(path: Path, threads: int) -> Any:
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.log_severity_level = 3
    options.add_session_config_entry("session.intra_op.allow_spinning", SPIN)
    # no busy-waiting between queries: after a query the cores belong to the ranking and the LLM engine
    options.add_session_config_entry("session.force_spinning_stop", SPIN_STOP)
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def _build(model_path: str, folder: Path, source_sha256: str, prompt: str) -> None:
    """Export and quantise into a temporary folder beside `folder`, then rename it into place."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from sentence_transformers import SentenceTransformer

    work = Path(tempfile.mkdtemp(prefix=f".{folder.name}.", dir=folder.parent))
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            model = SentenceTransformer(model_path, device="cpu")  # float32: the quantiser reads float32 weights
            forward = _forward_module(model)
            example = model.tokenizer([prompt + PROBES[1]], return_tensors="pt")["input_ids"]
            exported = work / "float32.onnx"
            with torch.inference_mode():
                torch.onnx.export(forward, (example,), str(exported), input_names=["ids"], output_names=["vector"],
                                  dynamic_axes={"ids": {1: "tokens"}}, opset_version=17, dynamo=False)
            del model, forward
            slimmed = _slim(exported)
            with _quiet_root_logger():
                quantize_dynamic(str(slimmed), str(work / MODEL_FILE), weight_type=QuantType.QInt8, per_channel=True,
                                 reduce_range=_reduce_range(), op_types_to_quantize=["MatMul", "Gemm", "Gather"])
        exported.unlink()
        slimmed.unlink(missing_ok=True)
        manifest = {"build": BUILD, "source_sha256": source_sha256, "sha256": _sha256(work / MODEL_FILE),
                    "reduce_range": _reduce_range()}
        (work / MANIFEST).write_text(json.dumps(manifest, indent=1), encoding="utf-8")
        if folder.exists():
            shutil.rmtree(folder)
        work.rename(folder)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _slim(exported: Path) -> Path:
    """The exported graph with its shape arithmetic folded and its operations fused (onnxslim): the exporter's graph
    runs ~6,700 operations per query, the slimmed one ~2,500, and on the 2 cores here a query's time is as much the
    operations' dispatch as their arithmetic (int8, two threads: p50 14.1 -> 9.8 ms; one thread 15.2 -> 13.7; the
    same vectors). Written beside `exported`."""
    import onnx
    import onnxslim

    slimmed = exported.with_name("slim.onnx")
    onnx.save(onnxslim.slim(str(exported)), str(slimmed))
    return slimmed


def _forward_module(model: Any) -> Any:
    """The model's unmasked query path (unmasked_query.unmasked_forward) with eager attention, which the ONNX exporter
    can convert."""
    from panda.memory.unmasked_query import unmasked_forward

    modules = list(model)
    transformer = modules[0].auto_model.eval()
    transformer.set_attn_implementation("eager")
    return unmasked_forward(transformer, [m for m in modules[2:] if type(m).__name__ == "Dense"])


@contextlib.contextmanager
def _quiet_root_logger() -> Any:
    """The quantiser logs advice on the root logger at WARNING; it is not the user's concern."""
    root = logging.getLogger()
    level = root.level
    root.setLevel(logging.ERROR)
    try:
        yield
    finally:
        root.setLevel(level)
