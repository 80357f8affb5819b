"""``load_config``'s first call hashes the data files while ``datasets`` converts them (a thread), under the key
of the card's record, and returns the rows only once every file matches it: a changed file is refused and the
cache built from it removed, and a cache whose check never finished (a killed process) is built again."""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest

from groundbench import loaders
from groundbench.core import sealcache
from groundbench.errors import GroundBenchError
from groundbench.loaders import UNVERIFIED, load_config
from groundbench.loaders.published import content_key, seal_store
from groundbench.schemas.features import FORMAT_VERSION

CONFIG = "curated_x"


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A published folder of one config in two files, the card recording their sha256s and the format."""
    root = tmp_path / "published"
    data = root / "data" / CONFIG
    data.mkdir(parents=True)
    lines = []
    for index in range(2):
        path = data / f"test-0000{index}-of-00002.parquet"
        pq.write_table(pa.table({"example_id": [f"x/{index}/{i:02d}" for i in range(50)]}), path)
        lines.append(f"    data/{CONFIG}/{path.name}: {hashlib.sha256(path.read_bytes()).hexdigest()}")
    files = f"  data_files:\n  - split: test\n    path: data/{CONFIG}/test-*.parquet\n"
    configs = f"configs:\n- config_name: {CONFIG}\n{files}"
    card = f"---\n{configs}groundbench:\n  format_version: {FORMAT_VERSION}\n  data_files_sha256:\n" + "\n".join(lines)
    (root / "README.md").write_text(card + "\n---\n")
    return root


def _caches(cache: Path) -> list[Path]:
    """The prepared ``datasets`` caches of the config under ``cache`` (folders holding its Arrow file)."""
    return sorted({path.parent for path in cache.rglob("*.arrow")})


def test_a_first_load_checks_while_loading_and_keys_the_cache_as_the_check_does(folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    dataset = load_config(CONFIG, folder, cache_dir=cache)
    assert dataset["example_id"] == [f"x/{f}/{i:02d}" for f in range(2) for i in range(50)]
    (built,) = _caches(cache)
    hashed_first = loaders._builder(folder, CONFIG, cache, content_key(folder, CONFIG))  # the key of hashing first
    assert Path(hashed_first.cache_dir) == built
    assert not list(cache.rglob(f"*{UNVERIFIED}"))
    assert load_config(CONFIG, folder, cache_dir=cache)["example_id"] == dataset["example_id"]
    assert _caches(cache) == [built]  # the second call (files remembered or not) answers from that cache


def test_a_changed_file_on_a_first_load_is_refused_and_its_cache_removed(folder: Path, tmp_path: Path) -> None:
    path = sorted((folder / "data" / CONFIG).glob("*.parquet"))[1]
    pq.write_table(pa.table({"example_id": [f"y/{i:02d}" for i in range(50)]}), path)  # rows the card does not seal
    cache = tmp_path / "cache"
    with pytest.raises(GroundBenchError, match=f"{path.name}.*differs from the card's record"):
        load_config(CONFIG, folder, cache_dir=cache)
    assert _caches(cache) == [] and not list(cache.rglob(f"*{UNVERIFIED}"))


def test_a_cache_whose_check_never_finished_is_built_again(folder: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    load_config(CONFIG, folder, cache_dir=cache)
    (built,) = _caches(cache)
    stale = built / "left-by-a-killed-call"
    stale.write_text("")
    built.with_name(built.name + UNVERIFIED).touch()  # what a call killed before its check finished leaves
    for record in seal_store(cache).glob("*.json"):  # and the files not remembered (the check did not finish)
        os.remove(record)
    assert len(load_config(CONFIG, folder, cache_dir=cache)) == 100
    assert _caches(cache) == [built] and not stale.exists()
    assert not built.with_name(built.name + UNVERIFIED).exists()


def test_remembered_files_are_checked_before_loading(
    folder: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sealcache, "SETTLED_NS", 0)  # the files just written count as settled
    cache = tmp_path / "cache"
    load_config(CONFIG, folder, cache_dir=cache)
    assert len(list(seal_store(cache).glob("*.json"))) == 2  # both remembered by the first call's check
    assert len(load_config(CONFIG, folder, cache_dir=cache)) == 100
