"""LongMemEval (Wu et al., ICLR 2025), oracle setting → Panda messages and questions.

Each instance is one fresh memory: its user id is derived from the question id, its sessions are
sorted by haystack_dates (the oracle file does not keep them in order) and ingested as user /
assistant turns at those times; the question is asked at question_date ("now"). Evidence: the
turns marked has_answer (turn-level recall) and answer_session_ids (session-level). Question ids
ending in `_abs` expect an abstention.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from panda.conversations.messages import MessageInput

_DATE = re.compile(r"^(\d{4})/(\d{2})/(\d{2}) \(\w+\) (\d{2}):(\d{2})$")


def parse_lme_time(text: str) -> datetime:
    """Example: parse_lme_time('2023/05/23 (Tue) 19:11') -> 2023-05-23 19:11 UTC."""
    match = _DATE.match(text.strip())
    if not match:
        raise ValueError(f"not a LongMemEval date: {text!r}")
    y, mo, d, h, mi = (int(g) for g in match.groups())
    return datetime(y, mo, d, h, mi, tzinfo=UTC)


def user_id_for(question_id: str) -> str:
    """Example: user_id_for('e47becba_abs') -> 'lme-e47becba_abs'."""
    return "lme-" + re.sub(r"[^A-Za-z0-9_-]+", "_", question_id)


@dataclass
class Instance:
    question_id: str
    question_type: str
    question: str
    answer: str
    asked_at: datetime
    user_id: str
    messages: list[MessageInput] = field(default_factory=list)
    evidence_turns: list[str] = field(default_factory=list)  # message external ids of has_answer turns
    answer_sessions: list[str] = field(default_factory=list)

    @property
    def abstention(self) -> bool:
        return self.question_id.endswith("_abs")


def instance(raw: dict[str, Any]) -> Instance:
    uid = user_id_for(raw["question_id"])
    item = Instance(question_id=raw["question_id"], question_type=raw["question_type"], question=raw["question"],
                    answer=str(raw["answer"]), asked_at=parse_lme_time(raw["question_date"]), user_id=uid,
                    answer_sessions=list(raw.get("answer_session_ids") or []))
    sessions = sorted(zip(raw["haystack_dates"], raw["haystack_session_ids"], raw["haystack_sessions"], strict=True),
                      key=lambda s: parse_lme_time(s[0]))
    for date, session_id, turns in sessions:
        when = parse_lme_time(date)
        for i, turn in enumerate(turns):
            external = f"{session_id}:{i}"
            item.messages.append(MessageInput(uid, "lme", when, turn["role"], str(turn["content"]).strip(), "",
                                              external, f"longmemeval:{raw['question_id']}:{external}",
                                              {"haystack_session": session_id}))
            if turn.get("has_answer"):
                item.evidence_turns.append(external)
    return item


def load_instances(path: Path, question_types: list[str] | None = None, limit: int | None = None) -> list[Instance]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list) or not data or "haystack_sessions" not in data[0]:
        raise ValueError(f"{path}: not a LongMemEval file (a JSON list of instances with haystack_sessions)")
    items = [instance(raw) for raw in data if not question_types or raw["question_type"] in question_types]
    return items[:limit] if limit else items
