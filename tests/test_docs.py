"""The README stays a front door (at most 200 lines) and every relative link in it, in docs/ and in
benchmarks/RESULTS.md resolves (links inside fenced code blocks are examples, not links)."""

import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


def pages() -> list[Path]:
    return [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md")), ROOT / "benchmarks" / "RESULTS.md"]


def links(text: str) -> list[str]:
    """Relative link targets outside fenced code blocks. Example: '[a](docs/x.md)' -> ['docs/x.md']."""
    out, fenced = [], False
    for line in text.splitlines():
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            out += [t for t in LINK.findall(line) if not re.match(r"[a-z]+:", t)]
    return out


def test_links_skip_code_blocks_and_urls():
    assert links("[a](docs/x.md) [b](https://e.org)\n```\n[c](nowhere.md)\n```\n[d](y.md#part)") == ["docs/x.md", "y.md"]


def test_the_readme_is_a_front_door_and_every_link_resolves():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(readme.splitlines()) <= 200
    assert "make demo" in readme and "make test" in readme
    broken = [(page.name, target) for page in pages() for target in links(page.read_text(encoding="utf-8"))
              if not (page.parent / target).exists()]
    assert broken == []
    for page in (ROOT / "docs").glob("*.md"):
        lines = page.read_text(encoding="utf-8").splitlines()
        assert lines[0].startswith("# ") and lines[2].strip(), f"{page.name}: a title, then what the part does"
        assert f"docs/{page.name}" in readme, f"{page.name} is not linked from the README"
