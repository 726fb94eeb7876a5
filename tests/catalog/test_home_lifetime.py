"""An opened home is closed by `with`, however the block ends: its writer lock is released and its catalog
closed, so an exception inside a notebook cell or a Prefect task does not keep the home locked."""

from pathlib import Path

import pytest

from panda.catalog.home_lock import holds_writer_lock
from panda.config import Settings
from panda.runtime import open_home


def test_with_releases_the_writer_lock_when_the_block_raises(tmp_path: Path, embedder):
    settings = Settings(home=tmp_path / "home")
    with pytest.raises(RuntimeError, match="boom"):
        with open_home(settings, embedder=embedder) as ctx:
            assert holds_writer_lock(settings.catalog_path.parent)
            raise RuntimeError("boom")
    assert not holds_writer_lock(settings.catalog_path.parent)
    ctx.close()  # closing again is harmless
    with open_home(settings, embedder=embedder) as again:  # the next writer opens at once
        assert again.catalog.count_documents() == 0
