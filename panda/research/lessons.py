"""Context/Turns (seed 003: "significant context -> archive to /Context/Turns/"): what a significant
research turn teaches about answering such a question, as a global note.

A turn is significant when it was APPROVEd at `context.significant_turn_quality` or more (policy) and
did research. Context/ is global (doctor.py checks it holds no personal data), so the note is written
from the turn's public research record only (privacy/provenance.py): the task in neutral words
(privacy/neutral.py; a task that cannot be stated without something personal is not published), the
public topic, the tools that ran (names, not arguments), the pages read and the Knowledge notes it
fed, the outcome and quality; its id is the opaque provenance hash, never a link into users/. The
private context.md stays in the user's folder. Departure: seed 003 archives context.md itself there;
a global copy of a personal turn would leak it to every user.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime
from typing import Any

from panda.documents.model import Document, iso
from panda.documents.paths import slugify
from panda.documents.vault import Vault
from panda.privacy.neutral import neutral_task
from panda.research.knowledge import NoteChange, write_note


def turn_lesson_note(vault: Vault, public: dict[str, Any], lesson: dict[str, Any], notes: list[str],
                     when: datetime) -> NoteChange | None:
    """The lesson note, or None when the task cannot be stated without something personal (not published)."""
    task = neutral_task(public["query"], public["topic"], private_terms=public.get("private_words", []))
    if task is None:
        return None
    provenance = str(public["turn_id"])
    name = f"{when.date().isoformat()}_{slugify(public['topic'], 40)}_{provenance[-8:]}"
    path = vault.home / "Context" / "Turns" / f"{name}.md"
    if path.exists():
        return NoteChange(vault.layout.relative(path), "unchanged", "context")
    tools = ", ".join(f"{tool} x{n}" if n > 1 else tool for tool, n in Counter(lesson["tools"]).items()) or "none"
    pages = [f"- [{p.get('title') or p['url']}]({p['url']})" for p in public["pages"]]
    linked = [f"- [[{n.rsplit('/', 1)[-1][:-3]}]]" for n in notes]
    body = "\n".join([
        f"# {task}", "", f"**Topic:** {public['topic']} · **Outcome:** {lesson['outcome']} "
        f"(quality {lesson['quality']:.2f}, attempt {lesson['attempts']})", "", "## Strategy", "", f"Tools: {tools}.", "",
        "## Pages read", "", *(pages or ["- (none)"]), "", "## Knowledge notes", "", *(linked or ["- (none)"]), "",
        f"_Provenance: `{provenance}`._"])
    doc = Document(id=f"ctx_{provenance[-16:]}", kind="note", title=task, primary_topic=public["topic"],
                   keywords=[], intent="informational", content_types=["context"], scope="global",
                   quality=float(lesson["quality"]), created_at=when, modified_at=when,
                   source_urls=[p["url"] for p in public["pages"]], body=body,
                   extra={"artifact_type": "context", "created": iso(when), "status": "active"})
    return write_note(vault, doc, path, "created", "context")
