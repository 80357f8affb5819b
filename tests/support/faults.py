"""Fault injection for the fault suite (tests/faults/test_faults*.py): real faults, in child processes.

- Disk full: the folder a command writes is put on a size-limited ``tmpfs`` holding its current
  content plus a few free bytes, in a private mount namespace of the child (``unshare --mount``, with
  ``--map-root-user`` when the tests do not run as root), so the kernel itself answers ENOSPC to every
  writer (Python, pyarrow's C++, fsync). Afterwards the folder holds exactly what the run left on the
  full file system, as when space is then freed on the same disk; the rerun runs there.
- Read-only: the folder is bind-mounted read-only in the child's mount namespace (EROFS).
- Permission denied: the folder's mode denies the child. As root, chmod does not deny, so the child
  runs as an unprivileged user in its own user namespace (``unshare --user --map-user=1``), where the
  test's files are its own but no capability overrides their mode.

When the machine cannot make a namespace, the case fails with the reason (a check that did not run).
The one-line check (:func:`error_line`) and the hidden-temporaries check are shared.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from collections.abc import Sequence
from functools import cache
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from huggingface_hub import DatasetCard

from groundbench.core.manifests import read_manifest, sha256_file
from groundbench.core.shards import open_shard
from groundbench.schemas.features import FORMAT_VERSION, arrow_schema, format_version_of
from tests.conftest import REPO

AS_ROOT = os.geteuid() == 0
PAGE = 4096  # tmpfs accounts whole pages


def child_env(**extra: str) -> dict[str, str]:
    """The environment of a command under test: offline, no stack on request, loopback never proxied."""
    env = {key: value for key, value in os.environ.items() if key != "GROUNDBENCH_DEBUG"}
    env.update(HF_HUB_OFFLINE="1", DVC_NO_ANALYTICS="1", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    env.update(extra)
    return env


def cli_command(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "groundbench.cli", "--root", str(root), *args]


def run(
    command: list[str], env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, env=env or child_env(), capture_output=True, text=True, timeout=timeout, check=False, cwd=REPO
    )


def error_line(result: subprocess.CompletedProcess[str]) -> str:
    """The failure as the user sees it: exactly one ``error:`` line, the last one, and no stack anywhere."""
    assert result.returncode != 0, result.stderr
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    errors = [line for line in lines if line.startswith("error:")]
    assert len(errors) == 1 and lines[-1] == errors[0], result.stderr
    return errors[0]


def hidden_temporaries(folder: Path) -> list[Path]:
    """What atomic writes leave while in progress (``.name.<pid>@<host>.*.tmp`` / ``.old``)."""
    return sorted(p for p in folder.rglob(".*") if p.name.endswith((".tmp", ".old")))


def _visible(path: Path) -> bool:
    return not any(part.startswith(".") for part in path.parts)


def assert_nothing_half_written(root: Path, configs: Sequence[str] | None = None) -> int:
    """Every output under its real name is complete (``configs``: what the card must list, if given);
    returns how many files were checked."""
    checked = 0
    for shard in sorted((root / "data").rglob("*.arrow")):
        if _visible(shard.relative_to(root)):
            table = open_shard(shard).read_all()  # a torn Arrow file has no footer and fails here
            assert table.schema.equals(arrow_schema(), check_metadata=False), shard
            assert format_version_of(table.schema) == FORMAT_VERSION, shard
            checked += 1
    for published in sorted((root / "data").rglob("*.parquet")):
        if _visible(published.relative_to(root)):
            pq.ParquetFile(published).read()  # a torn Parquet file has no footer and fails here
            checked += 1
    for summary in sorted((root / "data").rglob("*.json")):
        if _visible(summary.relative_to(root)):
            json.loads(summary.read_text())  # e.g. interim/gapartnet/summary.json: complete JSON or absent
            checked += 1
    for manifest in sorted((root / "data").rglob("*.jsonl")):
        if _visible(manifest.relative_to(root)):
            read_manifest(manifest)
            checked += 1
    for image in sorted((root / "data/images").rglob("*.*")):
        if _visible(image.relative_to(root)):
            assert sha256_file(image) == image.stem, image  # content-addressed: name = hash of bytes
            checked += 1
    card = root / "data/groundbench/README.md"
    if card.exists():
        data = DatasetCard.load(card).data.to_dict()
        if configs is not None:
            assert {c["config_name"] for c in data["configs"]} == set(configs)
        checked += 1
    return checked


# namespaces ---------------------------------------------------------------------------------------------

MOUNT_NS = ["unshare", "--mount", "--propagation", "private"] if AS_ROOT else ["unshare", "--mount", "--map-root-user"]
DENY_NS = ["unshare", "--user", "--map-user=1", "--map-group=1"] if AS_ROOT else []


@cache
def _probe(prefix: tuple[str, ...], script: str) -> str | None:
    """None when ``script`` runs under ``prefix`` here, else why not."""
    if prefix and shutil.which(prefix[0]) is None:
        return f"{prefix[0]} is not installed"
    probe = subprocess.run([*prefix, "sh", "-c", script], capture_output=True, text=True, check=False)
    return None if probe.returncode == 0 else f"{' '.join(prefix)} failed here: {probe.stderr.strip()}"


def require(reason: str | None) -> None:
    if reason is None:
        return
    # A fault that cannot be injected is a check that did not run: it fails, never skips.
    pytest.fail(f"the fault cannot be injected on this machine: {reason}")


def require_mounts() -> None:
    require(_probe(tuple(MOUNT_NS), "d=$(mktemp -d) && mount -t tmpfs -o size=64k tmpfs $d && umount $d"))


def require_denial() -> None:
    require(
        _probe(tuple(DENY_NS), "d=$(mktemp -d) && chmod 555 $d && ! touch $d/x 2>/dev/null; s=$?; rm -rf $d; exit $s")
    )


def _allocated(folder: Path) -> int:
    """What ``folder``'s files take on a tmpfs (whole pages), plus a page per folder."""
    total = 0
    for path in folder.rglob("*"):
        if path.is_file() and not path.is_symlink():
            total += -(-path.stat().st_size // PAGE) * PAGE
        else:
            total += PAGE
    return total


FULL_DISK = r"""
set -e
mount -t tmpfs -o "size=$1" tmpfs "$2"
cp -a "$3/." "$2/"
set +e
"${@:5}"
status=$?
cp -a "$2/." "$4/"
exit $status
"""


def on_full_disk(
    folder: Path, free: int, command: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with ``folder`` on a file system holding its content and only ``free`` more bytes.

    Afterwards ``folder`` holds what the run left there (the rerun then finds it, as after freeing space).
    """
    require_mounts()
    seed, after = folder.with_name(folder.name + ".seed"), folder.with_name(folder.name + ".after")
    shutil.copytree(folder, seed, symlinks=True)
    after.mkdir()
    size = _allocated(seed) + PAGE + free
    script = [*MOUNT_NS, "bash", "-c", FULL_DISK, "full-disk", str(size), str(folder), str(seed), str(after)]
    result = run([*script, *command], env)
    shutil.rmtree(folder)
    after.rename(folder)
    shutil.rmtree(seed)
    return result


READ_ONLY = r"""
set -e
mount --bind "$1" "$1"
mount -o remount,bind,ro "$1"
exec "${@:2}"
"""


def on_read_only(
    folder: Path, command: list[str], env: dict[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """Run ``command`` with ``folder`` mounted read-only (EROFS for every write under it)."""
    require_mounts()
    return run([*MOUNT_NS, "bash", "-c", READ_ONLY, "read-only", str(folder), *command], env)


def denied(command: list[str], env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    """Run ``command`` as a user whom file modes bind (see the module docstring)."""
    require_denial()
    return run([*DENY_NS, *command], env)
