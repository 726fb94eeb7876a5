"""Who may read what (DESIGN §10): the one visibility rule, asked by every read path.

A document is readable by user U iff it is U's own or it is global. Two forms of the same rule:
- `may_read(user, owner, scope)` for catalog rows (search results, retrieve by id, session summaries);
- `may_read_path(user, rel_path)` for vault files reached by path (retrieve by path, link-following,
  webpage-cache reuse): `users/{u}/…`, `archive/{month}/{u}/…` and `Logs/Sessions/{u}/…` belong to u;
  `catalog/` (the database, journals) belongs to nobody; every other folder of the vault is global.
`user=None` is the operator's view (CLI without --user, jobs): everything is readable. Callers that act
for a user always pass the user. Left out: filtering candidates early (the catalog's SearchFilters and
memory/index.py partitions do that for speed; this rule is the final gate on what they return).
"""

from __future__ import annotations

from pathlib import PurePosixPath

PRIVATE_ROOTS = ("users", "archive", "Logs/Sessions")
CLOSED_ROOTS = ("catalog",)


def may_read(user_id: str | None, owner: str | None, scope: str | None) -> bool:
    """Example: may_read('bob', 'alice', 'user') -> False; may_read('bob', None, 'global') -> True."""
    if user_id is None or scope == "global":
        return True
    return owner is not None and owner == user_id


def path_owner(rel_path: str) -> str | None:
    """The user a vault path belongs to, or None for a global path (pure).

    Example: path_owner('archive/2026-03/alice/turn_000001/context.md') -> 'alice';
    path_owner('Knowledge/Research/baking.md') -> None.
    """
    parts = PurePosixPath(rel_path.split("#", 1)[0]).parts
    if len(parts) >= 2 and parts[0] == "users":
        return parts[1]
    if len(parts) >= 3 and parts[0] == "archive":
        return parts[2]
    if len(parts) >= 3 and parts[:2] == ("Logs", "Sessions"):
        return parts[2]
    return None


def is_private_path(rel_path: str) -> bool:
    parts = PurePosixPath(rel_path.split("#", 1)[0]).parts
    return bool(parts) and (parts[0] in ("users", "archive") or parts[:2] == ("Logs", "Sessions"))


def may_read_path(user_id: str | None, rel_path: str) -> bool:
    """Example: may_read_path('carol', 'users/dave/turns/turn_000001/context.md') -> False."""
    parts = PurePosixPath(rel_path.split("#", 1)[0]).parts
    if not parts or ".." in parts:
        return False
    if user_id is None:
        return True
    if parts[0] in CLOSED_ROOTS:
        return False
    if is_private_path(rel_path):
        return path_owner(rel_path) == user_id
    return True
