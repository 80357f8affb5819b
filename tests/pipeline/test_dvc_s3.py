"""DVC with a real S3-compatible server on loopback (moto): push, fresh clone, pull, verify; one config only."""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import boto3
import pytest
from moto.server import ThreadedMotoServer

from groundbench.core.manifests import read_manifest
from tests.conftest import digests
from tests.pipeline.test_dvc import repo  # noqa: F401 (repo is a fixture: a copy of the built git+DVC repo)
from tests.support.dvcrepo import TRACKED_OUTPUTS, dvc_env

pytestmark = pytest.mark.slow  # end to end: DVC push/pull against S3 (moto on 127.0.0.1)

BUCKET = "groundbench-test"
FAKE = {"AWS_ACCESS_KEY_ID": "testing", "AWS_SECRET_ACCESS_KEY": "testing", "AWS_DEFAULT_REGION": "us-east-1"}


@pytest.fixture(scope="module")
def s3() -> Iterator[str]:
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=0, verbose=False)
    server.start()
    host, port = server.get_host_and_port()
    endpoint = f"http://{host}:{port}"
    client = boto3.client("s3", endpoint_url=endpoint, **{k.lower(): v for k, v in FAKE.items() if "KEY" in k})
    client.create_bucket(Bucket=BUCKET)
    yield endpoint
    server.stop()


def _s3_env() -> dict[str, str]:
    env = dvc_env()
    env.update(FAKE, AWS_EC2_METADATA_DISABLED="true", NO_PROXY="127.0.0.1,localhost", no_proxy="127.0.0.1,localhost")
    return env


def _run(cwd: Path, *command: str) -> str:
    result = subprocess.run(command, cwd=cwd, env=_s3_env(), capture_output=True, text=True, check=False, timeout=600)
    assert result.returncode == 0, f"{' '.join(command)} failed:\n{result.stdout}\n{result.stderr}"
    return result.stdout + result.stderr


def _configure(clone: Path, endpoint: str) -> None:
    # Machine-specific settings (endpoint, credentials) go to the git-ignored .dvc/config.local.
    _run(clone, "dvc", "remote", "modify", "--local", "s3", "endpointurl", endpoint)
    _run(clone, "dvc", "remote", "modify", "--local", "s3", "access_key_id", FAKE["AWS_ACCESS_KEY_ID"])
    _run(clone, "dvc", "remote", "modify", "--local", "s3", "secret_access_key", FAKE["AWS_SECRET_ACCESS_KEY"])


@pytest.fixture(scope="module")
def pushed(repo: Path, s3: str) -> Path:  # noqa: F811
    _run(repo, "dvc", "remote", "add", "-f", "-d", "s3", f"s3://{BUCKET}/groundbench")
    _configure(repo, s3)
    _run(repo, "dvc", "push", "-r", "s3")
    _run(repo, "git", "add", ".dvc/config", "dvc.lock")
    _run(repo, "git", "commit", "-qm", "s3 remote")
    return repo


def test_push_to_s3_then_clone_and_pull_is_byte_identical(pushed: Path, s3: str, tmp_path: Path) -> None:
    objects = boto3.client("s3", endpoint_url=s3, aws_access_key_id="testing", aws_secret_access_key="testing")
    assert objects.list_objects_v2(Bucket=BUCKET)["KeyCount"] > 40
    clone = tmp_path / "clone"
    _run(tmp_path, "git", "clone", "-q", str(pushed), str(clone))
    _configure(clone, s3)
    _run(clone, "dvc", "pull", "-r", "s3")
    assert digests(clone, TRACKED_OUTPUTS) == digests(pushed, TRACKED_OUTPUTS)
    _run(clone, sys.executable, "-m", "groundbench.cli", "verify")
    assert "up to date" in _run(clone, "dvc", "status")


def test_pull_of_a_single_config_fetches_only_that_config(pushed: Path, s3: str, tmp_path: Path) -> None:
    clone = tmp_path / "one"
    _run(tmp_path, "git", "clone", "-q", str(pushed), str(clone))
    _configure(clone, s3)
    _run(clone, sys.executable, "-m", "groundbench.cli", "pull", "curated_umd")
    assert sorted(p.name for p in (clone / "data/shards").iterdir() if not p.name.startswith(".")) == ["curated_umd"]
    assert not (clone / "data/manifests/bulk_umd.jsonl").exists()
    assert not (clone / "data/groundbench/data/bulk_umd").exists()
    manifest = read_manifest(clone / "data/manifests/curated_umd.jsonl")  # its image lines
    store = [p for p in (clone / "data/images").rglob("*") if p.is_file()]
    assert len(store) == len(manifest) < len([p for p in (pushed / "data/images").rglob("*") if p.is_file()])
    for folder in ("data/shards/curated_umd", "data/groundbench/data/curated_umd"):
        assert digests(clone, (folder,)) == digests(pushed, (folder,))
    _run(clone, sys.executable, "-m", "groundbench.cli", "verify", "curated_umd")
    # DVC pulls a config's own outputs by their paths too (its bake stage also bakes bulk_umd).
    other = tmp_path / "stage"
    _run(tmp_path, "git", "clone", "-q", str(pushed), str(other))
    _configure(other, s3)
    _run(other, "dvc", "pull", "data/shards/curated_umd", "data/manifests/curated_umd.jsonl")
    assert digests(other, ("data/shards/curated_umd",)) == digests(pushed, ("data/shards/curated_umd",))
    manifest_path = "data/manifests/curated_umd.jsonl"
    assert (other / manifest_path).read_bytes() == (pushed / manifest_path).read_bytes()
    assert not (other / "data/shards/bulk_umd").exists() and not (other / "data/images").exists()
    # The baselines config: its published folder only (assemble computes it), no shards, manifest or images.
    derived = tmp_path / "baselines"
    _run(tmp_path, "git", "clone", "-q", str(pushed), str(derived))
    _configure(derived, s3)
    _run(derived, sys.executable, "-m", "groundbench.cli", "pull", "baselines")
    folder = "data/groundbench/data/baselines"
    assert digests(derived, (folder,)) == digests(pushed, (folder,)) != {}
    assert not (derived / "data/baselines").exists()
    assert not [p for p in (derived / "data/shards").glob("*") if not p.name.startswith(".")]
    assert not (derived / "data/images").exists() and not (derived / "data/manifests/curated_umd.jsonl").exists()
