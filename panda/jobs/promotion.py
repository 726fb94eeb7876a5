"""Scope promotion job (seed 000): new -> user -> global and back, and expiry of NEW documents.

Applies to documents that are files of their own — memories saved by memory.save (web pages and
Knowledge notes are global already, research documents belong to their turn):
trust is the Laplace validation success rate, usage the number of turns that used the document,
age the time since it was created; the thresholds (policy `scope`) are applied to a fixed point.
- new -> user: the document stops expiring; user -> new: it gets a fresh 24 h TTL.
- user -> global: the note moves to Knowledge/Facts/ without its owner, session or source turn, its
  text scrubbed of PII (seed 001 categories, plus the user's id and the values of their name,
  residence and employer facts); only a one-way origin tag remains, so deleting that user can still
  find it. global -> user: the note goes back to its origin user; with no such user it is dropped.
- a NEW document past its TTL (and not promoted now) expires: its file and catalog row are removed.
The vault is written first (a moved note is written at its new place before the old file goes), then
the catalog; a re-run after a kill repeats the same decision and converges. Links to a moved note
follow it where their holder may read it; a note demoted into one user's folder or removed leaves
plain text in the files that linked it (jobs/link_repair.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any

from panda.catalog.maintenance import Maintenance
from panda.documents.model import Document, utc
from panda.home import Home
from panda.jobs.common import JobReport, JobRun
from panda.jobs.link_repair import repair_links
from panda.jobs.rules import new_document_expired, next_scope, origin_hash, trust
from panda.privacy.pii import scrub
from panda.privacy.terms import user_private_terms


def _globalised(ctx: Home, doc: Document, now: datetime) -> Document:
    user = doc.owner_user or ""
    categories = ctx.policy.privacy.pii_categories
    terms = user_private_terms(ctx.vault, user) if user else []
    body = scrub(doc.body, categories, terms).text
    title = scrub(doc.title, categories, terms).text or " ".join(body.split()[:10])
    keywords = [k for k in doc.keywords if scrub(k, categories, terms).text == k]
    extra = {k: v for k, v in doc.extra.items() if k not in ("source", "tags")}
    extra.update(origin=origin_hash(user) if user else None, promoted_at=now.isoformat())
    return doc.model_copy(update={"scope": "global", "owner_user": None, "session_id": None, "turn_number": None,
                                  "body": body, "title": title, "keywords": keywords, "expires_at": None,
                                  "modified_at": now, "extra": extra})


def _origin_user(ctx: Home, tag: str | None) -> str | None:
    users = ctx.vault.home / "users"
    for folder in sorted(users.iterdir()) if users.exists() else []:
        if tag and origin_hash(folder.name) == tag:
            return folder.name
    return None


@dataclass
class Relinks:
    """Files this run moved or removed; their links are repaired once, at the end of the run."""

    moves: dict[str, str] = field(default_factory=dict)
    removed: set[str] = field(default_factory=set)

    def apply(self, ctx: Home) -> dict[str, int]:
        if not self.moves and not self.removed:
            return {}
        return repair_links(ctx.vault.home, self.moves, removed=self.removed.__contains__)


def _move(ctx: Home, old: Document, new: Document, relinks: Relinks) -> None:
    """Write `new` at its own path, remove the old file if it moved, then re-index."""
    old_path = old.doc_path
    ctx.vault.write_document(new, ctx.vault.path_for(new))
    if new.doc_path != old_path:
        ctx.vault.layout.resolve_relative(old_path).unlink(missing_ok=True)
        relinks.moves[old_path] = new.doc_path
    ctx.memory.index([new])


def _remove(ctx: Home, doc_path: str, doc_id: str, relinks: Relinks) -> None:
    ctx.vault.layout.resolve_relative(doc_path).unlink(missing_ok=True)
    relinks.removed.add(doc_path)
    ctx.catalog.delete_document(doc_id)


def apply_scope(ctx: Home, doc: Document, target: str, now: datetime, relinks: Relinks) -> str:
    """Rewrite `doc` for its new scope; returns what happened ('promoted', 'demoted', 'dropped')."""
    ttl = timedelta(hours=ctx.policy.scope.new_ttl_hours)
    if target == "global":
        _move(ctx, doc, _globalised(ctx, doc, now), relinks)
        return "promoted"
    if doc.scope == "global":  # back to the user it came from, if they still exist
        owner = _origin_user(ctx, doc.extra.get("origin"))
        if owner is None:
            _remove(ctx, doc.doc_path, doc.id, relinks)
            return "dropped"
        extra = {k: v for k, v in doc.extra.items() if k not in ("origin", "promoted_at")}
        doc = doc.model_copy(update={"owner_user": owner, "extra": extra})
    expires = now + ttl if target == "new" else None
    _move(ctx, doc, doc.model_copy(update={"scope": target, "expires_at": expires, "modified_at": now}), relinks)
    return "promoted" if target == "user" and doc.scope == "new" else "demoted"


def run(job: JobRun) -> JobReport:
    ctx, now = job.ctx, job.now
    report = JobReport("promotion", now, job.dry_run)
    rows = Maintenance(ctx.catalog).standalone_documents()
    relinks = Relinks()
    for row in rows:
        report.count("documents_checked")
        scope = row["scope"] or "new"
        created = utc(row["created_at"]) if row["created_at"] else datetime.fromtimestamp(0, UTC)
        trust_value = trust(int(row["validation_success"]), int(row["validation_count"]))
        usage = int(row["usage_count"])
        target = next_scope(scope, trust_value, usage, now - created, ctx.policy.scope)
        label = f"{row['id']} ({row['title'][:50]!r}, trust {trust_value:.2f}, usage {usage}, age {_age(now - created)})"
        if target != scope:
            report.change(f"{scope}_to_{target}", f"{label}: {scope} -> {target}")
            if not job.dry_run:
                _apply(ctx, row, target, now, report, relinks)
            continue
        expires = utc(row["expires_at"]) if row["expires_at"] else None
        if new_document_expired(scope, expires, now):
            report.change("new_expired", f"{label}: NEW past its TTL ({expires.isoformat() if expires else '-'}), removed")
            if not job.dry_run:
                _remove(ctx, row["doc_path"], row["id"], relinks)
    for rel, count in relinks.apply(ctx).items():
        report.notes.append(f"{rel}: {count} link(s) follow moved or removed notes")
    return report.finish(ctx)


def _apply(ctx: Home, row: dict[str, Any], target: str, now: datetime, report: JobReport,
           relinks: Relinks) -> None:
    try:
        doc = ctx.vault.read_document(row["doc_path"])
    except FileNotFoundError:
        report.notes.append(f"{row['id']}: file {row['doc_path']} is missing; run `panda reindex`")
        return
    result = apply_scope(ctx, doc, target, now, relinks)
    if result == "dropped":
        report.notes.append(f"{row['id']}: demoted from global but its origin user is gone; dropped")


def _age(delta: timedelta) -> str:
    hours = delta.total_seconds() / 3600
    return f"{hours:.1f} h" if hours < 48 else f"{hours / 24:.1f} d"
