"""The whole pipeline on the embedded sample: shards, manifests, store, HF folder, loading, verify."""

from __future__ import annotations

import hashlib
import io
import os
import shutil
from pathlib import Path

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import scipy.io
import yaml
from datasets import Features, load_dataset
from datasets.exceptions import DatasetGenerationError

from groundbench.core.manifests import read_manifest
from groundbench.core.shards import read_table, shard_files
from groundbench.loaders.published import data_files
from groundbench.schemas.features import FORMAT_VERSION, format_version_of
from groundbench.schemas.rules import validate_table
from groundbench.stages.paths import HF_FOLDER, IMAGES, SHARDS
from tests.conftest import build_all, digests, run_cli

CONFIGS = ("bulk_umd", "curated_umd")
OUTPUTS = ("data/shards", "data/manifests", "data/images", "data/groundbench")


@pytest.fixture
def built(project: Path) -> Path:
    build_all(project)
    return project


def test_two_builds_are_byte_identical(built: Path, tmp_path: Path, umd_sample: Path) -> None:
    other = tmp_path / "other"
    shutil.copytree(built, other, ignore=shutil.ignore_patterns("data"))
    (other / "data" / "audits").mkdir(parents=True)
    shutil.copy(built / "data/audits/curated_umd.yaml", other / "data/audits/curated_umd.yaml")
    params = yaml.safe_load((other / "params.yaml").read_text())
    params["umd"]["workers"] = 2  # parallel and serial conversion must agree too
    (other / "params.yaml").write_text(yaml.safe_dump(params))
    build_all(other)
    first, second = digests(built, OUTPUTS), digests(other, OUTPUTS)
    assert len(first) > 40
    assert first == second


def test_sample_counts_and_curation(built: Path) -> None:
    curated = read_table(built / SHARDS / "curated_umd").to_pylist()
    assert [r["object_id"] for r in curated] == ["hammer_01", "knife_01", "mug_01", "spoon_01", "turner_01"]
    for row in curated:
        assert row["target_part_id"] == "grasp" and row["target_action"] == "grasp"
        assert row["extras"]["umd"]["labelling"] == "hand"
        assert len(row["parts"]) >= 2  # a real non-target region on the same object
    bulk = read_table(built / SHARDS / "bulk_umd")
    assert bulk.num_rows == 70
    assert "bowl_01" in set(bulk.column("object_id").to_pylist())
    assert format_version_of(bulk.schema) == FORMAT_VERSION


def test_curated_grasp_points_lie_in_the_source_mask(built: Path, project: Path) -> None:
    source = Path(yaml.safe_load((project / "params.yaml").read_text())["sources"]["umd"])
    for row in read_table(built / SHARDS / "curated_umd").to_pylist():
        label_path = next(p for p in row["provenance"]["source_paths"] if p.endswith("_label.mat"))
        labels = scipy.io.loadmat(io.BytesIO((source / label_path).read_bytes()))["gt_label"]
        x, y = row["parts"][[p["part_id"] for p in row["parts"]].index("grasp")]["point_xy"]
        assert labels[int(y), int(x)] == 1, row["example_id"]


def test_shards_are_sorted_valid_and_match_their_manifests(built: Path) -> None:
    for config in CONFIGS:
        table = read_table(built / SHARDS / config)
        ids = table.column("example_id").to_pylist()
        assert ids == sorted(ids) and len(set(ids)) == len(ids)
        validate_table(table, config)
        manifest = read_manifest(built / "data/manifests" / f"{config}.jsonl")
        assert set(table.column("image_sha256").to_pylist()) == set(manifest)
        for sha, entry in manifest.items():
            stored = built / IMAGES / entry.store_path()
            assert hashlib.sha256(stored.read_bytes()).hexdigest() == sha
            assert (entry.width, entry.height, entry.format) == (640, 480, "JPEG")
            assert entry.source_path.startswith("part-affordance-dataset/tools/")


def test_yaml_features_equal_every_shard_schema(built: Path) -> None:
    card = (built / HF_FOLDER / "README.md").read_text()
    meta = yaml.safe_load(card.split("---")[1])
    infos = {info["config_name"]: info for info in meta["dataset_info"]}
    assert {c["config_name"] for c in meta["configs"]} == {*CONFIGS, "baselines"}
    for config in CONFIGS:
        declared = Features._from_yaml_list(infos[config]["features"])
        files = data_files(built / HF_FOLDER / "data" / config)
        assert files and all(f.suffix == ".parquet" for f in files)
        for path in files:
            schema = pq.read_schema(path)
            assert declared.arrow_schema.equals(schema, check_metadata=False)
            assert Features.from_arrow_schema(schema) == declared  # the Image feature survives in the metadata
        rows = sum(pq.ParquetFile(f).metadata.num_rows for f in files)
        assert infos[config]["splits"][0]["num_examples"] == rows


def test_load_dataset_returns_exactly_the_built_rows(built: Path, tmp_path: Path) -> None:
    for config in CONFIGS:
        loaded = load_dataset(str(built / HF_FOLDER), config, split="test", cache_dir=str(tmp_path / "cache"))
        expected = read_table(built / SHARDS / config)
        assert loaded.num_rows == expected.num_rows
        got = loaded.data.table.drop_columns(["image", "prompts", "license"]).to_pylist()
        assert got == expected.drop_columns(["image"]).to_pylist()
        assert loaded.data.table.column("image").to_pylist() == expected.column("image").to_pylist()
        first = loaded[0]
        assert first["image"].size == (first["width"], first["height"])


def test_literal_load_dataset_call_from_the_data_folder(
    built: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(built / "data")
    dataset = load_dataset("groundbench", "curated_umd", cache_dir=str(tmp_path / "cache"))
    assert dataset["test"].num_rows == 5


def test_verify_passes_on_a_clean_build(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(built, "verify") == 0
    assert "0 mismatches" in capsys.readouterr().err


def _flip_byte(path: Path, offset: int) -> None:
    data = bytearray(path.read_bytes())
    data[offset] ^= 0xFF
    path.write_bytes(bytes(data))


def test_verify_names_a_tampered_store_image(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    image = sorted((built / IMAGES).rglob("*.jpg"))[0]
    _flip_byte(image, 1000)
    assert run_cli(built, "verify") == 1
    assert str(image) in capsys.readouterr().out


def test_verify_names_a_tampered_embedded_image(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    shard = data_files(built / HF_FOLDER / "data" / "curated_umd")[0]
    data = shard.read_bytes()
    sha = read_table(built / SHARDS / "curated_umd").column("image_sha256")[0].as_py()
    image = read_table(built / SHARDS / "curated_umd").column("image")[0]["bytes"].as_py()
    assert hashlib.sha256(image).hexdigest() == sha
    _flip_byte(shard, data.index(image) + 500)
    assert run_cli(built, "verify") == 1
    output = capsys.readouterr().out
    assert str(shard) in output and "umd/curated/hammer_01" in output


def test_verify_names_a_tampered_manifest(built: Path, capsys: pytest.CaptureFixture[str]) -> None:
    manifest = built / "data/manifests/curated_umd.jsonl"
    lines = manifest.read_text().splitlines()
    lines[0] = lines[0].replace('"sha256":"', '"sha256":"0', 1).replace('","source_path"', '","source_path"')
    manifest.write_text("\n".join(lines) + "\n")
    assert run_cli(built, "verify") == 1
    assert "curated_umd" in capsys.readouterr().out


def test_a_truncated_shard_fails_to_load_instead_of_losing_rows(built: Path, tmp_path: Path) -> None:
    shard = data_files(built / HF_FOLDER / "data" / "bulk_umd")[0]
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])
    with pytest.raises(DatasetGenerationError) as caught:
        load_dataset(str(built / HF_FOLDER), "bulk_umd", split="test", cache_dir=str(tmp_path / "cache"))
    assert isinstance(caught.value.__cause__, pa.ArrowInvalid)
    assert "Parquet" in str(caught.value.__cause__)  # a truncated file has no footer: refused, never short


def test_a_null_source_leaves_its_configs_out(project: Path) -> None:
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["sources"]["umd"] = None
    (project / "params.yaml").write_text(yaml.safe_dump(params))
    build_all(project)
    card = (project / HF_FOLDER / "README.md").read_text()
    assert "curated_umd" not in card.split("---")[1]
    assert not shard_files(project / SHARDS / "curated_umd")
    assert not os.listdir(project / IMAGES)


def test_loader_helpers_load_and_filter_excluded_rows(built: Path, tmp_path: Path) -> None:
    from groundbench.loaders import excluded_free, load_config

    dataset = load_config("bulk_umd", built / HF_FOLDER, cache_dir=tmp_path / "cache")
    assert dataset.num_rows == 70
    assert excluded_free(dataset).num_rows == 70 - sum(dataset["excluded"])
