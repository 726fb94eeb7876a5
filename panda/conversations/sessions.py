"""Cutting a thread's messages into sessions at a time gap (seed 004; pure).

A session ends when the next message comes more than `gap_minutes` (default 30) after the previous
one. Messages are taken in time order; equal times keep their input order.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timedelta


@dataclass(frozen=True)
class ThreadState:
    """Where a thread stands before new messages: its last session number and last message time."""

    last_session: int = 0
    last_message_at: datetime | None = None


def sessionize(times: list[datetime], state: ThreadState, gap_minutes: int = 30) -> list[int]:
    """Session number for each time (already in order).

    Example: times 10:00, 10:20, 11:00, 11:05 with a fresh thread and a 30-minute gap -> [1, 1, 2, 2];
    the same times after a thread whose last message was at 09:45 in session 4 -> [4, 4, 5, 5].
    """
    gap = timedelta(minutes=gap_minutes)
    number, previous = state.last_session, state.last_message_at
    out = []
    for t in times:
        if number == 0 or previous is None or t - previous > gap:
            number += 1
        out.append(number)
        previous = t if previous is None or t > previous else previous
    return out
