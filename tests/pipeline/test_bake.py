"""``groundbench bake``: parallel checking gives the serial bytes; baked interim files are linked, not copied;
every image check still names the row."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pyarrow as pa
import pytest
import yaml

from groundbench.core.shards import ShardWriter, iter_batches, shard_files
from groundbench.errors import GroundBenchError
from groundbench.stages.bake import bake_config
from tests.conftest import digests, run_cli

ROWS_PER_BATCH = 8  # the 70 bulk rows of the sample in 9 batches, so the batches really go to workers


@pytest.fixture(scope="module")
def converted(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """The UMD sample converted once (small batches); tests copy what they change."""
    root = tmp_path_factory.mktemp("bake") / "project"
    (root / "data" / "audits").mkdir(parents=True)
    shutil.copy(
        Path(__file__).resolve().parents[2] / "data/audits/curated_umd.yaml", root / "data/audits/curated_umd.yaml"
    )
    params = yaml.safe_load((Path(__file__).resolve().parents[2] / "params.yaml").read_text())
    params["sources"]["umd"] = str(umd_sample)
    params["umd"]["workers"] = 1
    params["shards"]["rows_per_batch"] = ROWS_PER_BATCH
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    assert run_cli(root, "convert", "umd", "--quiet") == 0
    return root / "data/interim/umd/bulk_umd"


def _bake(interim: Path, out: Path, workers: int) -> None:
    bake_config("bulk_umd", interim, out / "shards", out / "manifest.jsonl", 2**28, ROWS_PER_BATCH, workers)


def _unbaked_copy(interim: Path, target: Path) -> Path:
    """The interim config as a converter without baked baselines writes it (baselines null)."""
    target.mkdir(parents=True)
    shutil.copy(interim / "manifest.jsonl", target / "manifest.jsonl")
    with ShardWriter(target / "rows", 2**28, ROWS_PER_BATCH) as writer:
        for batch in iter_batches(interim):
            index = batch.schema.get_field_index("baselines")
            nulls = pa.nulls(batch.num_rows, batch.schema.field("baselines").type)
            writer.add_batch(batch.set_column(index, batch.schema.field("baselines"), nulls))
    for path in shard_files(target / "rows"):
        path.rename(target / path.name)
    shutil.rmtree(target / "rows")
    return target


def test_parallel_bake_gives_the_serial_bytes_and_links_a_baked_interim(converted: Path, tmp_path: Path) -> None:
    assert len(list(iter_batches(converted))) == 9
    _bake(converted, tmp_path / "serial", 1)
    _bake(converted, tmp_path / "parallel", 2)
    assert digests(tmp_path, ("serial",)) == {
        path.replace("parallel/", "serial/", 1): sha for path, sha in digests(tmp_path, ("parallel",)).items()
    }
    # The converter baked the baselines already: the shards are the interim files, linked (one copy).
    for shard in shard_files(tmp_path / "parallel" / "shards"):
        assert shard.stat().st_ino == (converted / shard.name).stat().st_ino


def test_an_unbaked_interim_is_written_baked_with_the_same_bytes(converted: Path, tmp_path: Path) -> None:
    unbaked = _unbaked_copy(converted, tmp_path / "unbaked")
    assert [f.read_bytes() for f in shard_files(unbaked)] != [f.read_bytes() for f in shard_files(converted)]
    _bake(unbaked, tmp_path / "written", 2)
    _bake(converted, tmp_path / "linked", 1)
    written, linked = shard_files(tmp_path / "written/shards"), shard_files(tmp_path / "linked/shards")
    assert [f.read_bytes() for f in written] == [f.read_bytes() for f in linked]
    assert all(f.stat().st_nlink == 1 for f in written)  # not linked: the bytes differed


def _tamper_manifest(interim: Path, change) -> None:  # noqa: ANN001
    lines = [json.loads(line) for line in (interim / "manifest.jsonl").read_text().splitlines()]
    (interim / "manifest.jsonl").write_text("".join(json.dumps(e) + "\n" for e in change(lines)))


@pytest.mark.parametrize("workers", [1, 2])
def test_image_checks_name_the_row(converted: Path, tmp_path: Path, workers: int) -> None:
    interim = tmp_path / "interim"
    shutil.copytree(converted, interim)
    first = next(iter_batches(interim))
    example_id, sha = first.column("example_id")[0].as_py(), first.column("image_sha256")[0].as_py()
    _tamper_manifest(interim, lambda lines: [e for e in lines if e["sha256"] != sha])
    with pytest.raises(GroundBenchError, match=f"{example_id}: image {sha} is not in the manifest"):
        _bake(interim, tmp_path / "a", workers)
    shutil.copy(converted / "manifest.jsonl", interim / "manifest.jsonl")
    _tamper_manifest(interim, lambda lines: [*lines, {**lines[0], "sha256": "0" * 64}])
    with pytest.raises(GroundBenchError, match="1 listed image.s. used by no row"):
        _bake(interim, tmp_path / "b", workers)
    shutil.copy(converted / "manifest.jsonl", interim / "manifest.jsonl")
    # Flip one byte in every copy of the first row's image.
    shard = shard_files(interim)[0]
    victim, image = first.column("example_id")[0].as_py(), first.column("image")[0]["bytes"].as_py()
    broken = bytearray(image)
    broken[len(image) // 2] ^= 0xFF
    data = shard.read_bytes()
    assert data.count(image) >= 1
    shard.unlink()
    shard.write_bytes(data.replace(image, bytes(broken)))
    with pytest.raises(GroundBenchError, match=f"{victim}: bytes do not hash to image_sha256"):
        _bake(interim, tmp_path / "c", workers)
    assert not (tmp_path / "c" / "shards").exists()  # nothing partial on disk


def test_an_absent_configs_manifest_holds_its_reason_not_nothing(tmp_path: Path) -> None:
    """A config whose source is off gets a manifest all the same (a DVC output): one line saying why, which DVC
    does not warn about as it does about an empty file, and which reads as a manifest of nothing."""
    from groundbench.core.manifests import read_config_manifest

    interim = tmp_path / "interim" / "gui_pro"
    interim.mkdir(parents=True)
    (interim / "ABSENT").write_text("gui_pro: no pointerbench-pro/ folder in the source\n")
    manifest = tmp_path / "manifests" / "gui_pro.jsonl"
    result = bake_config("gui_pro", interim, tmp_path / "shards" / "gui_pro", manifest, 1 << 20, 64, workers=1)
    assert result.absent
    assert manifest.read_text() == '{"absent":"gui_pro: no pointerbench-pro/ folder in the source"}\n'
    read = read_config_manifest(manifest)
    assert read.absent == "gui_pro: no pointerbench-pro/ folder in the source"
    assert (read.images, read.shards, read.rows) == ({}, (), {})
