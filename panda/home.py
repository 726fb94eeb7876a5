"""The opened home: vault, catalog, memory store, policy and model names, with one lifetime.

runtime.open_home builds it; `with open_home(...) as ctx:` closes it (and releases the home's writer lock)
however the block ends. The pipeline, the conversation write path, research and the jobs all run in it.
`batch_view` freezes what users share (source reliability, global documents' counters) while a batch
runs. Left out: opening and wiring (runtime.py), one turn's state (pipeline/state.py).
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any

from panda.catalog.store import Catalog
from panda.config import Policy, Settings
from panda.documents.vault import Vault
from panda.memory.search import MemoryStore
from panda.memory.session_cache import SessionCache


@dataclass
class Home:
    settings: Settings
    policy: Policy
    vault: Vault
    catalog: Catalog
    memory: MemoryStore
    model_for: Any  # Callable[[str], str]: role -> model id
    session_cache: SessionCache = field(default_factory=SessionCache)  # seed 004: open sessions' recent messages
    frozen_reliability: dict[str, float] | None = None  # source reliability as of the batch's start

    def run_reliability(self) -> dict[str, float]:
        """Source reliability by domain: as of the batch's start inside `batch_view`, else current."""
        if self.frozen_reliability is not None:
            return self.frozen_reliability
        from panda.catalog.maintenance import Maintenance

        return Maintenance(self.catalog).reliability_by_domain()

    @contextmanager
    def batch_view(self) -> Iterator[None]:
        """Signals shared across users stay as of the batch's start while it runs: source reliability and
        global documents' counters. A batch's turns then do not depend on which other user's turn ran
        first, nor on which shard ran it (sharding.py); the next batch sees the new values."""
        self.frozen_reliability = self.run_reliability()
        self.memory.freeze_global_counters()
        try:
            yield
        finally:
            self.frozen_reliability = None
            self.memory.thaw_counters()

    def close(self) -> None:
        """Close the home's catalog, releasing its writer lock (idempotent)."""
        self.catalog.close()

    def __enter__(self) -> Home:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
