"""The one benchmark command runs end to end at a tiny scale and its table and JSON say the same thing.

The figures themselves are not asserted (timing belongs to the benchmark, not to tests); what is
asserted is that every measurement the issue asks for is made on the same data: the conversion and
the obvious way write the same rows, verify finds every file intact, and every target is reported.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from tests.conftest import REPO
from tests.support.dvcrepo import default_repo

pytestmark = [pytest.mark.slow, pytest.mark.benchmark]  # end to end: the benchmark command (`make test-benchmark`)

# The smoke runs the dask engine on UMD only and `dvc repro` end to end on GAPartNet only (--engine-source,
# --e2e-source): each is one code path for every source, and tests/pipeline/test_engine.py checks every source's
# bytes on the cluster, tests/pipeline/test_dvc.py a `dvc repro` of every source's stages. A full run does all.
ENGINE_SOURCE, E2E_SOURCE = "umd", "gapartnet"
TARGETS = (
    "umd: conversion vs floor",
    "gapartnet: ahead of the obvious way",
    "gui: conversion vs floor",
    "peak RSS, every config/stage",
    "verify vs sha256sum, per core",
    "verify uses both cores",
    "umd: conversion vs floor + write",
    "gapartnet: conversion vs floor",
    "umd: dask (local 2-worker cluster) vs local pool",
    "gapartnet: dvc repro end to end vs floor + write",
    "dvc repro, nothing changed",
    "stage start-up, every stage",
    "verify peak anonymous memory",
    "report vs store, same build",
    "report files vs store images",
)


def run_benchmark(tmp_path: Path, name: str, *args: str) -> tuple[dict, str]:
    """``benchmarks/run.py ARGS``: its JSON report and what it printed."""
    results = tmp_path / f"{name}.json"
    command = [
        sys.executable, str(REPO / "benchmarks" / "run.py"), "--workdir", str(tmp_path), "--json", str(results), *args
    ]  # fmt: skip
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "GroundBench pipeline benchmark" in done.stdout and "targets" in done.stdout
    return json.loads(results.read_text()), done.stdout


def test_benchmark_prints_the_table_and_writes_every_measurement(tmp_path: Path) -> None:
    # Two commands that together measure what one run does: everything but the fixed costs (--skip dvc), then the
    # fixed costs alone in a copy of the run's shared `dvc repro` (tests/support/dvcrepo.py). The first needs no
    # build, so under `make test` it runs while test_dvc.py (started at once on the other worker) makes that build,
    # instead of its worker waiting a minute for it.
    report, stdout = run_benchmark(
        tmp_path, "run", "--scale", "0.001", "--gapartnet-size", "160x120", "--skip", "dvc",
        "--eval-rows", "20", "--whole-rows", "20", "--engine-source", ENGINE_SOURCE, "--e2e-source", E2E_SOURCE,
    )  # fmt: skip
    fixed, fixed_stdout = run_benchmark(
        tmp_path, "fixed", "--fixed-costs-only", "--dvc-project", str(default_repo()), "--startup-repeat", "1",
        "--noop-repeat", "1",
    )  # fmt: skip
    assert "dvc" not in report and fixed["converters"] == {} and "verify" not in fixed
    report["dvc"], report["targets"] = fixed["dvc"], report["targets"] + fixed["targets"]
    stdout += fixed_stdout

    bulk = {"umd": "bulk_umd", "gapartnet": "bulk_gapartnet"}
    for source, section in report["converters"].items():
        for measurement in ("floor", "floor_write", "conversion", "obvious"):
            assert section[measurement]["wall_s"] > 0 and section[measurement]["peak_rss_bytes"] > 0
        converted = section["conversion"]["result"]
        # the obvious way writes the same records: UMD/GAPartNet bulk rows, every GUI row
        rows = converted[bulk[source]] if source in bulk else sum(converted.values())
        assert rows > 0 and section["obvious"]["result"]["rows"] == rows
    assert set(report["converters"]) == {"umd", "gapartnet", "gui"}

    verify = report["verify"]["verify"]["result"]
    assert verify["mismatches"] == 0 and verify["images"] > 0 and verify["hashed_bytes"] > 0
    assert report["load"]["cold"]["result"]["rows"] == report["converters"]["umd"]["conversion"]["result"]["bulk_umd"]

    assert {s for s, section in report["converters"].items() if "engine" in section} == {ENGINE_SOURCE}
    assert report["converters"][ENGINE_SOURCE]["engine"]["identical"] is True  # the local pool's bytes on dask
    assert {s for s, section in report["converters"].items() if "end_to_end" in section} == {E2E_SOURCE}
    assert set(report["disk"]) == {E2E_SOURCE}
    for source in (E2E_SOURCE,):
        section = report["converters"][source]
        assert section["end_to_end"]["result"]["stages"] >= 4, source  # convert, bake, store, assemble
        per_stage = section["end_to_end"]["result"]["stage_wall_s"]  # where the end-to-end time went
        assert {"store", "assemble"} <= set(per_stage) and min(per_stage.values()) > 0, source
        share = section["end_to_end"]["dvc_share"]  # DVC's hashing and committing of the stages just run
        assert {"store", "assemble"} <= set(share), source
        assert min(fig["outs_hash_cold_s"] for fig in share.values()) > 0, source
        disk = report["disk"][source]
        assert disk["all_data_real"] > 0
        for config, figures in disk.items():
            # interim + shards + cache object: one copy when linked (past a few disk blocks of rounding)
            if config != "all_data_real" and figures["interim_and_shards_apparent"] > 2**16:
                assert figures["workspace_and_cache_real"] < 0.6 * figures["interim_and_shards_apparent"], config
    gallery = report["stages"]["report"]["result"]  # the gallery of every config, on the build store filled
    assert gallery["rows"] >= gallery["largest_config_rows"] > 0 and gallery["files"] > 0
    assert report["report_vs_store"]["images"] == report["stages"]["store"]["result"]["images"] > 0
    bake = report["bake_scaling"]
    assert bake["identical"] is True and bake["validation_only"]["result"]["rows"] > 0
    assert any(t["target"].startswith("bake ") for t in report["targets"])

    assert_fixed_costs(report, stdout)

    # groundbench eval against the plain client and a bare inspect task, on the same rows (issue 43)
    (run,) = report["eval"]["runs"].values()
    asked = run["floor"]["result"]["asked"]
    assert asked == run["bare_inspect"]["result"]["asked"] == run["groundbench"]["result"]["asked"] > 0
    assert run["groundbench"]["requests"] == asked and run["groundbench"]["first_request_s"] > 0
    assert run["groundbench"]["beyond_answer_bytes_per_row"] > 0 and run["bare_inspect_defaults"]["bytes_per_row"] > 0
    # every condition of bulk_umd in one command (the memory curve), requests of the whole config, a GUI config
    whole = report["eval_whole"]
    assert whole["limit"] == 20  # the first 20 rows of each condition: the smoke stays cheap
    assert whole["samples"] == whole["groundbench"]["result"]["asked"] == whole["groundbench"]["requests"] > asked
    assert whole["curve"][-1]["answered"] <= whole["samples"] and whole["groundbench"]["peak_anon_bytes"] > 0
    assert whole["requests"]["lines"] > 0 and whole["requests"]["result"]["exit"] == 0
    # the whole config's end: every valid (row, condition) answered already, nothing asked, all of them scored
    answered = report["eval_whole_answered"]["groundbench"]
    assert answered["requests"] == answered["result"]["asked"] == 0
    assert answered["predictions"] == answered["answers"] > whole["samples"]
    (gui,) = report["eval_gui"]["runs"].values()
    assert report["eval_gui"]["config"].startswith("gui_") and gui["groundbench"]["requests"] > 0
    assert gui["groundbench"]["first_request_s"] > 0 and gui["groundbench"]["log_bytes_per_row"] > 0
    assert report["eval_gui"]["requests"]["lines"] == report["eval_gui"]["valid_rows"] > 0
    assert report["score"]["lines"] > 0 and report["score"]["groundbench"]["result"]["exit"] == 0
    assert any(t["target"] == "score vs floor (CPU)" for t in report["targets"])

    targets = {t["target"]: t for t in report["targets"]}
    for name in TARGETS:
        assert isinstance(targets[name]["met"], bool) and targets[name]["measured"]
        assert name in stdout


def dvc_yaml_stages() -> set[str]:
    """Every stage instance of dvc.yaml, read here without DVC: a foreach stage is one per key."""
    stages = yaml.safe_load((REPO / "dvc.yaml").read_text())["stages"]
    return {
        f"{name}@{key}" if "foreach" in body else name
        for name, body in stages.items()
        for key in body.get("foreach", [None])
    }


def assert_fixed_costs(report: dict, stdout: str) -> None:
    """Start-up per stage, DVC's share per stage, the unfetched outputs, verify's anonymous memory."""
    dvc, expected = report["dvc"], dvc_yaml_stages()
    assert dvc["noop_median_s"] > 0 and dvc["stage_instances"] == len(expected)
    assert set(dvc["startup"]) == expected  # every stage, foreach instances included
    for name, fig in dvc["startup"].items():
        assert fig["startup_s"] >= fig["imports_and_dispatch_s"] > 0 and fig["interpreter_s"] > 0, name
        assert fig["first_work"].split()[1].startswith("data/") and fig["project_modules"] > 0, name
        assert isinstance(fig["met"], bool), name
    assert set(dvc["share"]) == expected
    for name, fig in dvc["share"].items():
        assert fig["files"] > 0 and fig["bytes"] > 0 and fig["md5sum_s"] > 0, name
        assert fig["outs_hash_cold_s"] > 0 and fig["commit_s"] > 0 and fig["deps_hash_cold_s"] > 0, name
    unfetched = {item["output"]: item for item in dvc["unfetched_outputs"]}
    # every converter's interim folder is read only by its bakes: no user fetches it
    interim = {f"data/interim/{key}" for key in ("umd", "gapartnet", "pointerbench", "screenspot")}
    assert interim <= set(unfetched)
    for output, item in unfetched.items():
        assert item["bytes"] > 0 and item["read_by"] and item["stage_outs_hash_cold_s"] > 0, output
        assert not output.startswith(("data/shards", "data/manifests", "data/images", "data/groundbench")), output
    verify = report["verify"]["verify"]
    assert 0 < verify["peak_anon_bytes"] <= verify["peak_rss_bytes"]
    tables = [line for line in stdout.splitlines() if line.startswith("|")]
    assert len(tables) >= 2 * len(expected) and max(map(len, tables)) <= 120
    assert "Start-up per stage" in stdout and "DVC outputs no user fetches" in stdout
