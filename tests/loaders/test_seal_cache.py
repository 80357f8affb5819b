"""``load_config``'s seal check hashes a data file once per file identity and remembers it
(``groundbench/core/sealcache.py``), and still refuses every changed file: rewritten in place with its
mtime put back, replaced by another file, or changed while its digest is being remembered."""

from __future__ import annotations

import hashlib
import os
import time
from collections.abc import Callable
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from groundbench.core import sealcache
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import content_key

CONFIG = "curated_x"
TICK = 0.05  # s: longer than the kernel's timestamp tick, so each step below has timestamps of its own


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A published folder of one config in two files, the card recording their sha256s."""
    root = tmp_path / "published"
    data = root / "data" / CONFIG
    data.mkdir(parents=True)
    lines = []
    for index in range(2):
        path = data / f"test-0000{index}-of-00002.parquet"
        pq.write_table(pa.table({"example_id": [f"x/{index}/{i}" for i in range(50)]}), path)
        lines.append(f"    data/{CONFIG}/{path.name}: {hashlib.sha256(path.read_bytes()).hexdigest()}")
    (root / "README.md").write_text("---\ngroundbench:\n  data_files_sha256:\n" + "\n".join(lines) + "\n---\n")
    return root


@pytest.fixture
def hashed(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """Every file the seal check reads, in order (the real hashing still runs)."""
    calls: list[Path] = []
    real: Callable[[Path], str] = sealcache.sha256_file

    def counting(path: Path) -> str:
        calls.append(path)
        return real(path)

    monkeypatch.setattr(sealcache, "sha256_file", counting)
    return calls


@pytest.fixture
def settled(monkeypatch: pytest.MonkeyPatch) -> None:
    """Files count as settled one tick after their last change (the real wait is 2 s)."""
    monkeypatch.setattr(sealcache, "SETTLED_NS", int(TICK * 1e9))
    time.sleep(2 * TICK)


def _first_file(folder: Path) -> Path:
    return sorted((folder / "data" / CONFIG).glob("*.parquet"))[0]


def _flip_byte_in_place(path: Path) -> None:
    """One byte changed through the same inode, same size, and the mtime put back (as ``cp -p`` leaves it)."""
    before = path.stat()
    with open(path, "r+b") as handle:
        handle.seek(before.st_size // 2)
        byte = handle.read(1)[0]
        handle.seek(before.st_size // 2)
        handle.write(bytes([byte ^ 0x01]))
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = path.stat()
    assert (after.st_ino, after.st_size, after.st_mtime_ns) == (before.st_ino, before.st_size, before.st_mtime_ns)


def test_a_settled_file_is_hashed_once_and_the_key_is_the_same(
    folder: Path, tmp_path: Path, settled: None, hashed: list[Path]
) -> None:
    seals = tmp_path / "seals"
    key = content_key(folder, CONFIG)  # every file hashed now, nothing remembered
    assert len(hashed) == 0  # without seals the check does not go through the store
    assert content_key(folder, CONFIG, seals) == key
    assert len(hashed) == 2 and len(list(seals.glob("*.json"))) == 2
    assert content_key(folder, CONFIG, seals) == key
    assert len(hashed) == 2  # remembered: no byte read again


def test_a_file_changed_just_now_is_not_remembered(folder: Path, tmp_path: Path, hashed: list[Path]) -> None:
    """Within SETTLED_NS of its last change a file could change again with the same timestamps: hashed each time."""
    seals = tmp_path / "seals"
    content_key(folder, CONFIG, seals)
    content_key(folder, CONFIG, seals)
    assert len(hashed) == 4 and not seals.exists()


def test_a_file_rewritten_in_place_with_its_mtime_put_back_is_refused(
    folder: Path, tmp_path: Path, settled: None, hashed: list[Path]
) -> None:
    seals = tmp_path / "seals"
    content_key(folder, CONFIG, seals)
    _flip_byte_in_place(_first_file(folder))  # ctime moves: it cannot be set back
    with pytest.raises(GroundBenchError, match="differs from the card's record") as refused:
        content_key(folder, CONFIG, seals)
    assert str(_first_file(folder)) in str(refused.value) and hashed[-1] == _first_file(folder).resolve()


def test_a_replaced_file_is_refused(folder: Path, tmp_path: Path, settled: None) -> None:
    seals = tmp_path / "seals"
    content_key(folder, CONFIG, seals)
    path = _first_file(folder)
    before = path.stat()
    other = path.with_name("other.tmp")
    pq.write_table(pa.table({"example_id": [f"y/0/{i}" for i in range(50)]}), other)
    assert other.stat().st_size == before.st_size  # the same size: only the bytes differ
    os.utime(other, ns=(before.st_atime_ns, before.st_mtime_ns))
    os.replace(other, path)
    with pytest.raises(GroundBenchError, match="differs from the card's record"):
        content_key(folder, CONFIG, seals)


def test_a_damaged_or_foreign_record_is_not_trusted(
    folder: Path, tmp_path: Path, settled: None, hashed: list[Path]
) -> None:
    seals = tmp_path / "seals"
    key = content_key(folder, CONFIG, seals)
    first, second = sorted(seals.glob("*.json"), key=lambda r: r.read_text())
    first.write_text("{not json")
    second.write_text(second.read_text().replace('"sha256": "', '"sha256": "0'))  # not a digest any more
    assert content_key(folder, CONFIG, seals) == key and len(hashed) == 4  # both hashed again, and remembered
    assert content_key(folder, CONFIG, seals) == key and len(hashed) == 4


def test_a_file_changing_while_it_is_hashed_is_not_remembered(
    folder: Path, tmp_path: Path, settled: None, monkeypatch: pytest.MonkeyPatch
) -> None:
    seals = tmp_path / "seals"
    real = sealcache.sha256_file

    def hash_then_touch(path: Path) -> str:
        sha = real(path)
        os.utime(path)  # a writer got in after the last byte was read
        return sha

    monkeypatch.setattr(sealcache, "sha256_file", hash_then_touch)
    content_key(folder, CONFIG, seals)
    assert not seals.exists()
