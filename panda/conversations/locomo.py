"""LoCoMo (Maharana et al., ACL 2024) → Panda messages.

Each sample becomes one user's memory (user and thread = the sample id, e.g. conv-26); sessions are
taken in order with their session date-time as every turn's timestamp; speakers are the authors; an
image turn gets "[shares a photo of …]" from its BLIP caption. The observation, session_summary and
event_summary fields are never ingested or read when evaluating: they were generated from the dialogue
and leak answers. The observations serve one other use: on the conversations an embedder is tuned on
(never those it is scored on), each statement with its evidence turns is a further tuning query
(observation_queries, evaluation/embedder_tuning.py).
"""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from panda.conversations.messages import MessageInput

_DATE = re.compile(r"^\s*(\d{1,2}):(\d{2})\s*(am|pm)\s+on\s+(\d{1,2})\s+([A-Za-z]+),?\s+(\d{4})\s*$", re.I)


def parse_locomo_time(text: str) -> datetime:
    """Example: parse_locomo_time('1:56 pm on 8 May, 2023') -> 2023-05-08 13:56 UTC."""
    match = _DATE.match(text)
    if not match:
        raise ValueError(f"not a LoCoMo date-time: {text!r}")
    hour, minute, half, day, month, year = match.groups()
    h = int(hour) % 12 + (12 if half.lower() == "pm" else 0)
    month_number = datetime.strptime(month[:3].title(), "%b").month
    return datetime(int(year), month_number, int(day), h, int(minute), tzinfo=UTC)


def turn_text(turn: dict[str, Any]) -> str:
    """The text of a turn, with its shared photo as '[shares a photo of …]'."""
    text = str(turn.get("text", "")).strip()
    caption = str(turn.get("blip_caption") or "").strip()
    if caption:
        caption = re.sub(r"^(a )?photo of ", "", caption)
        text = f"{text} [shares a photo of {caption}]".strip()
    return text


def sessions(sample: dict[str, Any]) -> list[tuple[int, datetime, list[dict[str, Any]]]]:
    """(number, time, turns) for every session list present (date keys without a list are ignored)."""
    conversation = sample["conversation"]
    out = []
    for key, value in conversation.items():
        match = re.fullmatch(r"session_(\d+)", key)
        if match and isinstance(value, list):
            number = int(match.group(1))
            out.append((number, parse_locomo_time(conversation[f"session_{number}_date_time"]), value))
    return sorted(out)


def sample_messages(sample: dict[str, Any]) -> list[MessageInput]:
    sid = sample["sample_id"]
    out = []
    for _number, when, turns in sessions(sample):
        for turn in turns:
            out.append(MessageInput(user_id=sid, thread_id=sid, timestamp=when, role="user", content=turn_text(turn),
                                    speaker=str(turn["speaker"]), external_id=str(turn["dia_id"]),
                                    source=f"locomo:{sid}:{turn['dia_id']}", extra={"dia_id": turn["dia_id"]}))
    return out


_DIA_ID = re.compile(r"D\s*:?\s*(\d+)\s*:\s*(\d+)")


def evidence_ids(raw: Any, known: set[str] | None) -> tuple[list[str], list[str]]:
    """(the turn ids an evidence field names, the entries that name no turn in `known`; with `known` None,
    every well-formed id counts as a turn and only entries without one are returned).

    LoCoMo's annotations hold a few malformed entries: two ids in one string, a stray colon, an id past the
    session's last turn, a bare "D". Ids are read wherever they stand and written as the turns' own dia_ids.
    Example: (["D8:6; D9:17", "D:11:26", "D", "D10:19"], {"D8:6", "D9:17", "D11:26"})
    -> (["D8:6", "D9:17", "D11:26"], ["D", "D10:19"])."""
    found, unknown = [], []
    for entry in raw if isinstance(raw, list) else [raw]:
        ids = [f"D{int(session)}:{int(turn)}" for session, turn in _DIA_ID.findall(str(entry))]
        found += [i for i in ids if known is None or i in known]
        unknown += [i for i in ids if known is not None and i not in known] if ids else [str(entry)]
    return list(dict.fromkeys(found)), unknown


def observation_queries(sample: dict[str, Any]) -> list[tuple[str, list[str], datetime]]:
    """(statement, evidence dia_ids, its session's time) for every observation in a sample, e.g.
    ("Caroline attended an LGBTQ support group recently …", ["D1:3"], 2023-05-08 13:56 UTC)."""
    conversation = sample["conversation"]
    out = []
    for key, by_speaker in (sample.get("observation") or {}).items():
        match = re.fullmatch(r"session_(\d+)_observation", key)
        if not match or not isinstance(by_speaker, dict):
            continue
        date_key = f"session_{match.group(1)}_date_time"
        if date_key not in conversation:
            raise ValueError(f"{sample.get('sample_id')}: observation.{key} has no conversation.{date_key}")
        when = parse_locomo_time(conversation[date_key])
        for statements in by_speaker.values():
            for statement in statements if isinstance(statements, list) else []:
                if not isinstance(statement, list) or not statement:
                    continue  # not a [statement, evidence] pair
                text, evidence = statement[0], statement[1] if len(statement) > 1 else []
                ids, _unknown = evidence_ids(evidence, None)  # tuning keeps the ids that name an indexed turn
                if str(text).strip() and ids:
                    out.append((str(text).strip(), ids, when))
    return out


def load_samples(path: Path, sample_ids: list[str] | None = None) -> list[dict[str, Any]]:
    data = json.loads(path.read_text(encoding="utf-8"))
    if not isinstance(data, list) or not data or "conversation" not in data[0]:
        raise ValueError(f"{path}: not a LoCoMo file (a JSON list of samples with 'conversation')")
    if sample_ids:
        wanted = set(sample_ids)
        data = [s for s in data if s["sample_id"] in wanted]
        missing = wanted - {s["sample_id"] for s in data}
        if missing:
            raise ValueError(f"{path}: no sample {', '.join(sorted(missing))}")
    return data


def load_messages(path: Path, sample_ids: list[str] | None = None) -> list[MessageInput]:
    return [m for sample in load_samples(path, sample_ids) for m in sample_messages(sample)]
