"""The dask engine of ``ordered_map``: a local 2-worker cluster on loopback gives the local pool's bytes.

One cluster for the module. Every source goes through it: UMD, GAPartNet bulk + curated, the two
GAPartNet re-asks (counterfactual, contrast), the four GUI formats, and the GAPartNet sample's
renderer. Both projects read the same sample files; the interim folders, shards, manifests and the
image store must be byte-identical.
"""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import yaml

from groundbench.core.parallel import EngineSpec, ordered_map, use_engine
from tests.conftest import REPO, digests, run_cli

distributed = pytest.importorskip("distributed")

pytestmark = pytest.mark.slow

OUTPUTS = ("data/interim", "data/shards", "data/manifests", "data/images")
CONFIGS = [
    *("curated_umd", "bulk_umd", "curated_gapartnet", "bulk_gapartnet", "counterfactual_gapartnet"),
    *("contrast_gapartnet", "gui_sheets", "gui_text", "gui_screenspot", "gui_screenspot_v2", "gui_screenspot_pro"),
]


@pytest.fixture(scope="module")
def cluster() -> Iterator[str]:
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
    ) as local:
        yield local.scheduler_address


@pytest.fixture(scope="module")
def samples(tmp_path_factory: pytest.TempPathFactory, cluster: str) -> Path:
    """Every embedded sample, written once; GAPartNet's views rendered on the cluster."""
    root = _project(tmp_path_factory.mktemp("samples"), tmp_path_factory.getbasetemp() / "sample-files")
    assert run_cli(root, "sample", "umd") == 0
    assert run_cli(root, "sample", "gapartnet", "--engine", "dask", "--address", cluster) == 0
    assert run_cli(root, "generate-gui", "--examples", "3", "--quiet") == 0
    return tmp_path_factory.getbasetemp() / "sample-files"


def _project(root: Path, sample_root: Path) -> Path:
    shutil.copytree(REPO / "data" / "audits", root / "data" / "audits")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sample"]["root"] = str(sample_root)
    params["sample"]["gui"]["examples_per_suite"] = 3
    for section in ("umd", "gapartnet"):
        params[section]["workers"] = 2  # the local pool, not the serial path
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def _build(root: Path, *engine: str) -> dict[str, str]:
    for source in ("umd", "gapartnet", "pointerbench", "screenspot", "screenspot_v2", "screenspot_pro"):
        assert run_cli(root, "convert", source, "--quiet", *engine) == 0
    for construction in ("counterfactual", "contrast"):
        assert run_cli(root, "derive", construction, "--quiet", *engine) == 0
    assert run_cli(root, "bake", *CONFIGS) == 0
    assert run_cli(root, "store") == 0
    return digests(root, OUTPUTS)


def test_every_source_on_the_cluster_gives_the_local_pools_bytes(samples: Path, cluster: str, tmp_path: Path) -> None:
    local = _build(_project(tmp_path / "local", samples))
    remote = _build(_project(tmp_path / "dask", samples), "--engine", "dask", "--address", cluster)
    assert remote == local
    for config in CONFIGS:  # every config was built, not left out
        assert any(path.startswith(f"data/shards/{config}/test-") for path in local), config


def test_the_renderer_on_the_cluster_gives_the_local_renders(samples: Path, tmp_path: Path) -> None:
    from groundbench.samples.gapartnet import write_sample

    write_sample(tmp_path / "gapartnet")  # the local pool
    assert digests(tmp_path, ("gapartnet",)) == {
        path.replace(str(samples.name) + "/", "", 1): sha
        for path, sha in digests(samples.parent, (f"{samples.name}/gapartnet",)).items()
    }


def _fails_on_three(item: int) -> int:
    if item == 3:
        raise ValueError("item 3 is bad")
    return item * 2


def test_order_window_and_errors_on_the_cluster(cluster: str) -> None:
    with use_engine(EngineSpec("dask", cluster)):
        assert list(ordered_map(abs, list(range(-50, 50)), 1, 8)) == [abs(i) for i in range(-50, 50)]
        results = ordered_map(_fails_on_three, list(range(10)), 1, 4)
        assert [next(results) for _ in range(3)] == [0, 2, 4]
        with pytest.raises(ValueError, match="item 3 is bad"):
            next(results)


def test_an_unknown_engine_or_a_local_address_is_refused() -> None:
    from groundbench.core.errors import GroundBenchError

    with pytest.raises(GroundBenchError, match="engine.name"):
        EngineSpec("ray")
    with pytest.raises(GroundBenchError, match="engine.address"):
        EngineSpec("local", "tcp://127.0.0.1:8786")


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
        local = _project(tmp_path / "local", tmp_path / "unused")
        remote = _project(tmp_path / "s3", tmp_path / "unused")
        for root, source in ((local, str(umd_sample)), (remote, "s3://sources/umd")):
            params = yaml.safe_load((root / "params.yaml").read_text())
            params["sources"]["umd"] = source
            (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
        assert run_cli(local, "convert", "umd", "--quiet") == 0
        # A cluster started here, with the S3 settings in its workers' environment.
        with distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster:
            assert (
                run_cli(remote, "convert", "umd", "--quiet", "--engine", "dask", "--address", cluster.scheduler_address)
                == 0
            )
        assert digests(remote, ("data/interim",)) == digests(local, ("data/interim",))
        assert (tmp_path / "mirror").is_dir()  # read through the mirror, not from the local folder
    finally:
        server.stop()
