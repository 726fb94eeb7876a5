"""The one document model (seed 000 §4) and its markdown + YAML frontmatter round-trip.

Every kind of memory — a turn's context.md, a saved memory, a preference, a fact, a research note —
is a `Document`: the same metadata, a markdown body. `to_markdown()` writes frontmatter via
python-frontmatter and `from_markdown()` reads it back into an equal Document; frontmatter keys
the model does not know (a user's own Obsidian properties) are kept in `extra` and written back.

Left out: where documents live (paths.py) and indexing (catalog/).
"""

from __future__ import annotations

import uuid
from datetime import UTC, datetime
from typing import Any, Literal

import frontmatter
from pydantic import BaseModel, ConfigDict, Field, field_validator

Scope = Literal["new", "user", "global"]
Intent = Literal["transactional", "informational", "navigational", "conversational", "personal"]

_KNOWN_ORDER = (
    "id", "kind", "title", "primary_topic", "keywords", "intent", "content_types", "scope", "quality",
    "importance", "owner_user", "session_id", "turn_number", "usage_count", "reference_count",
    "validation_count", "validation_success", "created_at", "modified_at", "expires_at", "valid_at",
    "invalid_at", "links", "source_urls", "doc_path",
)


def new_id(prefix: str = "doc") -> str:
    return f"{prefix}_{uuid.uuid4().hex[:16]}"


def utc(dt: datetime) -> datetime:
    """Normalise to an aware UTC datetime (naive values are taken as UTC)."""
    return dt.replace(tzinfo=UTC) if dt.tzinfo is None else dt.astimezone(UTC)


def iso(dt: datetime | None) -> str | None:
    return None if dt is None else utc(dt).isoformat().replace("+00:00", "Z")


def parse_time(value: Any) -> datetime | None:
    if value is None or value == "":
        return None
    if isinstance(value, datetime):
        return utc(value)
    text = str(value).strip()
    if text.endswith("Z"):
        text = text[:-1] + "+00:00"
    return utc(datetime.fromisoformat(text))


class Document(BaseModel):
    """Seed 000 DocumentMetadata plus ownership, counters, links and the markdown body."""

    model_config = ConfigDict(extra="forbid", validate_assignment=True)

    id: str = Field(default_factory=new_id)
    kind: str = "memory"  # context | memory | preference | fact | research | note | summary
    title: str = ""
    primary_topic: str = "general"
    keywords: list[str] = Field(default_factory=list)
    intent: str = "informational"
    content_types: list[str] = Field(default_factory=list)
    scope: Scope = "new"
    quality: float = 0.5
    importance: float = 0.15  # seed 001 vehemence in [0, 1]; 0.15 = default urgency 0.3 * 0.5
    owner_user: str | None = None
    session_id: str | None = None
    turn_number: int | None = None
    usage_count: int = 0
    reference_count: int = 0
    validation_count: int = 0
    validation_success: int = 0
    created_at: datetime = Field(default_factory=lambda: datetime.now(UTC))
    modified_at: datetime | None = None
    expires_at: datetime | None = None
    valid_at: datetime | None = None
    invalid_at: datetime | None = None
    links: list[str] = Field(default_factory=list)
    source_urls: list[str] = Field(default_factory=list)
    doc_path: str = ""
    body: str = ""
    extra: dict[str, Any] = Field(default_factory=dict)

    @field_validator("created_at", "modified_at", "expires_at", "valid_at", "invalid_at", mode="before")
    @classmethod
    def _times(cls, value: Any) -> datetime | None:
        return parse_time(value)

    @field_validator("body")
    @classmethod
    def _body(cls, value: str) -> str:
        # python-frontmatter strips surrounding whitespace; normalising here keeps the round-trip exact.
        return value.strip()

    @field_validator("quality", "importance")
    @classmethod
    def _unit(cls, value: float) -> float:
        if not 0.0 <= value <= 1.0:
            raise ValueError(f"must be within [0, 1], got {value}")
        return value

    @property
    def trust(self) -> float:
        """Laplace-smoothed validation success rate. Example: 3 of 4 approved -> (3+1)/(4+2) = 0.667."""
        return (self.validation_success + 1) / (self.validation_count + 2)

    def frontmatter_dict(self) -> dict[str, Any]:
        data = self.model_dump(exclude={"body", "extra"})
        out: dict[str, Any] = {}
        for key in _KNOWN_ORDER:
            value = data[key]
            if isinstance(value, datetime):
                value = iso(value)
            out[key] = value
        out.update(self.extra)
        if self.content_types or self.keywords:  # Obsidian shows `tags` natively
            out.setdefault("tags", sorted({*self.keywords[:8]}))
        return out

    def to_markdown(self) -> str:
        post = frontmatter.Post(self.body, **self.frontmatter_dict())
        return frontmatter.dumps(post, sort_keys=False) + "\n"

    @classmethod
    def from_markdown(cls, text: str, doc_path: str | None = None) -> Document:
        post = frontmatter.loads(text)
        meta: dict[str, Any] = dict(post.metadata)
        known = {k: meta.pop(k) for k in list(meta) if k in cls.model_fields and k not in ("body", "extra")}
        tags = meta.pop("tags", None)
        extra = meta
        if tags is not None and sorted({*known.get("keywords", [])[:8]}) != tags:
            extra["tags"] = tags
        doc = cls.model_validate({**known, "body": post.content, "extra": extra})
        if doc_path is not None:
            doc.doc_path = doc_path
        return doc

    def search_text(self) -> str:
        """The text the catalog indexes for keyword and embedding search."""
        head = " ".join(x for x in (self.title, self.primary_topic.replace(".", " "), " ".join(self.keywords)) if x)
        context = self.extra.get("search_context")
        return f"{head}\n{self.body}\n{context}".strip() if context else f"{head}\n{self.body}".strip()
