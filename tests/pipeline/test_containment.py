"""Source-root containment (groundbench/core/paths.py): ``Containment`` resolves folders once per pass and
must agree with ``os.path.realpath`` on every path, escapes through symlinked files and folders included."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from groundbench.core.paths import Containment, inside_root
from groundbench.errors import GroundBenchError


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    root = tmp_path / "root"
    (root / "images" / "deep").mkdir(parents=True)
    (root / "images" / "a.png").write_bytes(b"a")
    (root / "images" / "deep" / "b.png").write_bytes(b"b")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "c.png").write_bytes(b"c")
    (root / "escape.png").symlink_to(outside / "c.png")  # a file pointing out
    (root / "away").symlink_to(outside)  # a folder pointing out
    (root / "alias").symlink_to(root / "images")  # a folder pointing in
    (root / "images" / "same.png").symlink_to(root / "images" / "a.png")  # a file pointing in
    return root


INSIDE = ["images/a.png", "images/deep/b.png", "alias/a.png", "images/same.png", "images/../images/a.png", "new.png"]
OUTSIDE = ["escape.png", "away/c.png", "../outside/c.png", "images/../../outside/c.png", "alias/../.."]


@pytest.mark.parametrize("name", INSIDE)
def test_paths_inside_the_root_resolve_as_realpath_does(tree: Path, name: str) -> None:
    paths = Containment(tree)
    for _ in range(2):  # the second time from its cache of folders
        assert paths.resolve(tree / name) == Path(os.path.realpath(tree / name))
    assert inside_root(tree, tree / name) == Path(os.path.realpath(tree / name))


@pytest.mark.parametrize("name", OUTSIDE)
def test_paths_leaving_the_root_are_refused_naming_where_they_lead(tree: Path, name: str) -> None:
    paths = Containment(tree)
    paths.resolve(tree / "images" / "a.png")  # folders already cached must not let an escape through
    with pytest.raises(GroundBenchError, match="outside the source root") as caught:
        paths.resolve(tree / name, "image")
    assert os.path.realpath(tree / name) in str(caught.value) and "image" in str(caught.value)
    with pytest.raises(GroundBenchError, match="outside the source root"):
        inside_root(tree, tree / name)


def test_the_root_itself_and_a_root_that_is_a_symlink(tree: Path, tmp_path: Path) -> None:
    assert Containment(tree).resolve(tree) == Path(os.path.realpath(tree))
    link = tmp_path / "linked_root"
    link.symlink_to(tree)
    assert Containment(link).resolve(link / "images" / "a.png") == Path(os.path.realpath(tree / "images" / "a.png"))
    with pytest.raises(GroundBenchError, match="outside the source root"):
        Containment(link).resolve(link / "away" / "c.png")


def test_a_sibling_folder_sharing_the_roots_name_as_prefix_is_outside(tmp_path: Path) -> None:
    (tmp_path / "root").mkdir()
    (tmp_path / "root2").mkdir()
    (tmp_path / "root2" / "x.png").write_bytes(b"x")
    with pytest.raises(GroundBenchError, match="outside the source root"):
        Containment(tmp_path / "root").resolve(tmp_path / "root" / ".." / "root2" / "x.png")
