"""Every byte a score or a user reads is sealed and checked (docs/integrity.md): the manifest's row digests
and file sha256s, the card's data file sha256s, SHA256SUMS; `groundbench verify` against all of them, and
the gate refusing predictions made against other boxes."""

from __future__ import annotations

import hashlib
import json
import random
import shutil
import struct
import time
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
import yaml

from groundbench.core.manifests import (
    ROW_COLUMNS,
    read_config_manifest,
    read_manifest,
    read_sha256sums,
    row_digest,
    row_digests,
)
from groundbench.core.shards import open_shard, read_table, shard_files
from groundbench.errors import GroundBenchError
from groundbench.loaders.published import data_files, iter_batches
from groundbench.schemas.features import FEATURES
from groundbench.scoring.gate import folder_gate
from groundbench.stages.paths import HF_FOLDER, MANIFESTS, SHARDS
from groundbench.tools.verify import verify
from tests.conftest import build_all, run_cli
from tests.support.builds import copy_tree
from tests.support.tampering import move_interim_box, rewrite_parquet

CONFIG = "curated_umd"
FLIPS_PER_KIND = 40  # seeded offsets per artifact kind, besides its first and last byte
SEED = 20261202


@pytest.fixture
def built(project: Path) -> Path:
    build_all(project)
    return project


def _flip(path: Path, offset: int, mask: int = 0xFF) -> bytes:
    """Flip bits of one byte in place; returns the file's bytes before."""
    before = path.read_bytes()
    data = bytearray(before)
    data[offset] ^= mask
    path.write_bytes(bytes(data))
    return before


def test_the_row_digest_is_the_documented_canonical_json() -> None:
    fields = {"example_id": "x/1", "parts": [{"point_xy": [1.5, 2.0], "part_id": "é"}], "image": {"path": None}}
    text = '{"example_id":"x/1","image":{"path":null},"parts":[{"part_id":"é","point_xy":[1.5,2.0]}]}'
    assert row_digest(fields) == hashlib.sha256(text.encode("utf-8")).hexdigest()
    assert set(ROW_COLUMNS) == set(FEATURES) - {"image"}


def test_shard_and_parquet_rows_have_the_digests_the_manifest_records(built: Path) -> None:
    for config in ("curated_umd", "bulk_umd"):
        manifest = read_config_manifest(built / MANIFESTS / f"{config}.jsonl")
        assert set(manifest.images) == set(read_manifest(built / MANIFESTS / f"{config}.jsonl"))
        shard_rows = {}
        for shard in shard_files(built / SHARDS / config):
            reader = open_shard(shard)
            for index in range(reader.num_record_batches):
                batch = reader.get_batch(index)
                shard_rows.update(zip(batch.column("example_id").to_pylist(), row_digests(batch), strict=True))
        parquet_rows = {}
        for batch in iter_batches(built / HF_FOLDER / "data" / config):  # with the published prompts/license
            parquet_rows.update(zip(batch.column("example_id").to_pylist(), row_digests(batch), strict=True))
        assert shard_rows == parquet_rows == manifest.rows
        assert (
            list(manifest.rows) == sorted(manifest.rows)
            and len(manifest.rows) == read_table(built / SHARDS / config).num_rows
        )
        assert [(s.name, s.bytes) for s in manifest.shards] == [
            (p.name, p.stat().st_size) for p in shard_files(built / SHARDS / config)
        ]
    report = verify(built / "data", rows=True)  # every file read row by row: nothing differs
    assert report.mismatches == [] and report.checked_images == 150


def test_the_folder_records_every_file_and_the_card_every_data_file(built: Path) -> None:
    folder = built / HF_FOLDER
    sums = read_sha256sums(folder / "SHA256SUMS")
    files = {p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()} - {"SHA256SUMS"}
    assert set(sums) == files and "README.md" in sums and "croissant.json" in sums
    for name, sha in sums.items():
        assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == sha, name
    card = (folder / "README.md").read_text()
    key = yaml.safe_load(card.split("---")[1])["groundbench"]
    parquet = {name: sha for name, sha in sums.items() if name.endswith(".parquet")}
    assert key["data_files_sha256"] == parquet and len(parquet) == 3  # curated_umd, bulk_umd, baselines
    manifest = built / MANIFESTS / f"{CONFIG}.jsonl"
    assert key["configs"][CONFIG]["manifest_sha256"] == hashlib.sha256(manifest.read_bytes()).hexdigest()


def _artifacts(data: Path) -> dict[str, tuple[Path, range]]:
    """Each kind of artifact a user or a score reads -> (one file of that kind, the offsets to flip)."""
    first = sorted(read_manifest(data / "manifests" / f"{CONFIG}.jsonl").items())[0][1]
    image = data / "images" / first.store_path()
    card = data / "groundbench" / "README.md"
    front = card.read_bytes().index(b"\n---\n", 3) + 5  # the YAML front matter with its closing line
    files = {
        "image store file": image,
        "Arrow shard": shard_files(data / "shards" / CONFIG)[0],
        "Parquet file": data_files(data / "groundbench" / "data" / CONFIG)[0],
        "manifest": data / "manifests" / f"{CONFIG}.jsonl",
        "card YAML": card,
        "SHA256SUMS": data / "groundbench" / "SHA256SUMS",
        "Croissant file": data / "groundbench" / "croissant.json",
    }
    return {
        kind: (path, range(front) if kind == "card YAML" else range(path.stat().st_size))
        for kind, path in files.items()
    }


def test_a_single_byte_flip_anywhere_in_any_artifact_is_caught(built: Path) -> None:
    """Every file a user or a score reads is sealed by a sha256 recorded elsewhere (docs/integrity.md), so
    every flipped byte is caught, the bytes that are not row content (Arrow/Parquet metadata, padding,
    JSON punctuation, YAML) included: no flip is harmless enough to let pass. 7 kinds x 42 offsets, each
    followed by a whole verify, ran in 22-24 s (2 shared cores)."""
    data = built / "data"
    assert verify(data, workers=1).mismatches == []
    rng = random.Random(SEED)
    started, flips = time.monotonic(), 0
    for kind, (path, offsets) in _artifacts(data).items():
        chosen = sorted({offsets[0], offsets[-1], *rng.sample(offsets, FLIPS_PER_KIND)})
        for offset in chosen:
            before = _flip(path, offset, rng.randrange(1, 256))
            report = verify(data, workers=1)
            named = [line for line in report.mismatches if str(path) in line]
            assert named, f"{kind} {path.name} byte {offset}: not caught ({report.mismatches})"
            path.write_bytes(before)
            flips += 1
    assert flips >= 7 * FLIPS_PER_KIND
    assert verify(data, workers=1).mismatches == []
    assert time.monotonic() - started < 60


def _row_box(table: pa.Table, row: int) -> list[float]:
    record = table.slice(row, 1).to_pylist()[0]
    return next(p for p in record["parts"] if p["part_id"] == record["target_part_id"])["bbox_xyxy"]


def test_verify_names_the_row_whose_box_changed_in_a_shard(built: Path) -> None:
    shard = shard_files(built / SHARDS / CONFIG)[0]
    table = open_shard(shard).read_all()
    example_id = table.column("example_id")[2].as_py()
    packed = struct.pack("<4d", *_row_box(table, 2))
    _flip(shard, shard.read_bytes().index(packed) + 7, 0x01)  # the sign-and-exponent byte of x0: another box
    report = verify(built / "data", [CONFIG])
    assert (
        f"{shard}: sha256 differs from the one recorded in {built / MANIFESTS / f'{CONFIG}.jsonl'}" in report.mismatches
    )
    assert (
        f"{shard}: {example_id}: row fields differ from its row_sha256 in {built / MANIFESTS / f'{CONFIG}.jsonl'}"
        in (report.mismatches)
    )


def test_verify_names_the_changed_missing_and_unlisted_rows_of_a_parquet_file(built: Path) -> None:
    path = data_files(built / HF_FOLDER / "data" / CONFIG)[0]
    ids = [row["example_id"] for row in pq.read_table(path, columns=["example_id"]).to_pylist()]

    def change(rows: list[dict[str, Any]]) -> None:
        rows[0]["parts"][0]["bbox_xyxy"][0] += 1.0
        rows[1]["example_id"] = "umd/curated/renamed"
        rows[2] = dict(rows[3])  # row 2 gone, row 3 twice

    rewrite_parquet(path, change)
    manifest = built / MANIFESTS / f"{CONFIG}.jsonl"
    lines = verify(built / "data", [CONFIG]).mismatches
    assert any(line.startswith(f"{path}: sha256 differs") for line in lines)
    assert f"{path}: {ids[0]}: row fields differ from its row_sha256 in {manifest}" in lines
    assert f"{path}: umd/curated/renamed: row not listed in {manifest}" in lines
    assert f"{manifest}: {ids[1]}: listed, but in none of the config's Parquet files" in lines
    assert f"{manifest}: {ids[2]}: listed, but in none of the config's Parquet files" in lines
    assert f"{manifest}: {ids[3]}: in the config's Parquet files 2 times" in lines


def test_a_deleted_config_folder_a_missing_card_file_and_an_unlisted_file_are_errors(
    built: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = built / HF_FOLDER
    shutil.rmtree(folder / "data" / "bulk_umd")
    (folder / "assets" / "notes.txt").write_text("not built\n")
    assert run_cli(built, "verify") == 1
    out = capsys.readouterr().out
    assert f"{folder / 'data' / 'bulk_umd'}: missing: the card lists config bulk_umd" in out
    assert f"{folder / 'data/bulk_umd/test-00000-of-00001.parquet'}: missing" in out
    assert f"{folder / 'assets/notes.txt'}: not listed in {folder / 'SHA256SUMS'}" in out
    # Another config alone still verifies (what `groundbench pull curated_umd` brings, with the card).
    (folder / "assets" / "notes.txt").unlink()
    assert run_cli(built, "verify", CONFIG) == 0
    (folder / "SHA256SUMS").unlink()
    assert run_cli(built, "verify", CONFIG) == 1
    assert f"{folder / 'SHA256SUMS'}: missing" in capsys.readouterr().out


def test_zero_configs_or_no_project_is_an_error_not_ok(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run_cli(tmp_path, "verify") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no GroundBench build here" in err and "Traceback" not in err
    (tmp_path / "data" / "shards").mkdir(parents=True)
    assert run_cli(tmp_path, "verify") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nothing to verify" in err
    with pytest.raises(GroundBenchError, match="neither built"):
        verify(tmp_path / "data", ["curated_umd"])


def test_predictions_gated_against_a_build_whose_boxes_differ_are_refused(
    built: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    other = copy_tree(built, tmp_path / "other")
    move_interim_box(other)
    for command in (("bake", CONFIG), ("store",), ("assemble",), ("verify",)):
        assert run_cli(other, *command) == 0, command
    ours, theirs = folder_gate(built / HF_FOLDER), folder_gate(other / HF_FOLDER)
    # Same images, same image lines: the old gate (the image manifest's hash) could not tell them apart.
    assert read_manifest(built / MANIFESTS / f"{CONFIG}.jsonl") == read_manifest(other / MANIFESTS / f"{CONFIG}.jsonl")
    assert ours.manifest_sha256[CONFIG] != theirs.manifest_sha256[CONFIG]
    requests = tmp_path / "requests.jsonl"
    assert run_cli(other, "requests", CONFIG, "--condition", "part_named", "--out", str(requests)) == 0
    keep = ("example_id", "condition", "dataset_version", "manifest_sha256", "template_sha256")
    lines = [
        {**{k: json.loads(r)[k] for k in keep}, "model": "m", "parsed": {"action": "grasp"}}
        for r in requests.read_text().splitlines()
    ]
    predictions = tmp_path / "predictions.jsonl"
    predictions.write_text("".join(json.dumps(line) + "\n" for line in lines))
    capsys.readouterr()
    assert run_cli(built, "score", str(predictions)) == 2  # scored against our boxes: refused
    err = capsys.readouterr().err
    assert "manifest_sha256" in err and theirs.manifest_sha256[CONFIG] in err and "Traceback" not in err
    assert run_cli(other, "score", str(predictions)) == 0  # against the boxes they were made for: scored
