"""The published folder as people outside the repository receive it: Parquet read by DuckDB and
``load_dataset``, prompts in the rows, honest provenance for a real and for an empty source, and
the tools (requests, score, preview, sheet, load_config) working from a copy with no build tree."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pyarrow as pa
import pyarrow.ipc
import pyarrow.parquet as pq
import pytest
import yaml
from datasets import load_dataset
from huggingface_hub import DatasetCard

from groundbench.errors import GroundBenchError
from groundbench.loaders.prompts import TEMPLATE_VERSION, build_prompt, template_hash
from groundbench.loaders.published import check_version_compatibility, data_files, read_config
from groundbench.schemas.features import FORMAT_VERSION
from tests.conftest import REPO, run_cli
from tests.converters.gui.test_gui_real import trimmed_pointerbench

ROWS_PER_SUBSET = 12  # of the real PointerBench metadata fixture: enough for every record kind, quick to build
FOLDER = Path("data/groundbench")


SINGLE_PART_OBJECTS = ("900004", "900005")  # GAPartNet sample objects with one part each: no re-ask exists


def _single_part_gapartnet(root: Path, full: Path) -> tuple[Path, Path]:
    """The GAPartNet sample (``full``, read only) cut to its single-part objects, with an audit file of just those."""
    source = root / "gapartnet"
    for obj in SINGLE_PART_OBJECTS:
        shutil.copytree(full / "assets" / obj, source / "assets" / obj)
    (source / "assets/meta").mkdir()
    ids = (full / "assets/meta/partnet_all_id_list.txt").read_text().splitlines()
    (source / "assets/meta/partnet_all_id_list.txt").write_text(
        "".join(f"{line}\n" for line in ids if line.split()[-1] in SINGLE_PART_OBJECTS)
    )
    for path in (full / "renders").rglob("*"):
        if path.is_file() and any(f"_{obj}_" in path.name for obj in SINGLE_PART_OBJECTS):
            (source / "renders" / path.parent.name).mkdir(parents=True, exist_ok=True)
            shutil.copy(path, source / "renders" / path.parent.name / path.name)
    audit = yaml.safe_load((REPO / "data/audits/curated_gapartnet.yaml").read_text())
    audit["objects"] = [o for o in audit["objects"] if o["object"] in SINGLE_PART_OBJECTS]
    audit_path = root / "data/audits/curated_gapartnet.yaml"
    audit_path.parent.mkdir(parents=True, exist_ok=True)
    audit_path.write_text(yaml.safe_dump(audit, sort_keys=False))
    return source / "assets", source / "renders"


@pytest.fixture(scope="module")
def real_gui(tmp_path_factory: pytest.TempPathFactory, gapartnet_rendered: Path) -> Path:
    """A build from the real PointerBench metadata fixture (blank screenshots, a few rows per subset) and a
    GAPartNet source whose objects have one part each, so both re-ask configs have no rows."""
    root = tmp_path_factory.mktemp("real_gui") / "project"
    root.mkdir()
    source = root.parent / "pointerbench"
    trimmed_pointerbench(source, ROWS_PER_SUBSET)
    assets, renders = _single_part_gapartnet(root, gapartnet_rendered)
    shutil.copy(REPO / "requirements.lock", root / "requirements.lock")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = None
    params["sources"]["gapartnet"] = {"assets": str(assets), "renders": str(renders)}
    params["sources"]["gui"] = {
        "pointerbench": str(source),
        "screenspot": None,
        "screenspot_v2": None,
        "screenspot_pro": None,
    }
    params["gapartnet"]["workers"] = 1
    # single-part objects give no contrast pair: this source's reviewed pool is empty
    (root / "data/audits/contrast_pool.yaml").write_text("pairs: []\n")
    params["contrast"]["pool"] = "data/audits/contrast_pool.yaml"
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    for name in ("umd", "gapartnet", "pointerbench", "screenspot", "screenspot_v2", "screenspot_pro"):
        assert run_cli(root, "convert", name, "--quiet") == 0
    for construction in ("counterfactual", "contrast"):
        assert run_cli(root, "derive", construction, "--quiet") == 0
    from groundbench.core.registry import CONFIGS

    assert run_cli(root, "bake", *[c.name for c in CONFIGS]) == 0
    for stage in ("store", "assemble"):
        assert run_cli(root, stage) == 0
    return root


def test_the_empty_config_is_absent_with_its_reason_and_the_rest_loads(real_gui: Path, tmp_path: Path) -> None:
    folder = real_gui / FOLDER
    empty = ("contrast_gapartnet", "counterfactual_gapartnet")
    for config in empty:
        shards = sorted((real_gui / "data/shards" / config).glob("*.arrow"))
        assert shards and sum(pa.ipc.open_file(str(s)).read_all().num_rows for s in shards) == 0  # baked empty
        assert not (folder / "data" / config).exists()
    card = DatasetCard.load(folder / "README.md")
    names = [c["config_name"] for c in card.data.to_dict()["configs"]]
    assert sorted(names) == ["baselines", "bulk_gapartnet", "curated_gapartnet", "gui_pro", "gui_sheets", "gui_text"]
    assert set(card.data.to_dict()["groundbench"]["configs"]) == set(names) - {"baselines"}
    absent = card.text.split("| why it is not in this build |")[1].split("\n\n")[0]
    for config in empty:
        assert f"| `{config}` | built with 0 rows: its sources give no row for this config |" in absent
        with pytest.raises(GroundBenchError, match=f"config '{config}' is not in this build \\(its card"):
            read_config(folder, config)
    for config in names:
        loaded = load_dataset(str(folder), config, split="test", cache_dir=str(tmp_path / "cache"))
        assert loaded.num_rows == read_config(folder, config).num_rows > 0
    assert run_cli(real_gui, "check-card") == 0


def test_a_real_pointerbench_build_cites_pointerbench_and_applies_its_licence(real_gui: Path) -> None:
    folder = real_gui / FOLDER
    text = (folder / "README.md").read_text()
    body = text.split("\n---\n", 1)[1]
    assert "SYNTHETIC" not in text
    assert "@misc{sacco2026pointerbench," in body and "@misc{groundbench," in body
    licences = body.split("## Licences")[1].split("## Provenance")[0]
    assert (
        "| PointerBench (Sheets, Text, Pro) | `gui_pro`, `gui_sheets`, `gui_text` | images and annotations CC BY 4.0"
        in licences
    )
    assert "GroundBench embedded samples" not in licences and "generated GUI suites" not in licences
    rows = read_config(folder, "gui_text", ["license", "source"]).to_pylist()
    assert {r["license"] for r in rows} == {
        "PointerBench (Sheets, Text, Pro): images and annotations CC BY 4.0 (attribution required); "
        "evaluation scripts MIT"
    }
    meta = DatasetCard.load(folder / "README.md").data.to_dict()
    assert meta["groundbench"]["synthetic_configs"] == []
    assert "extended|WarmwindOS/pointerbench" in meta["source_datasets"] and "original" not in meta["source_datasets"]
    assert {"en", "de"} <= set(meta["language"])


def test_duckdb_reads_a_published_file_directly(real_gui: Path) -> None:
    import duckdb

    path = data_files(real_gui / FOLDER / "data/gui_text")[0]
    expected = pq.read_table(path, columns=["example_id", "answer_type"]).to_pylist()
    got = duckdb.sql(
        f"SELECT example_id, answer_type, octet_length(image.bytes) AS n, len(prompts) AS p FROM '{path}' "
        "ORDER BY example_id"
    ).fetchall()
    assert [(r[0], r[1]) for r in got] == [(r["example_id"], r["answer_type"]) for r in expected]
    assert all(n > 0 for _, _, n, _ in got) and all(p == 1 for *_, p in got)  # a GUI row has one prompt


def test_each_row_carries_the_prompt_of_every_valid_condition(real_gui: Path, built_umd: Path) -> None:
    for folder, config in ((real_gui / FOLDER, "gui_sheets"), (built_umd / FOLDER, "curated_umd")):
        rows = read_config(
            folder, config, [n for n in pq.read_schema(data_files(folder / "data" / config)[0]).names if n != "image"]
        )
        for row in rows.to_pylist():
            conditions = [p["condition"] for p in row["prompts"]]
            expected = ["gui"] if row["stratum"] == "suite" else [*row["conditions"], "part_named_free_form"]
            assert sorted(conditions) == sorted(expected)
            for prompt in row["prompts"]:
                assert prompt["text"] == build_prompt(row, prompt["condition"])
                assert prompt["template_version"] == TEMPLATE_VERSION
                assert prompt["template_sha256"] == template_hash(prompt["condition"])


@pytest.fixture(scope="module")
def built_umd(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """The UMD sample read as `sample` in params.yaml: a synthetic build."""
    from tests.conftest import build_all, sample_umd_project

    root = sample_umd_project(tmp_path_factory.mktemp("sample_umd") / "project", umd_sample)
    build_all(root)
    return root


def test_a_sample_build_says_synthetic_first_and_cites_nothing_it_did_not_read(
    built_umd: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    text = (built_umd / FOLDER / "README.md").read_text()
    body = text.split("\n---\n", 1)[1].lstrip()
    assert body.startswith("> **⚠️ SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK.")
    citations = body.split("## Citation")[1]
    assert citations.count("@") == 1 and "@misc{groundbench," in citations  # nothing but GroundBench itself
    assert "myers2015affordance" not in body
    licences = body.split("## Licences")[1].split("## Provenance")[0]
    assert "UMD" not in licences and "GroundBench embedded samples" in licences
    rows = read_config(built_umd / FOLDER, "bulk_umd", ["license"]).to_pylist()
    assert {r["license"].split(":")[0] for r in rows} == {
        "GroundBench embedded samples (synthetic objects and photos-like frames made by GroundBench's code)"
    }
    capsys.readouterr()
    assert run_cli(built_umd, "summary") == 0
    printed = capsys.readouterr()  # the notice: one line on stderr, as every command prints it (scoring/notice.py)
    assert printed.err.startswith("⚠ SYNTHETIC SAMPLE BUILD, NOT THE BENCHMARK") and "SYNTHETIC" not in printed.out
    croissant = json.loads((built_umd / FOLDER / "croissant.json").read_text())
    assert croissant["description"].startswith("SYNTHETIC SAMPLE BUILD")


def test_publish_refuses_a_sample_build_unless_told(built_umd: Path, tmp_path: Path) -> None:
    from tests.support.hubstub import HubStub
    from tests.tools.test_publish import _publish

    with HubStub() as hub:
        refused = _publish(built_umd, hub.endpoint, tmp_path, "--repo-id", "org/groundbench", "--dry-run")
        allowed = _publish(
            built_umd, hub.endpoint, tmp_path, "--repo-id", "org/groundbench", "--dry-run", "--allow-synthetic"
        )
    assert refused.returncode == 1 and "REFUSED groundbench.synthetic_configs: bulk_umd, curated_umd" in refused.stdout
    assert allowed.returncode == 0, allowed.stderr
    assert "data/curated_umd/test-00000-of-00001.parquet" in allowed.stdout


def test_requests_and_score_run_from_a_copy_of_the_published_folder_alone(built_umd: Path, tmp_path: Path) -> None:
    """A directory with no params.yaml, no data/shards, no manifests, no image store: only the folder."""
    copy = tmp_path / "elsewhere" / "groundbench"
    shutil.copytree(built_umd / FOLDER, copy)
    requests = tmp_path / "req.jsonl"
    images = tmp_path / "img"
    command = [sys.executable, "-m", "groundbench.cli", "--root", str(tmp_path / "elsewhere")]
    result = subprocess.run(
        [
            *command,
            "requests",
            "curated_umd",
            "--condition",
            "part_named",
            "--data",
            str(copy),
            "--out",
            str(requests),
            "--images",
            str(images),
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in requests.read_text().splitlines()]
    rows = {r["example_id"]: r for r in read_config(copy, "curated_umd").to_pylist()}
    assert len(lines) == len(rows) == 5
    for line in lines:
        row = rows[line["example_id"]]
        assert Path(line["image"]["path"]).read_bytes() == row["image"]["bytes"]
        assert line["prompt"] == next(p["text"] for p in row["prompts"] if p["condition"] == "part_named")
    # an oracle answer for every request, scored from the copy
    predictions = tmp_path / "pred.jsonl"
    with predictions.open("w") as handle:
        for line in lines:
            row = rows[line["example_id"]]
            target = next(p for p in row["parts"] if p["part_id"] == row["target_part_id"])
            answer = {"part": target["part_id"], "action": target["action"], "point": target["point_xy"]}
            handle.write(
                json.dumps(
                    {"example_id": line["example_id"], "condition": "part_named", "model": "oracle", "parsed": answer}
                )
                + "\n"
            )
    scored = subprocess.run(
        [
            *command,
            "score",
            str(predictions),
            "--data",
            str(copy),
            "--json",
            str(tmp_path / "s.json"),
            "--resamples",
            "50",
        ],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        check=False,
    )
    assert scored.returncode == 0, scored.stderr
    assert "scored 5 predictions" in scored.stderr
    assert not (tmp_path / "elsewhere" / "data").exists() and not (tmp_path / "elsewhere" / "params.yaml").exists()


def test_preview_and_sheet_read_the_published_folder(built_umd: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(built_umd / FOLDER, copy)
    assert (
        run_cli(tmp_path, "preview", "curated_umd", "--data", str(copy), "--out", str(tmp_path / "p"), "--quiet") == 0
    )
    assert len(list((tmp_path / "p").glob("*.png"))) == 5
    assert run_cli(tmp_path, "sheet", "curated_umd", "--data", str(copy), "--out", str(tmp_path / "s"), "--quiet") == 0
    assert list((tmp_path / "s" / "curated_umd").glob("page-*.png"))


def test_load_config_checks_the_format_version(
    built_umd: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from groundbench.loaders import load_config

    copy = tmp_path / "copy"
    shutil.copytree(built_umd / FOLDER, copy)
    monkeypatch.setenv("GROUNDBENCH_DATA", str(copy))
    monkeypatch.chdir(tmp_path)  # nothing found through the working directory
    assert load_config("curated_umd", cache_dir=tmp_path / "cache").num_rows == 5
    card = copy / "README.md"
    major = int(FORMAT_VERSION.split(".")[0]) + 1
    card.write_text(card.read_text().replace(f"format_version: {FORMAT_VERSION}", f"format_version: {major}.0.0", 1))
    with pytest.raises(GroundBenchError, match=f"the data has format {major}.0.0, this groundbench package reads"):
        load_config("curated_umd", cache_dir=tmp_path / "cache")


@pytest.mark.parametrize(
    ("data", "ok"), [("1.2.0", True), ("1.1.0", True), ("0.9.0", False), ("1.9.0", False), ("2.0.0", False)]
)
def test_version_compatibility_rule(data: str, ok: bool) -> None:
    """A package reading format 1.2.0: same or older minor reads, another major or a newer minor stops."""
    if ok:
        check_version_compatibility("folder", data, "1.2.0")
        return
    with pytest.raises(GroundBenchError, match="format_version"):
        check_version_compatibility("folder", data, "1.2.0")


def test_pull_without_a_remote_says_so_in_one_line(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    root.mkdir()
    subprocess.run(["git", "init", "-q"], cwd=root, check=True)
    subprocess.run([sys.executable, "-m", "dvc", "init", "-q"], cwd=root, check=True)
    result = subprocess.run(
        [sys.executable, "-m", "groundbench.cli", "--root", str(root), "pull", "curated_umd"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [result.stderr.strip()]  # one line, no traceback
    assert "no DVC remote is configured" in result.stderr


def test_requests_and_score_take_a_hub_repo_id(built_umd: Path, tmp_path: Path) -> None:
    """Published to the loopback Hub, then read back by repo id from a directory with nothing else in it."""
    import os

    from tests.support.hubstub import HubStub
    from tests.tools.test_publish import _publish

    empty = tmp_path / "empty"
    empty.mkdir()
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "HUGGING"))}
    with HubStub(max_requests=400) as hub:
        published = _publish(built_umd, hub.endpoint, tmp_path / "home", "--repo-id", "org/gb", "--allow-synthetic")
        assert published.returncode == 0, published.stderr
        env.update(
            HF_ENDPOINT=hub.endpoint,
            HF_HUB_OFFLINE="0",
            HF_HUB_DISABLE_XET="1",
            HF_HUB_DISABLE_TELEMETRY="1",
            HF_HOME=str(tmp_path / "reader"),
            NO_PROXY="127.0.0.1",
        )
        command = [sys.executable, "-m", "groundbench.cli", "--root", str(empty)]
        out = tmp_path / "req.jsonl"
        result = subprocess.run(
            [*command, "requests", "curated_umd", "--condition", "object_named", "--data", "org/gb", "--out", str(out)],
            cwd=empty,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr
        sanity = subprocess.run(
            [*command, "score", "--sanity", "curated_umd", "--data", "org/gb"],
            cwd=empty,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert sanity.returncode == 0, sanity.stderr + sanity.stdout
    rows = read_config(built_umd / FOLDER, "curated_umd", ["example_id", "prompts"]).to_pylist()
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["example_id"] for line in lines] == [r["example_id"] for r in rows]
    for line, row in zip(lines, rows, strict=True):
        assert line["prompt"] == next(p["text"] for p in row["prompts"] if p["condition"] == "object_named")
    assert list(empty.iterdir()) == []  # nothing was built or written beside the command


def test_data_files_are_cut_by_size_in_order_and_byte_identical(built_umd: Path, tmp_path: Path) -> None:
    from groundbench.loaders.published import write_config

    source = data_files(built_umd / FOLDER / "data/bulk_umd")[0]
    table = pq.read_table(source)
    schema = pq.read_schema(source)
    limit = table.nbytes // 3
    for name in ("a", "b"):
        write_config(tmp_path / name / "data/bulk_umd", table.to_batches(max_chunksize=7), schema, 10, limit)
    files = data_files(tmp_path / "a/data/bulk_umd")
    total = len(files)
    assert total >= 3 and [f.name for f in files] == [f"test-{i:05d}-of-{total:05d}.parquet" for i in range(total)]
    assert all(pq.ParquetFile(f).metadata.row_group(0).num_rows == 10 for f in files)
    assert pa.concat_tables([pq.read_table(f) for f in files]).equals(table)
    assert [f.read_bytes() for f in files] == [f.read_bytes() for f in data_files(tmp_path / "b/data/bulk_umd")]
    folder = tmp_path / "folder"  # the published folder with this config's files cut small
    shutil.copytree(built_umd / FOLDER, folder)
    shutil.rmtree(folder / "data/bulk_umd")
    shutil.copytree(tmp_path / "a/data/bulk_umd", folder / "data/bulk_umd")
    loaded = load_dataset(str(folder), "bulk_umd", split="test", cache_dir=str(tmp_path / "cache"))
    assert loaded["example_id"] == table.column("example_id").to_pylist()


def test_load_config_streams_as_load_dataset_does(built_umd: Path, tmp_path: Path) -> None:
    """``streaming=True`` is passed through: the rows of an IterableDataset, the same rows as loading the split."""
    from datasets import IterableDataset

    from groundbench.loaders import excluded_free, load_config

    folder = built_umd / FOLDER
    streamed = load_config("curated_umd", folder, cache_dir=tmp_path / "cache", streaming=True)
    assert isinstance(streamed, IterableDataset)
    loaded = load_config("curated_umd", folder, cache_dir=tmp_path / "cache")
    assert [r["example_id"] for r in streamed] == loaded["example_id"]
    kept = [r["example_id"] for r in excluded_free(streamed)]
    assert kept == excluded_free(loaded)["example_id"]


def test_a_config_built_but_not_pulled_says_so_and_how_to_pull_it(built_umd: Path, tmp_path: Path) -> None:
    """After `groundbench pull curated_umd` the card is whole but bulk_umd's files are not here: load_config says
    it was not pulled and how to pull it; a config the build left out is still "not in this build"."""
    from groundbench.loaders import load_config

    copy = tmp_path / "copy"
    shutil.copytree(built_umd / FOLDER, copy)
    shutil.rmtree(copy / "data" / "bulk_umd")
    with pytest.raises(GroundBenchError) as raised:
        load_config("bulk_umd", copy, cache_dir=tmp_path / "cache")
    assert "config 'bulk_umd' is in this build" in str(raised.value)
    assert "was not pulled here: run `groundbench pull bulk_umd`" in str(raised.value)
    with pytest.raises(GroundBenchError, match="config 'gui_text' is not in this build"):
        load_config("gui_text", copy, cache_dir=tmp_path / "cache")
