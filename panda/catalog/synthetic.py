"""A catalog filled with synthetic documents composed from real sentences: the search benchmarks' corpus.

Benchmarks only (benchmarks/search_latency.py); nothing in Panda's own paths calls it.
"""

from __future__ import annotations

import numpy as np

from panda.catalog.store import Catalog
from panda.language.text import term_frequencies


def load_synthetic_documents(catalog: Catalog, count: int, sentences: list[str], vectors: np.ndarray, users: int = 100,
                             global_share: float = 0.0, seed: int = 42) -> None:
    """Fill the catalog with `count` documents composed from real sentences, for benchmarks only.

    Document i is two sentences, a and b, drawn at random: text "a b", embedding the unit vector of
    v_a + w * v_b (w in [0.3, 1]; `vectors` are the sentences' embeddings), postings the sum of the
    two sentences' term frequencies. So words follow real text and vectors cluster as real
    embeddings do. The first `global_share` of the documents are global (one scope, no owner); the
    rest belong to `users` users in turn.
    """
    import pyarrow as pa

    rng = np.random.default_rng(seed)
    a, b = rng.integers(0, len(sentences), count), rng.integers(0, len(sentences), count)
    weight = rng.uniform(0.3, 1.0, count).astype(np.float32)
    catalog.con.execute("CREATE TEMP TABLE syn_sentences (s INTEGER, text VARCHAR, terms VARCHAR[], tfs INTEGER[], len INTEGER)")
    rows = [[i, text, list(tf), list(tf.values()), sum(tf.values())]
            for i, (text, tf) in enumerate((t, term_frequencies(t)) for t in sentences)]
    catalog.con.executemany("INSERT INTO syn_sentences VALUES (?, ?, ?, ?, ?)", rows)
    catalog.con.execute("SELECT setseed(?)", [(seed % 1000) / 1000]).fetchall()
    catalog.check_dim("syn_0", int(vectors.shape[1]))
    globals_ = int(count * global_share)
    for start in range(0, count, 100_000):
        stop = min(count, start + 100_000)
        v = vectors[a[start:stop]] + weight[start:stop, None] * vectors[b[start:stop]]
        v = (v / np.linalg.norm(v, axis=1, keepdims=True)).astype(np.float32)
        chunk = pa.table({"i": np.arange(start, stop), "a": a[start:stop], "b": b[start:stop],
                          "embedding": pa.FixedSizeListArray.from_arrays(pa.array(v.ravel()), v.shape[1])})
        catalog.con.register("syn_chunk", chunk)
        catalog.con.execute(f"""
            INSERT INTO documents (id, kind, title, primary_topic, keywords, intent, content_types, scope, quality,
                importance, owner_user, usage_count, reference_count, validation_count, validation_success,
                created_at, links, source_urls, doc_path, search_text, doc_length, embedding)
            SELECT 'syn_' || c.i, 'memory', 'synthetic ' || c.i, 'topic.t' || (c.i % 50), [], 'informational', ['memory'],
                CASE WHEN c.i < {globals_} THEN 'global' ELSE 'user' END, random(), 0.15,
                CASE WHEN c.i < {globals_} THEN NULL ELSE 'user' || (c.i % ?) END,
                (random() * 5)::INT, (random() * 20)::INT, 0, 0,
                now() - to_days((random() * 400)::INT), [], [], 'synthetic/' || c.i || '.md',
                sa.text || ' ' || sb.text, sa.len + sb.len, c.embedding::FLOAT[]
            FROM syn_chunk c JOIN syn_sentences sa ON sa.s = c.a JOIN syn_sentences sb ON sb.s = c.b""", [users])
        catalog.con.execute("""
            INSERT INTO postings SELECT term, 'syn_' || i, sum(tf)::INT FROM (
                SELECT c.i, unnest(s.terms) AS term, unnest(s.tfs) AS tf FROM syn_chunk c JOIN syn_sentences s ON s.s = c.a
                UNION ALL
                SELECT c.i, unnest(s.terms) AS term, unnest(s.tfs) AS tf FROM syn_chunk c JOIN syn_sentences s ON s.s = c.b)
            GROUP BY term, i""")
        catalog.con.unregister("syn_chunk")
    catalog.con.execute("DROP TABLE syn_sentences")
    catalog.touch(None)
