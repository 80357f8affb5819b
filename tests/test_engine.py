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
