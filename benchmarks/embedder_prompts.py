"""Raw cosine recall@10 (LoCoMo categories 1-4) of EmbeddingGemma with its model card's query prompts, per report half.

No Panda ranking: each conversation's turns ("Speaker: text", with the document prompt) against its questions, one
query prompt at a time. Half A = conv-26/30/41/42, B = conv-43/44/47/48. Needs ../shared/data/locomo and the fetched
model (scripts/setup.sh). Prints one line per prompt.
Usage: python benchmarks/embedder_prompts.py
"""

from __future__ import annotations

import json
import time
from pathlib import Path

import numpy as np

DATA = Path(__file__).resolve().parents[2] / "shared" / "data" / "locomo" / "locomo_conv0-7.json"
HALF_A = {"conv-26", "conv-30", "conv-41", "conv-42"}
DOCUMENT_PROMPT = "title: none | text: "
QUERY_PROMPTS = {"search result (shipped)": "task: search result | query: ",
                 "question answering": "task: question answering | query: ",
                 "fact checking": "task: fact checking | query: ", "none": ""}


def main() -> None:
    import torch
    from sentence_transformers import SentenceTransformer

    from panda.memory.embeddings import resolve_model

    model = SentenceTransformer(resolve_model("gemma"), device="cpu", model_kwargs={"torch_dtype": torch.bfloat16})
    conversations = json.loads(DATA.read_text())
    docs = [(c["sample_id"], t["dia_id"], f"{t['speaker']}: {t.get('text', '')}") for c in conversations
            for key, session in c["conversation"].items() if key.startswith("session_") and isinstance(session, list)
            for t in session]
    started = time.perf_counter()
    vectors = model.encode([DOCUMENT_PROMPT + d[2] for d in docs], batch_size=32, normalize_embeddings=True)
    print(f"{len(docs)} turns embedded in {time.perf_counter() - started:.0f} s")
    questions = [(c["sample_id"], q["question"], {e.strip() for e in q["evidence"]}) for c in conversations
                 for q in c["qa"] if q.get("category") in (1, 2, 3, 4) and q.get("evidence")]
    rows = {sid: [i for i, d in enumerate(docs) if d[0] == sid] for sid in {d[0] for d in docs}}
    for name, prompt in QUERY_PROMPTS.items():
        asked = model.encode([prompt + q[1] for q in questions], batch_size=64, normalize_embeddings=True)
        halves: dict[str, list[float]] = {"A": [], "B": []}
        for (sid, _, evidence), query in zip(questions, asked, strict=True):
            idx = rows[sid]
            top = {docs[idx[j]][1] for j in np.argsort(-(vectors[idx] @ query))[:10]}
            halves["A" if sid in HALF_A else "B"].append(sum(e in top for e in evidence) / len(evidence))
        print(name, {h: round(float(np.mean(v)), 4) for h, v in halves.items()})


if __name__ == "__main__":
    main()
