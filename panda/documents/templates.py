"""Meta/Templates: the note bodies Panda writes from, read from the vault so a user can edit them.

The first time a template is needed it is written to Meta/Templates/<name>.md with Panda's default
(seed 003's sections); from then on Panda reads the file, so an edited template shapes every new
note. A template is markdown with `{{placeholder}}` fields; a placeholder the template leaves out is
simply not shown, one Panda does not know is left as written. The frontmatter is not part of the
template (departure from seed 003's examples): its fields are the catalog's (documents/model.py),
so a user cannot break the index by editing a template. Sections that later writes extend — a
product's "## Price History" table — are found by their heading; if a user removes the heading, the
section is appended when it is next needed (research/knowledge.py).
"""

from __future__ import annotations

import re

from panda.documents.atomic import atomic_write_text
from panda.documents.vault import Vault

DEFAULTS: dict[str, str] = {
    "research_note": """# {{title}}

## Summary

{{summary}}

## Key Findings

{{findings}}

## Sources

| Source | Date | Relevance |
|--------|------|-----------|
{{sources}}

## Related Research

{{related}}

{{provenance}}
""",
    "product_note": """# {{name}}

## Overview

{{overview}}

## Specifications

| Spec | Value |
|------|-------|
{{specifications}}

## Price History

| Date | Vendor | Price | Source |
|------|--------|-------|--------|
{{prices}}

## Community Sentiment

{{sentiment}}

## Pros

{{pros}}

## Cons

{{cons}}

## Related

{{related}}

{{provenance}}
""",
}
_FIELD = re.compile(r"\{\{\s*([a-z_]+)\s*\}\}")


def template_path(name: str) -> str:
    return f"Meta/Templates/{name}.md"


def load_template(vault: Vault, name: str) -> str:
    """The template's text from the vault, written there first from the default when missing."""
    path = vault.home / template_path(name)
    if not path.exists():
        atomic_write_text(path, DEFAULTS[name])
        return DEFAULTS[name]
    return path.read_text(encoding="utf-8")


def render(template: str, fields: dict[str, str]) -> str:
    """Fill `{{name}}` fields (pure). Example: render('# {{title}}\\n{{x}}', {'title': 'Cake'}) -> '# Cake\\n{{x}}'."""
    return _FIELD.sub(lambda m: fields[m.group(1)] if m.group(1) in fields else m.group(0), template).strip() + "\n"


def write_defaults(vault: Vault) -> list[str]:
    """Every default template the vault lacks (a new home shows them in Meta/Templates)."""
    written = []
    for name in DEFAULTS:
        if not (vault.home / template_path(name)).exists():
            load_template(vault, name)
            written.append(template_path(name))
    return written
