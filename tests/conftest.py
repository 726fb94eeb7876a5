"""Shared fixtures: a temporary home, a real embedding model (MiniLM, loaded once), a scripted backend.

Like sqlite-utils' fixtures: each test gets a fresh home and catalog; the embedder is session-scoped
because loading it is the slow part. The vLLM engine fixture lives in tests/llm/test_vllm_smoke.py.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

os.environ.setdefault("PREFECT_SERVER_ANALYTICS_ENABLED", "false")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
# The suite's homes use all-MiniLM-L6-v2 (10x faster to embed, the same code path), and so do the CLI and flow
# processes the tests start, which inherit this. EmbeddingGemma, the product's default, has its own tests
# (tests/memory/test_embedder_profiles.py, test_embedder_supply.py), which name it explicitly.
os.environ.setdefault("PANDA_EMBEDDING_MODEL", "minilm")

from panda.config import Settings  # noqa: E402
from panda.home import Home  # noqa: E402
from panda.llm.scripted import ScriptedBackend  # noqa: E402
from panda.llm.scripted_replies import schema_responder  # noqa: E402
from panda.memory.embeddings import SentenceEmbedder  # noqa: E402
from panda.runtime import open_home  # noqa: E402

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture(scope="session")
def embedder() -> SentenceEmbedder:
    return SentenceEmbedder(os.environ["PANDA_EMBEDDING_MODEL"])


@pytest.fixture
def home(tmp_path: Path) -> Path:
    return tmp_path / "home"


@pytest.fixture
def settings(home: Path) -> Settings:
    return Settings(home=home, backend="scripted")


@pytest.fixture
def backend() -> ScriptedBackend:
    return ScriptedBackend(responder=schema_responder)


@pytest.fixture
def ctx(settings: Settings, embedder: SentenceEmbedder, backend: ScriptedBackend) -> Iterator[Home]:
    context = open_home(settings, embedder=embedder, backend=backend)
    yield context
    context.catalog.close()


def write_jsonl(path: Path, lines: list[str]) -> Path:
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
