"""MemoryBank (SiliconFriend, English) → Panda messages.

Each named user is one Panda user and one thread ("memorybank"); each day of history is a session:
the day's exchanges are spaced two minutes apart from 09:00 UTC, so they stay in one session and in
order, and days fall into separate sessions. The meta_information/summary fields are not ingested.
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

from panda.conversations.messages import MessageInput


def user_id_for(name: str) -> str:
    """Example: user_id_for('Emily') -> 'emily'; user_id_for('Li Wei') -> 'li_wei'."""
    return re.sub(r"[^a-z0-9]+", "_", name.lower()).strip("_") or "user"


def load_messages(path: Path, users: list[str] | None = None) -> list[MessageInput]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, dict) or not all(isinstance(v, dict) and "history" in v for v in data.values()):
        raise ValueError(f"{path}: not a MemoryBank file (a mapping of user name -> {{'history': ...}})")
    names = users or list(data)
    missing = [n for n in names if n not in data]
    if missing:
        raise ValueError(f"{path}: no user {', '.join(missing)}")
    out = []
    for name in names:
        uid = user_id_for(name)
        for day, exchanges in sorted(data[name]["history"].items()):
            start = datetime.fromisoformat(day).replace(hour=9, tzinfo=UTC)
            for i, exchange in enumerate(exchanges):
                when = start + timedelta(minutes=2 * i)
                ref = f"{day}#{i}"
                if str(exchange.get("query", "")).strip():
                    out.append(MessageInput(uid, "memorybank", when, "user", str(exchange["query"]).strip(), name,
                                            f"{ref}:q", f"memorybank:{name}:{ref}"))
                if str(exchange.get("response", "")).strip():
                    out.append(MessageInput(uid, "memorybank", when, "assistant", str(exchange["response"]).strip(),
                                            "AI", f"{ref}:a", f"memorybank:{name}:{ref}"))
    return out
