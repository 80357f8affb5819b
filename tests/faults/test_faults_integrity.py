"""Two faults whose damage the tools used to accept: a damaged DVC cache object, and a stale ``datasets`` cache.

Each case asserts: a one-line error (no traceback), no damaged byte accepted, and the documented repair
or rerun restoring byte-identical outputs (docs/integrity.md).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from datasets import load_dataset

from groundbench.errors import GroundBenchError
from groundbench.loaders import load_config
from groundbench.loaders.published import data_files
from groundbench.stages.paths import HF_FOLDER
from groundbench.tools.dvccache import cache_dir, object_path, tracked_files
from tests.conftest import build_all, digests, run_cli
from tests.support.builds import copy_tree
from tests.support.dvcrepo import TRACKED_OUTPUTS, default_repo, dvc_env, run_ok
from tests.support.tampering import move_interim_box, rewrite_parquet

CONFIG = "curated_umd"


# ---------------------------------------------------------------- a damaged DVC cache object


@pytest.fixture
def repo(tmp_path: Path, _shared_builds: None) -> Path:
    """The run's `dvc repro` of the project, copied, then relinked as `make build` leaves it: every output
    file is a hard link to its cache object (a config's interim file, its shard and the object: one inode)."""
    root = copy_tree(default_repo(), tmp_path / "repo")
    run_ok(root, "dvc", "checkout", "--relink", "--quiet")
    return root


def _groundbench(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "groundbench.cli", *args]
    return subprocess.run(command, cwd=root, env=dvc_env(), capture_output=True, text=True, check=False)


def _flip_bit(path: Path, offset: int) -> None:
    """One flipped bit, written in place through the (read-only, hard-linked) file, as a bad disk would."""
    os.chmod(path, 0o644)
    with open(path, "r+b") as handle:
        handle.seek(offset)
        byte = handle.read(1)[0]
        handle.seek(offset)
        handle.write(bytes([byte ^ 0x10]))
    os.chmod(path, 0o444)


def _damage(root: Path, name: str) -> tuple[Path, list[Path]]:
    """Flip a bit of the cache object behind ``name``; returns the object and the files linked to it."""
    cache = cache_dir(root)
    tracked = tracked_files(root, cache)
    obj = object_path(cache, tracked[name].md5)
    linked = [root / t.path for t in tracked.values() if t.md5 == tracked[name].md5]
    assert all(os.stat(path).st_ino == os.stat(obj).st_ino for path in linked)  # one inode: links, not copies
    _flip_bit(obj, obj.stat().st_size // 2)
    return obj, linked


DAMAGED = "a damaged DVC cache object"
STALE = "a stale datasets cache"


def _assert_reported(root: Path, obj: Path) -> str:
    """verify's one stderr line for a damaged cache object (it also prints the repair command)."""
    result = _groundbench(root, "verify")
    assert result.returncode == 1 and "Traceback" not in result.stdout + result.stderr
    assert result.stderr.strip().count("\n") == 0 and result.stderr.startswith("verify FAILED")
    repair = [line for line in result.stdout.splitlines() if line.startswith("REPAIR ")]
    assert len(repair) == 1, result.stdout
    assert str(obj.relative_to(root)) in repair[0] and "`groundbench verify --repair`" in repair[0]
    return result.stderr.strip()


@pytest.mark.slow  # end to end: a relinked `dvc repro` build, then a `dvc repro` of the damaged stages
def test_a_damaged_cache_object_is_reported_and_rebuilt_byte_identical(repo: Path, fault_case) -> None:
    expected, lock = digests(repo, TRACKED_OUTPUTS), (repo / "dvc.lock").read_bytes()
    obj, linked = _damage(repo, "data/shards/bulk_umd/test-00000-of-00001.arrow")
    assert {p.relative_to(repo).as_posix() for p in linked} == {
        "data/interim/umd/bulk_umd/test-00000-of-00001.arrow",
        "data/shards/bulk_umd/test-00000-of-00001.arrow",
    }
    # What DVC alone does: nothing to see, nothing to repair; the damaged bytes stay.
    run_ok(repo, "dvc", "checkout", "--force")
    assert "up to date" in run_ok(repo, "dvc", "status")
    assert digests(repo, TRACKED_OUTPUTS) != expected
    shown = _assert_reported(repo, obj)
    repaired = _groundbench(repo, "verify", "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "rebuilt with dvc repro bake_umd convert_umd" in repaired.stderr
    assert "verify ok" in repaired.stderr and "Traceback" not in repaired.stderr
    assert digests(repo, TRACKED_OUTPUTS) == expected and (repo / "dvc.lock").read_bytes() == lock
    assert all(os.stat(path).st_ino == os.stat(obj).st_ino for path in linked)  # one copy again
    assert "up to date" in run_ok(repo, "dvc", "status")
    case = "one bit flipped in a hard-linked cache object (a shard), kept by dvc checkout --force; no remote"
    rerun = "verify --repair: dvc repro of the owning stages, byte-identical outputs, dvc.lock unchanged"
    fault_case.record(DAMAGED, case, exit=1, shown=shown, rerun=rerun)


@pytest.mark.slow  # end to end: push to a local remote, damage, pull back
def test_a_damaged_cache_object_is_pulled_back_from_the_remote(repo: Path, tmp_path: Path, fault_case) -> None:
    run_ok(repo, "dvc", "remote", "add", "-d", "local", str(tmp_path / "remote"))
    run_ok(repo, "dvc", "push", "--quiet")
    expected = digests(repo, TRACKED_OUTPUTS)
    published = data_files(repo / HF_FOLDER / "data" / CONFIG)[0].relative_to(repo).as_posix()
    obj, linked = _damage(repo, published)
    run_ok(repo, "dvc", "pull", "--force")  # DVC finds the object present and keeps its bytes
    assert digests(repo, TRACKED_OUTPUTS) != expected
    shown = _assert_reported(repo, obj)
    repaired = _groundbench(repo, "verify", "--repair")
    assert repaired.returncode == 0, repaired.stdout + repaired.stderr
    assert "pulled from the DVC remote: data/groundbench" in repaired.stderr and "verify ok" in repaired.stderr
    assert digests(repo, TRACKED_OUTPUTS) == expected
    assert "up to date" in run_ok(repo, "dvc", "status")
    case = "one bit flipped in a hard-linked cache object (a Parquet file), kept by dvc pull --force"
    fault_case.record(
        DAMAGED, case, exit=1, shown=shown, rerun="verify --repair: pulled from the remote, byte-identical"
    )


# ---------------------------------------------------------------- a stale datasets cache


def _target_box(row: dict[str, Any]) -> list[float]:
    return next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])["bbox_xyxy"]


def test_a_changed_parquet_file_is_refused_never_answered_from_the_warm_cache(
    project: Path, tmp_path: Path, fault_case
) -> None:
    build_all(project)
    folder, cache = project / HF_FOLDER, tmp_path / "cache"
    built = digests(project, ("data/groundbench",))
    first = load_config(CONFIG, folder, cache_dir=cache)  # the caches are warm from here on
    load_dataset(str(folder), CONFIG, split="test", cache_dir=str(cache))  # and the plain `datasets` one
    box = _target_box(first[0])
    path = data_files(folder / "data" / CONFIG)[0]
    card = (folder / "README.md").read_bytes()
    size = path.stat().st_size

    def move_box(rows: list[dict[str, Any]]) -> None:
        _target_box(rows[0])[0] += 1.0

    rewrite_parquet(path, move_box)
    assert (folder / "README.md").read_bytes() == card and pq.ParquetFile(path).metadata.num_rows == first.num_rows
    assert abs(path.stat().st_size - size) <= 16  # the same size give or take a few bytes of compression
    # What `datasets` alone answers: the old rows, from its cache keyed on the unchanged card.
    stale = load_dataset(str(folder), CONFIG, split="test", cache_dir=str(cache))
    assert _target_box(stale[0]) == box
    with pytest.raises(GroundBenchError) as refused:
        load_config(CONFIG, folder, cache_dir=cache)
    message = str(refused.value)
    assert "\n" not in message and str(path) in message and "differs from the card's record" in message
    # The documented rerun rewrites the folder from the shards: byte-identical, and the rows load again.
    assert run_cli(project, "assemble") == 0
    assert digests(project, ("data/groundbench",)) == built
    assert _target_box(load_config(CONFIG, folder, cache_dir=cache)[0]) == box
    case = "a Parquet file's box changed in place (same card, rows and size), caches warm"
    rerun = "groundbench assemble: byte-identical folder, the rows load again"
    fault_case.record(STALE, case, exit=2, shown=f"error: {message}", rerun=rerun)


def test_a_rebuilt_folder_with_another_box_is_loaded_fresh_from_a_warm_cache(
    project: Path, tmp_path: Path, fault_case
) -> None:
    build_all(project)
    folder, cache = project / HF_FOLDER, tmp_path / "cache"
    box = _target_box(load_config(CONFIG, folder, cache_dir=cache)[0])  # the cache is warm from here on
    # A legitimate rebuild at the same path: one box one pixel wider, the same rows.
    example_id = move_interim_box(project)
    for command in (("bake", CONFIG), ("store",), ("assemble",)):
        assert run_cli(project, *command) == 0, command
    fresh = load_config(CONFIG, folder, cache_dir=cache)
    assert fresh[0]["example_id"] == example_id and _target_box(fresh[0]) == [box[0] - 1.0, *box[1:]]
    shutil.rmtree(cache)
    assert _target_box(load_config(CONFIG, folder, cache_dir=cache)[0]) == _target_box(fresh[0])
    case = "a folder rebuilt with one box moved, loaded again with a warm cache"
    fault_case.record(STALE, case, exit=0, shown="(none: the new rows load)", rerun="a cold cache loads the same rows")
