"""User deletion job (seed 001): explicit confirmation, backup first, then no trace of the user.

`panda jobs delete-user alice --confirm` removes everything of alice's, under every casing of the id
('Alice' and 'alice' are the same person to a deletion request):
- files: users/alice/, archive/*/alice/ (archived turns and transcripts), Logs/Sessions/alice/;
- global notes promoted from alice's memory (found by their one-way origin tag);
- what her research turns contributed to global knowledge, found by their provenance hashes
  (privacy/forget.py): update sections and scrubbed queries of research notes, product-note turns,
  site_knowledge turns; a note only her turns made is removed, with the wiki-links to it;
- lines of shared notes (Knowledge/, Meta/Indexes/, Logs/Changes/) that name alice, her documents or
  her turns' hashes; every note edited is re-indexed, so the catalog's search text forgets too;
- her API tokens for `panda serve` are revoked first (privacy/tokens.py);
- other users' relative links into her folders are replaced by '(deleted)' (jobs/link_repair.py);
- catalog rows: documents (with postings and embeddings), turn index, turn uses and references,
  threads, sessions, messages, LLM calls and retrieval operations (by user or by her turn ids),
  source extractions, counter queue entries, and the system events that name her; then the database
  file is rewritten so deleted rows leave no bytes behind.
Before anything is removed, the files and catalog rows go into a tar.gz backup outside the home
(policy privacy.backup_dir, default '{home}.backups/' beside it). A deletion_audit row records a
one-way hash of the user id, the time, the backup path and the counts — never the user's content.
Crash-safe and idempotent: the plan is recomputed from what is still there, so a re-run finishes a
killed deletion and a run with nothing left changes nothing (and writes no audit row).
"""

from __future__ import annotations

import io
import json
import re
import shutil
import tarfile
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import frontmatter

from panda.catalog.maintenance import Maintenance
from panda.documents.atomic import atomic_write_json, atomic_write_text
from panda.documents.model import Document
from panda.documents.paths import validate_name
from panda.errors import ConfirmationRequired
from panda.home import Home
from panda.jobs.common import JobReport, JobRun
from panda.jobs.link_repair import repair_links
from panda.jobs.rules import origin_hash
from panda.privacy import tokens
from panda.privacy.forget import forget_in_note, forget_in_site_knowledge
from panda.privacy.provenance import provenance_hash
from panda.research.knowledge import rebuild_indexes

SHARED_NOTE_DIRS = ("Knowledge", "Meta/Indexes", "Logs/Changes", "Context")


def backup_dir(ctx: Home) -> Path:
    configured = ctx.policy.privacy.backup_dir
    return Path(configured) if configured else ctx.vault.home.parent / f"{ctx.vault.home.name}.backups"


def user_casings(ctx: Home, user_id: str) -> list[str]:
    """Every spelling of the id in the home and catalog that equals it ignoring case ('Dave', 'dave')."""
    home = ctx.vault.home
    found = {user_id}
    for pattern in ("users/*", "archive/*/*", "Logs/Sessions/*"):
        found |= {p.name for p in home.glob(pattern) if p.is_dir() and p.name.lower() == user_id.lower()}
    found |= Maintenance(ctx.catalog).user_ids_like(user_id)
    return sorted(found)


def _user_paths(ctx: Home, users: list[str]) -> list[Path]:
    home = ctx.vault.home
    paths = []
    for user in users:
        paths += [home / "users" / user, home / "Logs" / "Sessions" / user]
        paths += sorted(p for p in home.glob(f"archive/*/{user}") if p.is_dir())
    return [p for p in paths if p.exists()]


def _turn_ids(ctx: Home, users: list[str], paths: list[Path]) -> list[str]:
    """The user's turn ids, from the catalog and from every metadata.json in their folders."""
    ids = {str(r["id"]) for user in users for r in ctx.catalog.turns(user)}
    for folder in paths:
        for marker in folder.rglob("metadata.json"):
            try:
                ids.add(str(json.loads(marker.read_text(encoding="utf-8"))["turn_id"]))
            except (ValueError, KeyError, TypeError):
                continue
    return sorted(ids)


def _derived_notes(ctx: Home, users: list[str]) -> list[Path]:
    """Global notes promoted from this user's memory (origin tag), wherever they are in Knowledge/."""
    tags = {origin_hash(u) for u in users}
    out = []
    for path in sorted(ctx.vault.home.glob("Knowledge/**/*.md")):
        text = path.read_text(encoding="utf-8")
        if any(t in text for t in tags) and frontmatter.loads(text).metadata.get("origin") in tags:
            out.append(path)
    return out


def _knowledge_plan(ctx: Home, hashes: set[str], skip: set[Path]) -> dict[Path, Document | None]:
    """Research and product notes the user's research turns contributed to: {path: rewritten note or None}."""
    plan: dict[Path, Document | None] = {}
    if not hashes:
        return plan
    for path in sorted(ctx.vault.home.glob("Context/Turns/*.md")):  # a lesson is one turn's: it goes whole
        if any(h in path.read_text(encoding="utf-8") for h in hashes):
            plan[path] = None
    for path in sorted(ctx.vault.home.glob("Knowledge/**/*.md")):
        if path in skip:
            continue
        text = path.read_text(encoding="utf-8")
        if not any(h in text for h in hashes):
            continue
        action, doc = forget_in_note(Document.from_markdown(text, doc_path=ctx.vault.layout.relative(path)), hashes)
        if action != "unchanged":
            plan[path] = doc
    return plan


def _site_knowledge_plan(ctx: Home, hashes: set[str]) -> dict[Path, dict[str, Any]]:
    plan = {}
    for path in sorted(ctx.vault.home.glob("site_knowledge/*.json")):
        data = json.loads(path.read_text(encoding="utf-8"))
        changed = forget_in_site_knowledge(data, hashes) if hashes else None
        if changed is not None:
            plan[path] = changed
    return plan


def _needles(users: list[str], doc_ids: list[str], hashes: set[str]) -> list[str]:
    out = [*doc_ids, *sorted(hashes)]
    for user in users:
        out += [f"users/{user}/", f"/{user}/", f"{user}:", f"turn_{user}_"]
    return out


def _lines_to_scrub(ctx: Home, users: list[str], needles: list[str], skip: set[Path]) -> dict[Path, list[int]]:
    """Line numbers of shared notes that name the user (as a word, any case) or one of their documents."""
    word = re.compile(r"(?<![\w-])(" + "|".join(re.escape(u) for u in users) + r")(?![\w-])", re.IGNORECASE)
    lowered = [n.lower() for n in needles]
    out: dict[Path, list[int]] = {}
    for rel in SHARED_NOTE_DIRS:
        for path in sorted((ctx.vault.home / rel).glob("**/*")):
            if not path.is_file() or path in skip or path.suffix not in (".md", ".jsonl", ".csv", ".txt"):
                continue
            lines = path.read_text(encoding="utf-8").splitlines()
            hits = [i for i, line in enumerate(lines) if word.search(line) or any(n in line.lower() for n in lowered)]
            if hits:
                out[path] = with_entry_blocks(lines, hits)
    return out


def with_entry_blocks(lines: list[str], hits: list[int]) -> list[int]:
    """A change-log entry goes with its diff block: the indented and blank lines after a hit '- ' line (pure).

    Example: ['- 10:00 created [[a]] (provenance `h`)', '', '  ```diff', '  +x', '  ```', '- 11:00 ...'] with
    hit 0 -> [0, 1, 2, 3, 4]."""
    out = set(hits)
    for i in hits:
        if not lines[i].startswith("- "):
            continue
        j = i + 1
        while j < len(lines) and (not lines[j].strip() or lines[j].startswith("  ")):
            out.add(j)
            j += 1
    return sorted(out)


def _backup(ctx: Home, user_id: str, files: list[Path], scrubbed: list[Path], rows: dict[str, list]) -> Path:
    folder = backup_dir(ctx)
    folder.mkdir(parents=True, exist_ok=True)
    stamp = datetime.now(UTC).strftime("%Y%m%dT%H%M%S")
    target = folder / f"{origin_hash(user_id)}-{stamp}.tar.gz"  # named by the audit row's hash, not the user id
    with tarfile.open(target, "w:gz") as tar:
        for path in [*files, *scrubbed]:
            tar.add(path, arcname=ctx.vault.layout.relative(path) if path.exists() else path.name)
        data = json.dumps(rows, default=str, ensure_ascii=False, indent=1).encode()
        info = tarfile.TarInfo("catalog_rows.json")
        info.size = len(data)
        tar.addfile(info, io.BytesIO(data))
    return target


def run(job: JobRun) -> JobReport:
    ctx, now = job.ctx, job.now
    user_id = validate_name(str(job.options.get("user") or ""), "user_id")
    report = JobReport("delete_user", now, job.dry_run)
    if not job.dry_run and not job.options.get("confirm"):
        raise ConfirmationRequired(f"deleting every trace of user {user_id!r} cannot be undone: "
                                   "pass --confirm (or --dry-run to see what would go)")
    maintenance = Maintenance(ctx.catalog)
    users = user_casings(ctx, user_id)
    layout = ctx.vault.layout
    paths = _user_paths(ctx, users)
    derived = _derived_notes(ctx, users)
    turn_ids = _turn_ids(ctx, users, paths)
    export = maintenance.export_user(users, turn_ids)  # the backup's rows, and the ids to look for elsewhere
    hashes = {provenance_hash(t) for t in turn_ids}
    doc_ids = sorted({d["id"] for d in export["documents"]} | set(turn_ids))
    derived_ids = [str(frontmatter.loads(p.read_text(encoding="utf-8")).metadata.get("id")) for p in derived]
    knowledge = _knowledge_plan(ctx, hashes, set(derived))
    sites = _site_knowledge_plan(ctx, hashes)
    needles = _needles(users, doc_ids + derived_ids, hashes)
    scrub = _lines_to_scrub(ctx, users, needles, set(derived) | set(knowledge))
    events = maintenance.events_mentioning(users, [*(f"{u}:" for u in users), *doc_ids, *hashes])
    for path in paths:
        count = sum(1 for p in path.rglob("*") if p.is_file())
        report.change("folders_removed", f"{layout.relative(path)}/ ({count} files)")
    for path in derived:
        report.change("derived_notes_removed", f"{layout.relative(path)} (promoted from this user)")
    for path, note in knowledge.items():
        what = "removed (only this user's research made it)" if note is None else "this user's contributions taken out"
        report.change("knowledge_notes_" + ("removed" if note is None else "rewritten"), f"{layout.relative(path)}: {what}")
    for path in sites:
        report.change("site_knowledge_scrubbed", f"{layout.relative(path)}: this user's turns taken out")
    for path, lines in scrub.items():
        report.change("shared_notes_scrubbed", f"{layout.relative(path)}: {len(lines)} line(s)")
    for table, n in sorted(maintenance.user_row_counts(users, turn_ids).items()):
        if n:
            report.change(f"rows_{table}", f"catalog {table}: {n} row(s)")
    if derived_ids:
        report.change("rows_derived_documents", f"catalog documents: {len(derived_ids)} derived note(s)")
    if events:
        report.change("rows_system_events", f"catalog system_events: {len(events)} row(s)")
    live_tokens = [i for i in tokens.list_tokens(ctx.vault.home)
                   if i.revoked_at is None and i.user_id.lower() == user_id.lower()]
    for info in live_tokens:
        report.change("tokens_revoked", f"API token {info.id} ({info.label or 'no label'})")
    if job.dry_run or not report.changes:
        return report.finish(ctx)
    for info in live_tokens:  # first: from now on no request acts as this user (privacy/tokens.py)
        tokens.revoke(ctx.vault.home, token_id=info.id, now=now)
    export["derived_documents"] = [ctx.catalog.get_document(i) or {"id": i} for i in derived_ids]
    target = _backup(ctx, user_id, paths + derived, [*scrub, *knowledge, *sites], export)
    report.notes.append(f"backup written to {target}")
    removed_notes = [p for p, note in knowledge.items() if note is None]
    removed_ids = derived_ids + [str(frontmatter.loads(p.read_text(encoding="utf-8")).metadata.get("id"))
                                 for p in removed_notes]
    with ctx.catalog.transaction():
        maintenance.delete_user_rows(users, turn_ids, removed_ids, events)
    for path in paths:
        shutil.rmtree(path)
    for path in [*derived, *removed_notes]:
        path.unlink(missing_ok=True)
    rewritten = [ctx.vault.write_document(note, path) for path, note in knowledge.items() if note is not None]
    for path, data in sites.items():
        atomic_write_json(path, data)
    for path, lines in scrub.items():
        drop = set(lines)
        kept = [line for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if i not in drop]
        atomic_write_text(path, "\n".join(kept) + "\n")
    _drop_wiki_links(ctx, {p.stem for p in [*derived, *removed_notes]})
    rewritten += [ctx.vault.read_document(layout.relative(p)) for p in scrub if _is_note(layout.relative(p))]
    with ctx.catalog.transaction():
        ctx.memory.index(rewritten)  # their search text loses what was taken out
    rebuild_indexes(ctx.vault, now)
    gone = tuple(f"{layout.relative(p)}/" for p in paths)
    gone_notes = {layout.relative(p) for p in [*derived, *removed_notes]}
    # Other users' links into this user's folders or to removed notes go, words and all (a link's
    # words are the title of her document).
    repair_links(ctx.vault.home, {}, removed=lambda rel: rel.startswith(gone) or rel in gone_notes,
                 removed_text="(deleted)")
    with ctx.catalog.transaction():
        maintenance.record_deletion(origin_hash(user_id), now, str(target), dict(report.counts))
    ctx.catalog.compact()
    return report.finish(ctx)


def _is_note(rel: str) -> bool:
    return rel.startswith(("Knowledge/", "Context/Turns/")) and rel.endswith(".md")


def _drop_wiki_links(ctx: Home, stems: set[str]) -> None:
    """Knowledge notes that linked a removed note lose that line and that `related` entry; other files
    (turns that used the note) keep the name as plain text."""
    if not stems:
        return
    wanted = {f"[[{s}]]" for s in stems}
    for path in sorted(ctx.vault.home.glob("**/*.md")):
        text = path.read_text(encoding="utf-8")
        if not any(w in text for w in wanted):
            continue
        rel = ctx.vault.layout.relative(path)
        if not _is_note(rel):
            for w in wanted:
                text = text.replace(w, w[2:-2])
            atomic_write_text(path, text)
            continue
        doc = Document.from_markdown(text, doc_path=rel)
        doc.body = "\n".join(line for line in doc.body.splitlines() if not any(w in line for w in wanted)) + "\n"
        if isinstance(doc.extra.get("related"), list):
            doc.extra["related"] = [r for r in doc.extra["related"] if r not in wanted]
        ctx.vault.write_document(doc, path)
