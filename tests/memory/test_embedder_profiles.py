"""Embedder profiles: names, prompts, dimensions and identities; a home keeps the embedder (and width) it was made
with, and `panda reindex` moves it to another one. EmbeddingGemma's own end-to-end test runs where setup fetched it."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from panda import cli
from panda.catalog.store import Catalog
from panda.documents.model import Document
from panda.errors import BackendUnavailableError
from panda.llm.model_cache import cache_root
from panda.memory import embedder_profiles, embedder_supply
from panda.memory.embedder_profiles import PROFILES, check_dim, folder_profile, identity, profile_name
from panda.memory.embeddings import SentenceEmbedder
from tests.conftest import write_jsonl

GEMMA_FETCHED = embedder_supply.verified_folder(cache_root() / embedder_supply.FOLDER)


def recorded(home: Path) -> tuple[str | None, int | None]:
    """The embedder identity and vector width a home's catalog records."""
    catalog = Catalog.open_reader(home / "catalog" / "panda.duckdb")
    try:
        return catalog.setting("embedder"), catalog.embedding_dim()
    finally:
        catalog.close()


def dana_home(tmp_path: Path, monkeypatch, model: str) -> Path:
    """A home made by `panda ingest` with embedder `model`: one logged turn of dana's (she lives in Lisbon)."""
    home = tmp_path / "home"
    path = write_jsonl(tmp_path / "t.jsonl", [json.dumps({
        "user_id": "dana", "timestamp": "2026-03-01T10:00:00Z", "query": "I moved to Lisbon last spring",
        "assistant": "Noted: you live in Lisbon."})])
    monkeypatch.setenv("PANDA_EMBEDDING_MODEL", model)
    assert cli.main(["ingest", str(path), "--home", str(home), "--no-enrich"]) == 0
    return home


def test_profile_names_aliases_and_folders(monkeypatch):
    # issue 40's rule: EmbeddingGemma's held-out recall, with ingest, the demo and the 1M search within bounds (stop 52)
    # where the CPU computes bfloat16 natively; MiniLM elsewhere (EmbeddingGemma's float32 ingest: 80 messages/min)
    from panda.llm import cpu

    for native, expected in ((True, "gemma"), (False, "minilm")):
        monkeypatch.setattr(cpu, "native_bfloat16", lambda native=native: native)
        assert profile_name(None) == profile_name("default") == profile_name("auto") == profile_name("") == expected
    assert profile_name("gemma") == "gemma"  # a named profile is not the default's to change
    assert profile_name("base") == profile_name("minilm") == "minilm"
    assert profile_name("/models/mine") is None
    assert embedder_profiles.from_identity("embeddinggemma-300m") == ("gemma", 768)
    assert embedder_profiles.from_identity("embeddinggemma-300m@256") == ("gemma", 256)
    assert embedder_profiles.from_identity("all-MiniLM-L6-v2") == ("minilm", 384)
    assert embedder_profiles.from_identity("embeddinggemma-300m@300") is None  # no such truncation
    assert embedder_profiles.from_identity("tuned@2026-01-01T00:00:00") is None  # a folder's model
    gemma = PROFILES["gemma"]
    assert (gemma.query_prompt, gemma.document_prompt) == ("task: search result | query: ", "title: none | text: ")
    assert check_dim(gemma, None) == 768 and check_dim(gemma, 256) == 256
    with pytest.raises(ValueError, match="768, 512, 256, 128; embedding_dim 300"):
        check_dim(gemma, 300)
    assert identity(gemma, 768) == "embeddinggemma-300m" and identity(gemma, 256) == "embeddinggemma-300m@256"
    assert identity(PROFILES["minilm"], 384) == "all-MiniLM-L6-v2"  # what homes made before profiles recorded


def test_a_folder_brings_its_own_prompts(tmp_path: Path):
    (tmp_path / "config_sentence_transformers.json").write_text(json.dumps(
        {"prompts": {"query": "q: ", "document": "d: ", "STS": "s: "}}))
    profile = folder_profile(tmp_path, 512, "mine")
    assert (profile.query_prompt, profile.document_prompt, profile.identity) == ("q: ", "d: ", "mine")
    assert check_dim(profile, 100) == 100
    with pytest.raises(ValueError, match="1..512"):
        check_dim(profile, 600)


def test_minilm_keeps_its_vectors_and_refuses_a_truncation_it_was_not_trained_for(embedder):
    assert (embedder.identity, embedder.dim, embedder.dtype) == ("all-MiniLM-L6-v2", 384, "float32")
    assert embedder.relevance_model is not None  # relevance_models/base.json
    one = embedder.embed_query("where does dana live")
    assert one.shape == (384,) and float(one @ embedder.embed(["where does dana live"])[0]) > 0.9999  # no prompts
    with pytest.raises(BackendUnavailableError, match="can be truncated to 384"):
        SentenceEmbedder("minilm", dim=128)


def test_a_catalog_keeps_one_vector_width_until_it_is_cleared():
    catalog = Catalog(None)
    doc = Document(id="d1", kind="memory", title="t", body="b", owner_user="u", scope="user")
    catalog.upsert_document(doc, np.ones(768, dtype=np.float32))
    assert catalog.embedding_dim() == 768
    with pytest.raises(ValueError, match="384 dims, this catalog's vectors have 768"):
        catalog.upsert_document(doc.model_copy(update={"id": "d2"}), np.ones(384, dtype=np.float32))
    catalog.clear_derived()  # reindex: the next embedder records its own width
    catalog.upsert_document(doc, np.ones(384, dtype=np.float32))
    assert catalog.embedding_dim() == 384


@pytest.mark.skipif(not GEMMA_FETCHED, reason="EmbeddingGemma not fetched (scripts/setup.sh fetches it)")
def test_gemma_prompts_truncation_and_a_home_moved_between_embedders(tmp_path: Path, capsys, monkeypatch):
    gemma = SentenceEmbedder("gemma")
    assert (gemma.identity, gemma.dim) == ("embeddinggemma-300m", 768)
    docs = gemma.embed(["Mars, known for its reddish appearance, is often referred to as the Red Planet.",
                        "Venus is often called Earth's twin because of its similar size and proximity."])
    exact = SentenceEmbedder("gemma", query_path="exact")
    query = exact.embed_query("Which planet is known as the Red Planet?")
    assert docs.shape == (2, 768) and np.allclose(np.linalg.norm(docs, axis=1), 1, atol=1e-5)
    cosines = docs @ query
    assert cosines[0] > cosines[1] + 0.2  # the card's ranking: Mars first
    # `exact`: the traced, unmasked encoder gives the vector `encode` gives, and a long query falls back
    encoder = exact._unmasked_encoder()
    assert encoder is not None
    direct = gemma._encode([gemma.profile.query_prompt + "Which planet is known as the Red Planet?"], None)[0]
    assert float(query @ direct) > 0.9999
    long_query = "which planet " * 300
    assert encoder.encode(long_query) is None and exact.embed_query(long_query).shape == (768,)
    assert np.allclose(cosines, [0.6359, 0.3011], atol=0.01)  # bfloat16 here: within 0.01 of the card
    # the default query path: the int8 copy (memory/quantized_query.py), close to the model and in the card's order
    assert gemma.query_path == "int8" and gemma._int8_encoder() is not None
    int8 = gemma.embed_query("Which planet is known as the Red Planet?")
    assert float(int8 @ direct) > 0.98 and np.allclose(docs @ int8, [0.6359, 0.3011], atol=0.03)
    assert gemma.embed_query(long_query).shape == (768,)  # past the int8 path's length: the torch path
    short = SentenceEmbedder("gemma", dim=256)
    assert short.identity == "embeddinggemma-300m@256" and short.relevance_model is None
    cut = short.embed(["Mars, known for its reddish appearance, is often referred to as the Red Planet."])[0]
    # the first 256 of the full vector, normalised (bfloat16 batches of other padding differ in the 3rd digit)
    assert cut.shape == (256,) and float(cut @ (docs[0][:256] / np.linalg.norm(docs[0][:256]))) > 0.999

    home = dana_home(tmp_path, monkeypatch, "gemma")
    assert recorded(home) == ("embeddinggemma-300m", 768)
    capsys.readouterr()
    # the same home with another embedder is refused, naming both and the way out
    assert cli.main(["search", "where does dana live", "--user", "dana", "--home", str(home),
                     "--embedding-model", "minilm"]) == 2
    err = capsys.readouterr().err
    assert "'embeddinggemma-300m'" in err and "'all-MiniLM-L6-v2'" in err and "panda reindex" in err
    assert cli.main(["reindex", "--home", str(home), "--embedding-model", "minilm"]) == 0
    assert "reindex" in capsys.readouterr().err  # the progress bar
    assert recorded(home) == ("all-MiniLM-L6-v2", 384)
    assert cli.main(["search", "where does dana live", "--user", "dana", "--home", str(home), "--json",
                     "--no-record", "--embedding-model", "minilm"]) == 0
    assert "Lisbon" in capsys.readouterr().out


def test_a_home_keeps_its_embedder_when_none_is_named(tmp_path: Path, capsys, monkeypatch):
    """A home made with MiniLM, opened with no embedder named where the default is EmbeddingGemma (until stop 48 on a
    CPU with native bfloat16, and since stop 52), keeps MiniLM (runtime.embedder_choice); a named model is left as
    named."""
    from panda import runtime
    from panda.config import Settings

    home = dana_home(tmp_path, monkeypatch, "minilm")
    monkeypatch.delenv("PANDA_EMBEDDING_MODEL")
    monkeypatch.setattr(embedder_profiles, "default_profile", lambda: "gemma")  # a default other than the home's
    assert embedder_profiles.profile_name(None) == "gemma"
    catalog = Catalog.open_reader(home / "catalog" / "panda.duckdb")
    try:
        chosen = runtime.embedder_choice(Settings(home=home), catalog)
        assert (chosen.embedding_model, chosen.embedding_dim) == ("minilm", None)
        named = Settings(home=home, embedding_model="gemma")
        assert runtime.embedder_choice(named, catalog) is named  # a named model is left as it is
    finally:
        catalog.close()
    capsys.readouterr()
    assert cli.main(["search", "where does dana live", "--user", "dana", "--home", str(home), "--json",
                     "--no-record"]) == 0
    assert "Lisbon" in capsys.readouterr().out
    assert recorded(home) == ("all-MiniLM-L6-v2", 384)
    empty = Catalog(None)  # a home with no vectors yet: the machine's default decides
    try:
        unset = Settings(home=tmp_path / "new")
        assert runtime.embedder_choice(unset, empty) is unset
    finally:
        empty.close()
