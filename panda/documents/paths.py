"""Safe names and the vault layout: every id that becomes a path is checked here.

`validate_name` accepts ids made of letters, digits, '.', '_', '-' and '@' (no leading dot, at most
128 characters); `VaultLayout` builds every path of the home (DESIGN §2) and refuses anything that
would resolve outside it. Left out: creating files (documents/ and catalog/ do that).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from panda.errors import UnsafePathError

_NAME = re.compile(r"^[A-Za-z0-9_@-][A-Za-z0-9._@-]{0,127}$")


def validate_name(value: str, what: str = "name") -> str:
    """Return `value` if it is safe as one path component, else raise UnsafePathError.

    Example: validate_name("alice") -> "alice"; validate_name("../etc") raises.
    """
    if not isinstance(value, str) or not _NAME.match(value) or ".." in value:
        raise UnsafePathError(
            f"{what} {value!r} is not a safe name: use letters, digits, '.', '_', '-', '@' "
            "(max 128, no leading dot, no '..')"
        )
    return value


def turn_dir_name(turn_number: int) -> str:
    """Example: turn_dir_name(7) -> 'turn_000007'."""
    if turn_number < 1:
        raise UnsafePathError(f"turn number {turn_number} must be >= 1")
    return f"turn_{turn_number:06d}"


def slugify(text: str, max_len: int = 60) -> str:
    """Lower-case slug for file names. Example: slugify('Gaming Laptops: RTX 4060!') -> 'gaming_laptops_rtx_4060'."""
    slug = re.sub(r"[^a-z0-9]+", "_", text.lower()).strip("_")
    return (slug[:max_len].rstrip("_")) or "untitled"


@dataclass(frozen=True)
class VaultLayout:
    """Every path of a Panda home. All user-derived names are validated."""

    home: Path

    def inside(self, path: Path) -> Path:
        """Return `path` resolved, or raise if it is not inside the home."""
        root = self.home.resolve()
        resolved = path.resolve()
        if resolved != root and root not in resolved.parents:
            raise UnsafePathError(f"{path} resolves outside the home {root}")
        return resolved

    def relative(self, path: Path) -> str:
        return self.inside(path).relative_to(self.home.resolve()).as_posix()

    def resolve_relative(self, rel: str) -> Path:
        return self.inside(self.home / rel)

    def user_dir(self, user_id: str) -> Path:
        return self.inside(self.home / "users" / validate_name(user_id, "user_id"))

    def preferences_path(self, user_id: str) -> Path:
        return self.user_dir(user_id) / "preferences.md"

    def facts_path(self, user_id: str) -> Path:
        return self.user_dir(user_id) / "facts.md"

    def memory_path(self, user_id: str, kind: str) -> Path:
        """preferences.md for kind 'preference', facts.md for 'fact'."""
        return self.preferences_path(user_id) if kind == "preference" else self.facts_path(user_id)

    def turns_dir(self, user_id: str) -> Path:
        return self.user_dir(user_id) / "turns"

    def turn_dir(self, user_id: str, turn_number: int) -> Path:
        return self.turns_dir(user_id) / turn_dir_name(turn_number)

    def memory_dir(self, user_id: str) -> Path:
        return self.user_dir(user_id) / "memories"

    @property
    def global_memory_dir(self) -> Path:
        return self.home / "Knowledge" / "Facts"

    def ensure_skeleton(self) -> None:
        """Create the top-level vault folders so Obsidian opens a recognisable tree."""
        for rel in (
            "users", "Knowledge/Research", "Knowledge/Products", "Knowledge/Facts", "Context/Turns",
            "Logs/Sessions", "Logs/Changes", "Meta/Indexes", "Meta/Templates", "Meta/Config",
            "site_knowledge", "archive", "catalog", "Web",
        ):
            (self.home / rel).mkdir(parents=True, exist_ok=True)
