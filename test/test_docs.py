"""The README and docs/: short README, links that resolve, plots drawn from the tables.

Also that the project speaks of itself alone: no tracker numbers, no
working-session words, no paths outside the repository, anywhere in the
README, docs, code or tests (history belongs in commit messages).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
README = ROOT / "README.md"
PAGES = [README, *sorted((ROOT / "docs").glob("*.md"))]


def _slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[`*_]", "", heading.strip().lower())
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def _anchors(page: Path) -> set[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+)$", text, re.M)}


def _links(page: Path) -> list[str]:
    text = re.sub(r"```.*?```", "", page.read_text(), flags=re.S)
    return re.findall(r"!?\[[^\]]*\]\(([^)\s]+)\)", text)


def test_readme_is_at_most_300_lines():
    assert len(README.read_text().splitlines()) <= 300


def test_docs_pages_exist_and_the_readme_links_each():
    links = set(_links(README))
    for page in PAGES[1:]:
        assert f"docs/{page.name}" in links, page.name


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_link_resolves(page):
    for link in _links(page):
        if re.match(r"^[a-z]+://", link):
            continue  # outside the repository: not checked offline
        target, _, anchor = link.partition("#")
        path = (page.parent / target).resolve() if target else page
        assert path.exists(), f"{page.name}: {link} does not exist"
        assert path.is_relative_to(ROOT), f"{page.name}: {link} leaves the repository"
        if anchor:
            assert path.suffix == ".md", link
            assert anchor in _anchors(path), f"{page.name}: {link}: no heading #{anchor}"


# What only the people who worked on the project could read: tracker numbers
# and the tracker's words, the reference seeds by number, working sessions,
# and paths outside the repository.
SELF_REFERENCES = [
    r"\bissues? ?#?\d+", r"\bthe issue\b", r"\bissue's\b", r"\bseed[ -]?0\d\d\b",
    r"\bseeds/", r"\bsessions?\b", r"\.\./shared", r"\bshared/ros2\b", r"/work/", r"/tmp/",
]
SCANNED = ["README.md", "docs", "geometry_core", "nodes", "bench", "test", "launch", "config",
           "scripts", "msg", "srv", "csrc", "CMakeLists.txt", "setup.py", "setup.cfg",
           "package.xml", "requirements-ros.txt"]
SUFFIXES = {".md", ".py", ".c", ".h", ".txt", ".cfg", ".xml", ".yaml", ".msg", ".srv", ".sh", ""}


def _scanned_files():
    for name in SCANNED:
        path = ROOT / name
        files = [path] if path.is_file() else sorted(p for p in path.rglob("*") if p.is_file())
        for file in files:
            generated = "lcmtypes" in file.parts or "__pycache__" in file.parts
            if file.suffix in SUFFIXES and not generated and file != Path(__file__).resolve():
                yield file


def test_the_project_speaks_of_itself_alone():
    pattern = re.compile("|".join(SELF_REFERENCES), re.I)
    found = []
    for file in _scanned_files():
        try:
            text = file.read_text()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(text.splitlines(), 1):
            # An outside project's tracker is cited by its address or owner/repo#N.
            if pattern.search(line) and not re.search(r"https?://|\w/[\w.-]+#\d+", line):
                found.append(f"{file.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "\n".join(found)


def test_plots_are_drawn_from_the_tables_on_the_benchmarks_page(tmp_path, monkeypatch):
    pytest.importorskip("matplotlib", reason="matplotlib is in the bench and test extras")
    import bench.plots as plots

    page = ROOT / "docs" / "benchmarks.md"
    monkeypatch.setattr(plots, "IMAGES", tmp_path)
    for name, plot in plots.PLOTS.items():
        section = re.search(f"<!-- {name}:start -->(.*?)<!-- {name}:end -->", page.read_text(),
                            re.S)
        assert section, name
        assert len(plots.markdown_rows(section[1])) >= 4, name
        image = plot(section[1], tmp_path / f"{name}.png")
        assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        shown = {"bench": "cycle_ratios", "robots": "robots", "hulls": "hulls",
                 "math-bench": "math_ops"}[name]
        assert f"img/{shown}.png" in page.read_text()
        assert (ROOT / "docs" / "img" / f"{shown}.png").is_file()
    accuracy = (ROOT / "docs" / "accuracy.md").read_text()
    assert len(plots.markdown_rows(accuracy)) >= 20
    image = plots.plot_accuracy(accuracy, tmp_path / "accuracy.png")
    assert image.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and "img/accuracy.png" in accuracy
