"""The one visibility rule (privacy/visibility.py): a user reads their own documents and global ones, never another
user's; a vault path under users/, archive/ or Logs/Sessions/ belongs to the user it names; no path escapes."""

from panda.privacy.visibility import is_private_path, may_read, may_read_path, path_owner


def test_a_user_reads_their_own_and_global_documents_only():
    assert may_read("alice", "alice", "user") and may_read("alice", "alice", "new")
    assert may_read("bob", None, "global") and may_read("bob", "alice", "global")  # global holds no private detail
    assert not may_read("bob", "alice", "user") and not may_read("bob", "alice", "new")
    assert not may_read("bob", None, "user")  # an unowned private document is nobody's to read
    assert not may_read("Alice", "alice", "user")  # ids are compared exactly
    assert may_read(None, "alice", "user")  # no user: a job or the doctor, which read everything


def test_paths_belong_to_the_user_they_name_and_none_escapes():
    assert path_owner("users/alice/turns/turn_000001/context.md") == "alice"
    assert path_owner("archive/2026-03/alice/turn_000001/context.md") == "alice"
    assert path_owner("Logs/Sessions/alice/2026-03-01.md") == "alice"
    assert path_owner("Knowledge/Research/baking.md") is None
    assert is_private_path("users/alice/facts.md") and not is_private_path("Knowledge/Facts/x.md")
    assert may_read_path("alice", "users/alice/facts.md#Facts")
    assert not may_read_path("bob", "users/alice/facts.md")
    assert not may_read_path("bob", "archive/2026-03/alice/turn_000001/context.md")
    assert may_read_path("bob", "Knowledge/Research/baking.md")
    assert not may_read_path("bob", "catalog/panda.duckdb")  # the catalog is no document
    assert not may_read_path("bob", "Knowledge/../users/alice/facts.md")  # traversal
    assert not may_read_path(None, "../outside.md") and not may_read_path("bob", "")
