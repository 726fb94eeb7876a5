"""What one turn carries through the phases.

`TurnState` is plain data: the input, the context.md being built, each phase's parsed output, staged
memory writes, and a record of every LLM call. The phases run in the opened home (panda/home.py).
Left out: behaviour (the phase modules).
"""

from __future__ import annotations

from collections.abc import Generator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TypeVar

from panda.documents.context_md import ContextDocument
from panda.documents.model import Document
from panda.llm.backend import ChatRequest, ChatResult
from panda.llm.schemas import Plan, QueryAnalysis, ReflectionDecision, Validation
from panda.memory.search import SearchResult
from panda.pipeline.turn_input import TurnInput

T = TypeVar("T")
# A phase is a generator: it yields batches of LLM requests and receives their results.
Step = Generator[list[ChatRequest], list[ChatResult], T]


@dataclass
class TurnState:
    input: TurnInput
    turn_number: int
    turn_path: Path
    doc: ContextDocument = field(default_factory=ContextDocument)
    analysis: QueryAnalysis | None = None
    reflection: ReflectionDecision | None = None
    gathered: list[SearchResult] = field(default_factory=list)
    used: list[SearchResult] = field(default_factory=list)
    gather_summary: str = ""
    answer_context: str = ""  # what the answer is written from (pipeline/evidence.py), set by synthesize
    plan: Plan | None = None
    tool_log: list[dict[str, Any]] = field(default_factory=list)
    staged_docs: list[Document] = field(default_factory=list)
    response: str = ""
    validation: Validation | None = None
    outcome: str = "PENDING"
    fail_reason: str = ""
    retry_hint: str = ""
    revise_hint: str = ""
    retrieval_route: str = ""  # the route gather took (gather.widened_route may widen the analysis's)
    entities: list[str] = field(default_factory=list)  # the known entities the message names (gather)
    answered_by_guard: str = ""  # the synthesize guard that gave the answer (unanswered_abstained, statement_acknowledged)
    revise_fact: str = ""  # the remembered fact a recall answer left out (validate.ignored_fact): §5 states it
    attempts_exhausted: bool = False
    call_records: list[dict[str, Any]] = field(default_factory=list)  # drained into llm_calls
    research: list[dict[str, Any]] = field(default_factory=list)  # research.search runs: pages, cache, findings
    # Committed with the turn by the save phase (exactly once, whatever re-runs): every retrieval the turn
    # made (memory.search results raise reference counts once per turn) and Page Intelligence outcomes.
    retrievals: list[dict[str, Any]] = field(default_factory=list)
    extractions: list[dict[str, Any]] = field(default_factory=list)
    calls: list[dict[str, Any]] = field(default_factory=list)  # kept for metrics.json
    prompt_versions: dict[str, str] = field(default_factory=dict)
    phase_ms: dict[str, float] = field(default_factory=dict)
    started_at: datetime = field(default_factory=lambda: datetime.now(UTC))

    @property
    def user_id(self) -> str:
        return self.input.user_id

    @property
    def turn_id(self) -> str:
        return f"turn_{self.user_id}_{self.turn_number:06d}"

    @property
    def label(self) -> str:
        return f"turn {self.turn_number} of {self.user_id}"

    @property
    def query(self) -> str:
        return self.input.query

    @property
    def resolved_query(self) -> str:
        return self.analysis.resolved_query if self.analysis else self.input.query
