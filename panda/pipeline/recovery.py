"""Recovery before a batch: commit complete turn folders the catalog does not know.

A crash after a turn's files were written and before the catalog learned of them leaves a folder the
catalog lacks. `recover_turns` commits it through pipeline/commit.py, the save phase's own commit, so
its counters count exactly once. The reduce step of a sharded run (sharding.py) commits its shards'
turns through here too. The whole rebuild from the vault is jobs/reindex.py.
"""

from __future__ import annotations

from panda.conversations.ingest import ingest_messages
from panda.home import Home
from panda.pipeline.commit import commit_turn, turn_search_documents
from panda.pipeline.save import turn_messages


def recover_turns(ctx: Home, users: list[str], event: str = "turn_recovered") -> int:
    """Index complete turn folders of `users` that the catalog lacks. Returns how many.

    The reduce step of a sharded run commits its shards' turns through here too (`event` turn_merged)."""
    recovered = 0
    for user in users:
        if not ctx.vault.layout.turns_dir(user).exists():
            continue
        known = {row["id"] for row in ctx.catalog.turns(user)}
        for meta, path in ctx.vault.iter_turn_records(user):
            if meta["turn_id"] in known:
                continue
            if not meta.get("probe"):
                ingest_messages(ctx, turn_messages(meta), extract_facts=False)  # no-op if they were recorded
            commit_turn(ctx, meta, turn_search_documents(ctx, meta, path))  # counts it, exactly once
            ctx.catalog.record_event(event, "turn", meta["turn_id"], {"user_id": user})
            recovered += 1
    return recovered
