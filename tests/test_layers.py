"""The layers hold: no package imports one above it, and no modules import each other in a circle — counting imports
inside functions too, which hide a cycle without removing it.

The layers, low to high (a module may import its own layer and the ones below):
errors, documents, language, config, guard_names < catalog, privacy < llm < memory < research < pipeline < runtime, jobs, evaluation <
doctor, cli < flows. ALLOWED_UPWARD and ALLOWED_CYCLES list what was there when this test came (issue 41); they may
only shrink: a listed import that is gone fails the test until it is struck from the list, so a fix stays fixed.
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LEVELS = {"errors": 0, "documents": 0, "language": 0, "config": 0, "guard_names": 0, "catalog": 1, "privacy": 1, "llm": 2, "memory": 3,
          "home": 4, "conversations": 5, "research": 5, "pipeline": 6, "runtime": 7, "sharding": 7, "jobs": 7,
          "evaluation": 7, "doctor": 8, "cli": 8, "serve": 8,
          "flows": 9}
ALLOWED_UPWARD: set[tuple[str, str]] = set()
ALLOWED_CYCLES: set[frozenset[str]] = set()  # catalog.store <-> maintenance and plan -> execute -> synthesize -> plan: cut


def module_name(path: Path) -> str:
    """Example: ROOT/panda/memory/search.py -> 'panda.memory.search'; ROOT/panda/llm/__init__.py -> 'panda.llm'."""
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def layer(module: str) -> int:
    """Example: 'panda.memory.search' -> 3; 'flows.turns' -> 9."""
    parts = module.split(".")
    top = parts[1] if parts[0] == "panda" else parts[0]
    assert top in LEVELS, f"{module}: give {top!r} its layer in LEVELS (tests/test_layers.py)"
    return LEVELS[top]


def import_graph() -> dict[str, set[str]]:
    """Every module of panda/ and flows/ -> the project modules it imports anywhere in its body."""
    modules = {module_name(p): p for p in [*ROOT.glob("panda/**/*.py"), *ROOT.glob("flows/*.py")]}
    graph: dict[str, set[str]] = {}
    for module, path in modules.items():
        found: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                # `from panda.memory import search` imports the module panda.memory.search, not the package
                names = [f"{node.module}.{a.name}" if f"{node.module}.{a.name}" in modules else node.module
                         for a in node.names]
            else:
                continue
            found |= {n for n in names if n in modules and n != module}
        graph[module] = found
    return graph


def cycles(graph: dict[str, set[str]]) -> set[frozenset[str]]:
    """The strongly connected groups of more than one module (Tarjan). Example: a->b, b->a, b->c -> {{a, b}}."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: set[frozenset[str]] = set()

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while (w := stack.pop()) != v:
                group.append(w)
            if group:
                found.add(frozenset([*group, v]))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_cycles_are_found():
    assert cycles({"a": {"b"}, "b": {"a", "c"}, "c": set()}) == {frozenset({"a", "b"})}


def test_no_upward_import_and_no_cycle_beyond_the_shrinking_allow_list():
    graph = import_graph()
    upward = {(a, b) for a, targets in graph.items() for b in targets if layer(b) > layer(a)}
    assert upward - ALLOWED_UPWARD == set(), "imports that point up the layers (move the code down, or pass it in)"
    assert ALLOWED_UPWARD - upward == set(), "gone: strike these from ALLOWED_UPWARD"
    found = cycles(graph)
    assert found - ALLOWED_CYCLES == set(), "modules that import each other in a circle"
    assert ALLOWED_CYCLES - found == set(), "gone: strike these from ALLOWED_CYCLES"


def test_sql_runs_only_in_the_catalog():
    """catalog/ is the only code that talks to DuckDB: no other module imports it or runs a statement."""
    offenders = []
    for path in sorted((ROOT / "panda").rglob("*.py")):
        if path.parent.name == "catalog":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            imported = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            executes = isinstance(node, ast.Attribute) and node.attr in ("execute", "executemany", "sql") and \
                isinstance(node.value, ast.Attribute) and node.value.attr == "con"
            if any(name.split(".")[0] == "duckdb" for name in imported) or executes:
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def test_environment_is_read_only_in_config():
    """Panda's settings come from the environment in one place (config.py); elsewhere a module may only set a
    third-party library's variable (os.environ.setdefault), never read one."""
    offenders = []
    for path in sorted([*(ROOT / "panda").rglob("*.py"), *(ROOT / "flows").glob("*.py")]):
        if path == ROOT / "panda" / "config.py":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            reads = isinstance(node, ast.Attribute) and node.attr in ("getenv", "environ") and \
                isinstance(node.value, ast.Name) and node.value.id == "os"
            if reads and not _is_setdefault(node, path):
                offenders.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offenders == []


def _is_setdefault(node: ast.Attribute, path: Path) -> bool:
    """Whether `os.environ` at `node` is the receiver of a .setdefault(...) call."""
    for parent in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(parent, ast.Attribute) and parent.attr == "setdefault" and \
                isinstance(parent.value, ast.Attribute) and parent.value.lineno == node.lineno and \
                parent.value.col_offset == node.col_offset:
            return True
    return False


def test_no_module_over_500_lines():
    """A module a newcomer can read in one sitting: split one that grows past 500 lines by what it does."""
    long = {str(p.relative_to(ROOT)): n for p in [*ROOT.glob("panda/**/*.py"), *ROOT.glob("flows/*.py")]
            if (n := len(p.read_text(encoding="utf-8").splitlines())) > 500}
    assert long == {}


def test_every_opened_home_is_closed_by_with():
    """`open_home(...)` is only ever the subject of a `with` (or handed to an ExitStack's `enter_context`, for a
    long-lived reader): an exception anywhere still releases the writer lock."""
    loose = []
    for path in sorted([*(ROOT / "panda").rglob("*.py"), *(ROOT / "flows").glob("*.py")]):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        in_with = {id(item.context_expr) for node in ast.walk(tree) if isinstance(node, ast.With) for item in node.items}
        in_with |= {id(node.args[0]) for node in ast.walk(tree) if isinstance(node, ast.Call) and node.args
                    and getattr(node.func, "attr", None) == "enter_context"}
        loose += [f"{path.relative_to(ROOT)}:{node.lineno}" for node in ast.walk(tree)
                  if isinstance(node, ast.Call) and getattr(node.func, "id", None) == "open_home" and id(node) not in in_with]
    assert loose == []
