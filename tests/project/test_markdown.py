"""Every Markdown file of the repository reads as meant: no fence left open (it swallows the headings after
it), no relative link to a missing file or heading, a README a newcomer can read (at most 250 lines), and
every shell block of the README either run here as written or marked with where it runs
(``<!-- runs-in: tests/test_x.py::test_y -->``) or what it needs (``<!-- needs: network -->``, ``gpu``)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import REPO
from tests.support import markdown
from tests.support.builds import copy_tree
from tests.support.dvcrepo import default_repo

README = Path("README.md")
FILES = markdown.tracked(REPO)


def test_the_repository_has_its_markdown_files() -> None:
    names = {str(p) for p in FILES}
    assert {"README.md", "docs/scoring.md", "docs/sources.md", "cards/body.md"} <= names


@pytest.mark.parametrize("path", FILES, ids=str)
def test_fences_close_and_relative_links_resolve(path: Path) -> None:
    text = markdown.text_of(path, REPO)
    items = markdown.tokens(text)
    assert markdown.unclosed_fences(text, items) == [], f"{path}: a fence opened on these lines never closes"
    problems = [p for link in markdown.links(items, path) if (p := markdown.broken(link, REPO))]
    assert problems == []


def test_the_checks_catch_an_open_fence_and_a_broken_link(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "a.md").write_text("# A page\n\n## Its `first` part, and more\n")
    text = "# T\n\n```bash\nls\n``` Coordinates are absolute\n\n## Lost\n\n[x](docs/a.md#lost)\n"
    assert markdown.unclosed_fences(text, markdown.tokens(text)) == [3, 5]  # the open fence, the text after ```
    assert markdown.unclosed_fences("```\nls\n```\n", markdown.tokens("```\nls\n```\n")) == []
    page = tmp_path / "page.md"
    page.write_text("[a](docs/a.md#its-first-part-and-more) [b](docs/b.md) [c](docs/a.md#nope) [d](#t) [e](#u)\n# T\n")
    items = markdown.tokens(page.read_text())
    found = [markdown.broken(link, tmp_path) for link in markdown.links(items, Path("page.md"))]
    assert found == [
        None,
        "page.md: docs/b.md: no such file",
        "page.md: docs/a.md#nope: no heading #nope in a.md",
        None,
        "page.md: #u: no heading #u in page.md",
    ]


def test_the_readme_is_short_and_points_into_docs() -> None:
    text = (REPO / README).read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 250
    linked = {link.target.split("#")[0] for link in markdown.links(markdown.tokens(text), README)}
    for page in ("sources", "scoring", "evaluation", "pipeline", "scaling", "benchmark", "adding-a-source"):
        assert f"docs/{page}.md" in linked, page
    assert "docs/reliability.md" in linked


def test_every_readme_shell_block_runs_or_says_why_not() -> None:
    shell = [b for b in markdown.blocks((REPO / README).read_text(encoding="utf-8")) if b.info in markdown.SHELL]
    assert shell, "the README has shell blocks"
    for block in shell:
        if block.marker is None:
            continue  # run as written by test_readme_shell_blocks_run
        for where in markdown.runs_in(block.marker):
            name, _, test = where.partition("::")
            assert (REPO / name).is_file(), f"README line {block.line}: {block.marker}: no file {name}"
            if test:
                assert f"def {test}(" in (REPO / name).read_text(), f"README line {block.line}: no test {where}"
    assert any(b.marker is None for b in shell), "the Quickstart runs"


def test_every_readme_python_block_names_its_interpreter() -> None:
    """The prose just before a Python block of the README says to run it with `.venv/bin/python`: a plain
    `python3` has no `groundbench` (it is installed into `.venv` only)."""
    text = (REPO / README).read_text(encoding="utf-8")
    lines = text.splitlines()
    python = [b for b in markdown.blocks(text) if b.info == "python"]
    assert python, "the README has a Python block"
    for block in python:
        paragraph = " ".join(lines[: block.line - 1]).rsplit("```", 1)[-1][-400:]
        assert "`.venv/bin/python`" in paragraph, f"README line {block.line}: {paragraph}"


@pytest.mark.parametrize("path", FILES, ids=[str(p) for p in FILES])
def test_no_page_claims_an_unmeasured_suite_size_or_time(path: Path) -> None:
    """A count of tests and how long they took, or how long one test file takes, goes stale with the next
    test; no page states one."""
    text = markdown.text_of(path, REPO)
    assert not re.search(r"\b\d+ tests in \d", text), path
    timed = re.search(r"test_\w+\.py`?\s*\([^)]*\b\d+(\.\d+)?\s*(s|sec|seconds?|min|minutes?)\b", text)
    assert timed is None, f"{path}: {timed.group(0) if timed else ''}"


def _venv() -> Path:
    return Path(sys.prefix)


@pytest.mark.slow
def test_readme_shell_blocks_run(tmp_path: Path) -> None:
    """The README's unmarked blocks, in order, in a copy of the run's `dvc repro` build (tests/support/dvcrepo.py),
    so `make build` there re-runs nothing and then checks the build as it does on a fresh clone."""
    root = copy_tree(default_repo(), tmp_path / "clone")
    stamp = _venv() / ".installed"
    assert stamp.is_file(), f"{stamp}: the tests run from a venv made by `make env`"
    (root / ".venv").symlink_to(_venv())
    for name in ("requirements.lock", "requirements-build.lock", "requirements-dev.lock", "pyproject.toml", "setup.py"):
        os.utime(root / name, (0, 0))  # older than the stamp: `make build` reinstalls nothing into this venv
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MAKE", "MFLAGS", "GROUNDBENCH_DATA"))}
    env.update(XDG_DATA_HOME=str(tmp_path / "xdg"), HF_DATASETS_CACHE=str(tmp_path / "hf"), HF_HUB_OFFLINE="1")
    ran = []
    for block in markdown.blocks((REPO / README).read_text(encoding="utf-8")):
        if not block.runs_here:
            continue
        command = ["bash", "-euo", "pipefail", "-c", block.body]
        if block.info == "python":
            command = [str(root / ".venv" / "bin" / "python"), "-c", block.body]
        result = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True, check=False)
        assert result.returncode == 0, f"README line {block.line}:\n{block.body}\n{result.stdout}\n{result.stderr}"
        ran.append(block.body)
    assert any(b.startswith("make build") for b in ran)
    assert stamp.stat().st_mtime > 0 and not (root / ".venv" / "lib").is_symlink()
    for produced in ("build/eval/mock/scores.json", "build/scores.json", "build/req.jsonl", "build/plots/plots.json"):
        assert (root / produced).is_file(), produced
    # The card's links are relative to the published folder the templates in cards/ become.
    card = Path("data/groundbench/README.md")
    items = markdown.tokens((root / card).read_text(encoding="utf-8"))
    found = markdown.links(items, card)
    assert any(link.target == "assets/teaser.png" for link in found)
    assert [p for link in found if (p := markdown.broken(link, root, templates_too=True))] == []
