"""The whole pipeline, measured (``run.py`` calls these): ``dvc repro`` end to end per source, the dask
engine on a local 2-worker cluster against the local pool, bake on 1 core against every core (and what
validation alone costs), and the bytes on disk per config (real blocks: a hard-linked file counts once).
"""

from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import yaml
from measure import Usage, measured

REPO = Path(__file__).resolve().parent.parent
DATA_FOLDERS = ("data/interim", "data/shards", "data/manifests", "data/images", "data/groundbench", ".dvc/cache")


# ----------------------------------------------------------------------------------------------
# Children (module level: child processes look them up by name)


def child_convert_on_engine(root: str, raw: dict[str, Any], sources: list[str], engine: str) -> Usage:
    """``run_convert`` on an engine; ``dask`` on a local cluster started inside the timing."""
    from groundbench.core.dask_engine import DaskBackend
    from groundbench.core.params import Params, validate
    from groundbench.stages.convert import run_convert

    def run() -> dict[str, Any]:
        # One local cluster for all of the source's converters (the four GUI formats), as a user would
        # start one and pass its address; each run_convert without an address would start its own.
        backend = DaskBackend.start(None) if engine == "dask" else None
        address = None if backend is None else backend.cluster.scheduler_address
        params = validate(Params, dict(raw, engine={"name": engine, "address": address}), "params.yaml (benchmark)")
        try:
            rows: dict[str, Any] = {}
            for key in sources:
                rows.update(run_convert(Path(root), params, key, progress=False))
            return rows
        finally:
            if backend is not None:
                backend.close()

    return measured(run)


def child_bake(interim: str, out: str, config: str, workers: int, max_bytes: int, rows_per_batch: int) -> Usage:
    from groundbench.stages.bake import bake_config

    def run() -> dict[str, Any]:
        result = bake_config(
            config,
            Path(interim),
            Path(out) / "shards",
            Path(out) / "manifest.jsonl",
            max_bytes,
            rows_per_batch,
            workers,
        )
        return {"rows": result.rows, "linked": result.linked}

    return measured(run)


def child_validation_only(interim: str) -> Usage:
    """What bake's checks cost alone, one core: schema + value rules (pandera), baselines, image hashes,
    on the groups of batches bake checks together."""
    import pyarrow as pa

    from groundbench.core.shards import open_shard, shard_files
    from groundbench.schemas.rules import validate_table
    from groundbench.scoring.baselines import bake_row_baselines
    from groundbench.stages.bake import _bad_images, batch_tasks

    def run() -> dict[str, Any]:
        seconds = {"rules": 0.0, "baselines": 0.0, "hashes": 0.0}
        rows = 0
        readers = {path: open_shard(path) for path in shard_files(Path(interim))}
        for task in batch_tasks(Path(interim), readers):
            batches = [readers[task.shard].get_batch(index) for index in task.indices]
            started = time.perf_counter()
            baked = [bake_row_baselines(batch) for batch in batches]
            seconds["baselines"] += time.perf_counter() - started
            started = time.perf_counter()
            validate_table(pa.Table.from_batches(baked), "bench")
            seconds["rules"] += time.perf_counter() - started
            started = time.perf_counter()
            assert not any(list(_bad_images(batch)) for batch in batches)
            seconds["hashes"] += time.perf_counter() - started
            rows += sum(batch.num_rows for batch in batches)
        return {"rows": rows, **{k: round(v, 2) for k, v in seconds.items()}}

    return measured(run)


STAGE_LINE = re.compile(r"^(?:Running stage|Stage) '([^']+)'")  # DVC's first line about each stage


def child_dvc_repro(repo: str, stages: list[str]) -> Usage:
    """One ``dvc repro -s`` of these stages, in this order (DVC hashing and committing included), as a user
    runs it. Where the time went, per stage: from the moment DVC names a stage to the moment it names the
    next (or exits), which includes DVC hashing and committing that stage's outputs; DVC's own start-up
    before the first stage is ``dvc start-up``."""
    env = dict(dvc_env(), PYTHONUNBUFFERED="1")  # DVC's lines as they happen, not when its buffer fills

    def run() -> dict[str, Any]:
        seconds: dict[str, float] = {}
        current, since = "dvc start-up", time.perf_counter()
        lines: list[str] = []
        command = ["dvc", "repro", "-s", *stages]
        with subprocess.Popen(
            command, cwd=repo, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
        ) as process:
            assert process.stdout is not None
            for line in process.stdout:
                lines.append(line)
                named = STAGE_LINE.match(line)
                if named and named.group(1) != current:
                    now = time.perf_counter()
                    seconds[current] = round(now - since, 1)
                    current, since = named.group(1), now
        seconds[current] = round(time.perf_counter() - since, 1)
        if process.returncode:
            raise RuntimeError(f"{' '.join(command)} failed:\n{''.join(lines)[-6000:]}")
        return {"stages": sum(line.startswith("Running stage") for line in lines), "stage_wall_s": seconds}

    return measured(run)


# ----------------------------------------------------------------------------------------------
# Helpers


def dvc_env() -> dict[str, str]:
    return dict(
        os.environ,
        PATH=f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}",
        HF_HUB_OFFLINE="1",
        DVC_NO_ANALYTICS="1",
        GIT_AUTHOR_NAME="b",
        GIT_AUTHOR_EMAIL="b@b",
        GIT_COMMITTER_NAME="b",
        GIT_COMMITTER_EMAIL="b@b",
    )


def git_copy(target: Path, params: dict[str, Any]) -> Path:
    """A git repository holding the project's tracked files, with ``params`` as its params.yaml."""
    names = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True).stdout
    for name in filter(None, names.decode().split("\0")):
        if (REPO / name).is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(REPO / name, target / name)
    (target / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    for command in (["git", "init", "-q"], ["git", "add", "-A"], ["git", "commit", "-qm", "project"]):
        subprocess.run(command, cwd=target, env=dvc_env(), check=True, capture_output=True)
    return target


def real_bytes(paths: list[Path], seen: set[tuple[int, int]] | None = None) -> int:
    """Bytes of the disk blocks under ``paths``, each inode once (as ``du`` counts hard links)."""
    seen = set() if seen is None else seen
    total = 0
    for root in paths:
        files = [root] if root.is_file() else [p for p in root.rglob("*") if p.is_file() and not p.is_symlink()]
        for path in files:
            stat = path.stat()
            if (stat.st_dev, stat.st_ino) not in seen:
                seen.add((stat.st_dev, stat.st_ino))
                total += stat.st_blocks * 512
    return total


def disk_per_config(repo: Path, configs: list[str]) -> dict[str, Any]:
    """Per config: the apparent bytes of its interim and shard files, and the real bytes of both plus the
    DVC cache objects they are stored as (one copy when hard-linked); the published Parquet is apart."""
    from groundbench.core.registry import BY_NAME

    out: dict[str, Any] = {}
    cache = repo / ".dvc" / "cache" / "files" / "md5"
    for config in configs:
        interim = repo / "data" / "interim" / BY_NAME[config].interim_folder / config
        shards = repo / "data" / "shards" / config
        files = [p for p in (*interim.glob("*.arrow"), *shards.glob("*.arrow"))]
        digests = {hashlib.md5(p.read_bytes()).hexdigest() for p in files}
        cached = [cache / d[:2] / d[2:] for d in digests if (cache / d[:2] / d[2:]).is_file()]
        apparent = sum(p.stat().st_size for p in files)
        out[config] = {
            "interim_and_shards_apparent": apparent,
            "workspace_real": real_bytes(files),
            "workspace_and_cache_real": real_bytes([*files, *cached]),
            "published_real": real_bytes([repo / "data" / "groundbench" / "data" / config]),
        }
    out["all_data_real"] = real_bytes([repo / f for f in DATA_FOLDERS if (repo / f).exists()])
    return out
