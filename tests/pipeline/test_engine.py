"""The dask engine of the runner's map: a local 2-worker cluster on loopback gives the local pool's bytes.

One cluster for the module. Every source goes through it: UMD, GAPartNet bulk + curated, the two
GAPartNet re-asks (counterfactual, contrast), the four GUI formats, and the GAPartNet sample's
renderer. Both projects read the same shared sample files (tests/support/builds.py); the interim folders,
shards, manifests and the image store must be byte-identical. A source at an ``s3://`` URL (moto on
loopback) is read by the cluster's workers through their own mirrors.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import distributed
import pytest
import yaml

from groundbench.core.parallel import DaskCluster, ordered_map
from groundbench.errors import GroundBenchError
from tests.conftest import REPO, digests, run_cli
from tests.converters.test_converters import AUDITS, _small_gui_sample
from tests.support.builds import once, run_stages

pytestmark = pytest.mark.slow  # starts a Dask cluster (and, for S3, a moto server)

OUTPUTS = ("data/interim", "data/shards", "data/manifests", "data/images")
CONFIGS = (
    *("curated_umd", "bulk_umd", "curated_gapartnet", "bulk_gapartnet", "counterfactual_gapartnet"),
    *("contrast_gapartnet", "gui_sheets", "gui_text", "gui_screenspot", "gui_screenspot_v2", "gui_screenspot_pro"),
)
GUI = ("pointerbench", "screenspot", "screenspot_v2", "screenspot_pro")
BUILD = (
    *(("convert", source, "--quiet") for source in ("umd", "gapartnet", *GUI)),
    *(("derive", construction, "--quiet") for construction in ("counterfactual", "contrast")),
    ("bake", *CONFIGS),
    ("store",),
)


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local.scheduler_address


def _project(root: Path, sources: dict[str, Any], engine: dict[str, Any] | None = None) -> Path:
    """A project root reading ``sources``, the local pool on 2 workers (not the serial path) or ``engine``."""
    (root / "data" / "audits").mkdir(parents=True)
    for audit in AUDITS:
        shutil.copy(REPO / "data/audits" / audit, root / "data/audits" / audit)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"] = sources
    for section in ("umd", "gapartnet"):
        params[section]["workers"] = 2
    if engine is not None:
        params["engine"] = engine
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


@pytest.fixture(scope="module")
def sources(umd_sample: Path, gapartnet_rendered: Path) -> dict[str, Any]:
    gui = once("gui_sample_small", _small_gui_sample) / "gui"  # the converter harness's GUI sample
    return {
        "umd": str(umd_sample),
        "gui": {source: str(gui / source) for source in GUI},
        "gapartnet": {"assets": str(gapartnet_rendered / "assets"), "renders": str(gapartnet_rendered / "renders")},
    }


def test_every_source_on_the_cluster_gives_the_local_pools_bytes(
    sources: dict[str, Any], cluster: str, tmp_path: Path
) -> None:
    local = _project(tmp_path / "local", sources)
    run_stages(local, BUILD, lambda where, command: run_cli(where, *command))
    # The engine as params.yaml sets it (the command line's --engine/--address: the S3 test below).
    remote = _project(tmp_path / "dask", sources, {"name": "dask", "address": cluster})
    for command in BUILD:
        assert run_cli(remote, *command) == 0, command
    expected = digests(local, OUTPUTS)
    assert digests(remote, OUTPUTS) == expected
    for config in CONFIGS:  # every config was built with rows, not left out
        assert any(path.startswith(f"data/shards/{config}/test-") for path in expected), config


def test_the_renderer_on_the_cluster_gives_the_local_renders(
    gapartnet_rendered: Path, cluster: str, tmp_path: Path
) -> None:
    from groundbench.converters.gapartnet.sample import write_sample

    views = write_sample(tmp_path / "gapartnet", map_engine={"cluster": DaskCluster(cluster, ())})
    assert views > 1
    assert digests(tmp_path, ("gapartnet",)) == {
        f"gapartnet/{path}": sha for path, sha in digests(gapartnet_rendered, (".",)).items()
    }


def _fails_on_three(item: int) -> int:
    if item == 3:
        raise ValueError("item 3 is bad")
    return item * 2


def test_order_window_and_errors_on_the_cluster(cluster: str) -> None:
    on_cluster = DaskCluster(cluster, ())
    assert list(ordered_map(abs, list(range(-50, 50)), 1, 8, on_cluster)) == [abs(i) for i in range(-50, 50)]
    results = ordered_map(_fails_on_three, list(range(10)), 1, 4, on_cluster)
    assert [next(results) for _ in range(3)] == [0, 2, 4]
    with pytest.raises(ValueError, match="item 3 is bad"):
        next(results)


def _worker_settings() -> tuple[str | None, str | None, bool]:
    import dask.config

    profile = dask.config.get("distributed.worker.profile.enabled")
    return os.environ.get("MALLOC_TRIM_THRESHOLD_"), os.environ.get("OMP_NUM_THREADS"), profile


def test_the_engines_workers_keep_dynamic_malloc_and_no_profiler(cluster: str) -> None:
    """Speed settings (groundbench/core/dask_config): Dask's default workers have them, ours do not."""
    from groundbench.core.dask_engine import WORKER_CONFIG_DIR, DaskBackend

    with distributed.Client(cluster) as client:  # a cluster on Dask's defaults, as a control
        assert set(client.run(_worker_settings).values()) == {("65536", "1", True)}
    os.environ.pop("MALLOC_TRIM_THRESHOLD_", None)  # the control's nannies wrote it into this process
    backend = DaskBackend.start(None)  # the local cluster `--engine dask` starts
    assert "MALLOC_TRIM_THRESHOLD_" not in os.environ  # nor into this process, for the pools it starts later
    try:
        assert set(backend.client.run(_worker_settings).values()) == {(None, "1", False)}
    finally:
        backend.close()
    # Workers started by hand read the same file through DASK_CONFIG (docs/scaling.md).
    code = (
        "import dask.config; from distributed.nanny import _get_env_variables; "
        "print(sorted(_get_env_variables('distributed.nanny.pre-spawn-environ')), "
        "dask.config.get('distributed.worker.profile.enabled'))"
    )
    environ = {**os.environ, "DASK_CONFIG": str(WORKER_CONFIG_DIR)}
    done = subprocess.run([sys.executable, "-c", code], env=environ, capture_output=True, text=True, check=True)
    assert done.stdout.strip() == "['MKL_NUM_THREADS', 'OMP_NUM_THREADS', 'OPENBLAS_NUM_THREADS'] False"


def test_an_unknown_engine_or_a_local_address_is_refused(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from groundbench.core.params import EngineParams, validate

    with pytest.raises(GroundBenchError, match="engine"):
        validate(EngineParams, {"name": "ray", "address": None}, "engine")
    with pytest.raises(GroundBenchError, match="an address needs name: dask"):
        validate(EngineParams, {"name": "local", "address": "tcp://127.0.0.1:8786"}, "engine")
    root = _project(tmp_path / "project", {"umd": None, "gui": dict.fromkeys(GUI), "gapartnet": None})
    capsys.readouterr()
    assert run_cli(root, "convert", "umd", "--quiet", "--engine", "local", "--address", "tcp://127.0.0.1:8786") == 2
    assert "an address needs name: dask" in capsys.readouterr().err


def test_a_source_on_s3_is_read_by_the_workers(
    umd_sample: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """UMD from s3:// (moto on loopback) on a cluster whose workers copy it themselves = the local folder's bytes."""
    import boto3
    from moto.server import ThreadedMotoServer

    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    try:
        host, port = server.get_host_and_port()
        for name, value in {
            "AWS_ACCESS_KEY_ID": "testing",
            "AWS_SECRET_ACCESS_KEY": "testing",
            "AWS_DEFAULT_REGION": "us-east-1",
            "AWS_ENDPOINT_URL": f"http://{host}:{port}",
            "AWS_EC2_METADATA_DISABLED": "true",
            "NO_PROXY": "127.0.0.1",
            "GROUNDBENCH_MIRROR": str(tmp_path / "mirror"),
        }.items():
            monkeypatch.setenv(name, value)
        s3 = boto3.client("s3")
        s3.create_bucket(Bucket="sources")
        for path in sorted(umd_sample.rglob("*")):
            if path.is_file():
                s3.upload_file(str(path), "sources", f"umd/{path.relative_to(umd_sample)}")
        nothing = {"gui": dict.fromkeys(GUI), "gapartnet": None}
        local = _project(tmp_path / "local", {"umd": str(umd_sample), **nothing})
        remote = _project(tmp_path / "s3", {"umd": "s3://sources/umd", **nothing})
        assert run_cli(local, "convert", "umd", "--quiet") == 0
        # A cluster started here, with the S3 settings in its workers' environment; named on the command line.
        with distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as s3_cluster:
            address = s3_cluster.scheduler_address
            assert run_cli(remote, "convert", "umd", "--quiet", "--engine", "dask", "--address", address) == 0
            mirrored = sorted(p.name for p in (tmp_path / "mirror").iterdir())
            assert len(mirrored) == 1  # the driver and the worker read the same mirror folder, complete
            assert (tmp_path / "mirror" / mirrored[0] / ".groundbench-mirror-complete").is_file()
        assert digests(remote, ("data/interim",)) == digests(local, ("data/interim",))
    finally:
        server.stop()
