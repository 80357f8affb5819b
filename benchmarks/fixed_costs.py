"""Fixed costs of the pipeline, measured in a built copy of the project (``run.py`` calls these).

* Start-up per stage: every stage instance DVC would run (``foreach`` instances included, read from
  DVC's own index of ``dvc.yaml``), started as DVC starts it (``sh -c '<cmd>'`` in the project folder,
  i.e. ``bin/groundbench ...``), from the moment before the process is spawned to the stage's first
  work: its first file access under ``data/`` (``startup_hook/sitecustomize.py`` marks it with an audit
  hook and ends the process there, before the access, so nothing is changed). Split into the
  interpreter's own start (spawn to ``sitecustomize``) and imports + argument parsing (the rest).
* DVC's share per stage: what ``dvc repro`` does after a stage's command returns, run on its own in a
  fresh process with DVC's own objects (``Stage.save_deps``, ``Stage.save_outs``, ``Stage.commit``):
  hashing with an empty hash state (DVC_SITE_CACHE_DIR fresh, as after a real run every output file is
  new), committing into an empty cache (the project's link types), then hashing again with the state
  warm (what a no-op ``dvc repro`` or a later stage pays for the same folder). Against ``md5sum`` of the
  same output files on a warm page cache.
* The DVC outputs no user fetches: outputs that another stage reads and that ``groundbench pull`` does
  not fetch, with their size and the hashing and committing they cost.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from pipeline_e2e import dvc_env

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
HOOK = BENCH / "startup_hook"
MAX_STARTUP_S = 0.5  # issue 28: process start to a stage's first work
STARTUP_TIMEOUT_S = 120.0
# What `groundbench pull CONFIG` fetches (groundbench/tools/dvcpull.py) and what no stage reads (the
# published folder, the report): the DVC outputs users need as artifacts. Every other output that a
# stage reads is an intermediate.
PULLED = ("data/shards", "data/manifests", "data/images", "data/groundbench")


def stage_list(repo: Path) -> list[dict[str, Any]]:
    """Every stage instance in ``repo``'s dvc.yaml, as DVC resolves it: name, command, deps, outs."""
    code = (
        "import json, sys\n"
        "from dvc.repo import Repo\n"
        "with Repo(sys.argv[1]) as repo:\n"
        "    print(json.dumps([{'name': s.addressing, 'cmd': s.cmd,"
        " 'deps': [str(d.def_path) for d in s.deps], 'outs': [str(o.def_path) for o in s.outs]}"
        " for s in repo.index.stages]))\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code, str(repo)], cwd=repo, env=dvc_env(), capture_output=True, text=True, check=True
    )
    return list(json.loads(done.stdout))


# ----------------------------------------------------------------------------------------------
# Start-up


def _startup_once(repo: Path, cmd: str, mark: Path, importtime: bool = False) -> dict[str, Any]:
    mark.unlink(missing_ok=True)
    env = dict(
        dvc_env(),
        PYTHONPROFILEIMPORTTIME="1" if importtime else "",
        PYTHONPATH=os.pathsep.join(filter(None, [str(HOOK), os.environ.get("PYTHONPATH")])),
        GROUNDBENCH_STARTUP_MARK=str(mark),
        GROUNDBENCH_STARTUP_WATCH=str(repo / "data"),
        GROUNDBENCH_STARTUP_IGNORE=str(repo / "data" / ".locks"),
        GROUNDBENCH_STARTUP_PROJECT=str(REPO),
        GROUNDBENCH_STARTUP_EXIT="1",
    )
    started = time.time()
    process = subprocess.Popen(
        ["sh", "-c", cmd],
        cwd=repo,
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        start_new_session=True,  # a worker that marked first: the whole group is ended below
    )
    try:
        _, stderr = process.communicate(timeout=STARTUP_TIMEOUT_S)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        _, stderr = process.communicate()
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)  # workers left behind by a marking worker
    lines = [json.loads(line) for line in mark.read_text().splitlines()] if mark.is_file() else []
    if not lines:
        raise RuntimeError(f"`{cmd}` ended (status {process.returncode}) before any work:\n{stderr.decode()[-3000:]}")
    first = min(lines, key=lambda line: line["first_work_unix"])
    if importtime:
        return {"imports_s": import_costs(stderr.decode())}
    return {
        "startup_s": first["first_work_unix"] - started,
        "interpreter_s": first["sitecustomize_unix"] - started,
        "imports_and_dispatch_s": first["first_work_unix"] - first["sitecustomize_unix"],
        "in_worker": first["worker"],  # the first work happened in a multiprocessing worker
        "first_work": f"{first['event']} {os.path.relpath(first['path'], repo)}",
        "modules": first["modules"],
        "project_modules": len(first["project_modules"]),
        "heavy_modules": first["heavy_modules"],
    }


PROJECT_PACKAGE = "groundbench"
INTERPRETER = frozenset(("site", "encodings", "_frozen_importlib_external", "sitecustomize", "zipimport"))


def import_costs(stderr: str, top: int = 4) -> dict[str, float]:
    """From a ``-X importtime`` log: the libraries the project imports, each with its cumulative seconds (what
    importing ``pandera`` cost, its own pandas and polars included), the ``top`` largest, then the project's
    own modules (their self time) as ``groundbench``."""
    rows = []
    for line in stderr.splitlines():
        own, _, rest = line.removeprefix("import time:").partition("|")
        cumulative, _, name = rest.partition("|")
        if line.startswith("import time:") and own.strip().isdigit():
            rows.append((len(name) - len(name.lstrip()), name.strip().split(".")[0], int(own), int(cumulative)))
    libraries: dict[str, float] = {}
    project = 0.0
    stack: list[tuple[int, str]] = []  # the importing module of each level, read in import order
    for level, package, own, cumulative in reversed(rows):  # the log lists a module after its imports
        while stack and stack[-1][0] >= level:
            stack.pop()
        parent = stack[-1][1] if stack else None
        stack.append((level, package))
        if package == PROJECT_PACKAGE:
            project += own / 1e6
        elif package not in INTERPRETER and parent in (None, PROJECT_PACKAGE) and package != parent:
            libraries[package] = libraries.get(package, 0.0) + cumulative / 1e6
    largest = sorted(libraries.items(), key=lambda kv: -kv[1])[:top]
    return {**{name: round(seconds, 3) for name, seconds in largest}, PROJECT_PACKAGE: round(project, 3)}


def measure_startup(repo: Path, stages: list[dict[str, Any]], repeat: int) -> dict[str, Any]:
    """Per stage instance: the median of ``repeat`` starts (seconds), judged against MAX_STARTUP_S."""
    out: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="startup-") as folder:
        mark = Path(folder) / "mark.jsonl"
        for stage in stages:
            runs = [_startup_once(repo, stage["cmd"], mark) for _ in range(repeat)]
            median = {
                key: round(statistics.median(run[key] for run in runs), 3)
                for key in ("startup_s", "interpreter_s", "imports_and_dispatch_s")
            }
            out[stage["name"]] = {
                "cmd": stage["cmd"],
                **median,
                "runs_s": [round(run["startup_s"], 3) for run in runs],
                **{k: runs[0][k] for k in ("first_work", "in_worker", "modules", "project_modules")},
                "heavy_modules": runs[0]["heavy_modules"],
                # One more start with `-X importtime` (which slows imports, so apart): what the imports cost.
                "imports_s": _startup_once(repo, stage["cmd"], mark, importtime=True)["imports_s"],
                "met": median["startup_s"] <= MAX_STARTUP_S,
            }
            print(f"    {stage['name']}: {median['startup_s']:.2f} s ({out[stage['name']]['first_work']})", flush=True)
    return out


# ----------------------------------------------------------------------------------------------
# DVC's share


def _files(repo: Path, outs: list[str]) -> list[Path]:
    found: list[Path] = []
    for out in outs:
        path = repo / out
        if path.is_file():
            found.append(path)
        elif path.is_dir():
            found += sorted(p for p in path.rglob("*") if p.is_file())
    return found


def _md5sum_s(files: list[Path], list_file: Path) -> float:
    """``md5sum`` of ``files`` (one process, coreutils), after one read of them (a warm page cache)."""
    for path in files:
        path.read_bytes()
    list_file.write_bytes(b"".join(str(p).encode() + b"\0" for p in files))
    started = time.perf_counter()
    with open(list_file, "rb") as names:
        subprocess.run(["xargs", "-0", "-r", "md5sum", "--"], stdin=names, stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - started


def measure_dvc_share(repo: Path, stages: list[dict[str, Any]], work: Path) -> dict[str, Any]:
    """Per stage: DVC hashing its deps and outs (cold, warm), committing its outs, vs md5sum of the outs.

    Changes the copy: its outputs end up linked to a new cache. Run it last on ``repo``."""
    out: dict[str, Any] = {}
    for stage in stages:
        files = _files(repo, stage["outs"])
        for path in files:
            path.read_bytes()  # both sides on a warm page cache
        state = work / f"dvc_state_{len(out)}"
        cache = repo / ".dvc" / f"bench_cache_{len(out)}"  # same file system: links work as in the project
        env = dict(dvc_env(), DVC_SITE_CACHE_DIR=str(state))
        done = subprocess.run(
            [sys.executable, str(BENCH / "dvc_share.py"), str(repo), stage["name"], str(cache)],
            cwd=repo,
            env=env,
            capture_output=True,
            text=True,
        )
        if done.returncode:
            raise RuntimeError(f"dvc_share.py {stage['name']} failed:\n{done.stderr[-3000:]}")
        figures = json.loads(done.stdout.splitlines()[-1])
        md5 = _md5sum_s(files, work / "md5sum.list")
        figures.update(
            files=len(files),
            bytes=sum(p.stat().st_size for p in files),
            md5sum_s=round(md5, 3),
        )
        figures["hash_to_md5sum"] = round(figures["outs_hash_cold_s"] / md5, 2) if md5 > 0 else None
        out[stage["name"]] = figures
        print(
            f"    {stage['name']}: outs {figures['bytes'] / 1e6:.1f} MB, hash {figures['outs_hash_cold_s']:.2f} s "
            f"(md5sum {md5:.2f} s), commit {figures['commit_s']:.2f} s",
            flush=True,
        )
    return out


def _under(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip("/") + "/")


def unfetched_outputs(stages: list[dict[str, Any]], share: dict[str, Any], repo: Path) -> list[dict[str, Any]]:
    """The outputs that only other stages read: no user fetches them, yet DVC hashes and caches them."""
    found = []
    for stage in stages:
        for output in stage["outs"]:
            readers = [
                other["name"]
                for other in stages
                if other is not stage and any(_under(output, dep) or _under(dep, output) for dep in other["deps"])
            ]
            if not readers or any(_under(output, pulled) for pulled in PULLED):
                continue
            files = _files(repo, [output])
            fig = share.get(stage["name"], {})
            found.append(
                {
                    "output": output,
                    "stage": stage["name"],
                    "read_by": readers,
                    "files": len(files),
                    "bytes": sum(p.stat().st_size for p in files),
                    # one stage can have several outputs: its figures are the stage's, shared by them
                    "stage_outs_hash_cold_s": fig.get("outs_hash_cold_s"),
                    "stage_commit_s": fig.get("commit_s"),
                    "readers_deps_check_warm_s": round(  # every dep of theirs, code included
                        sum(share.get(r, {}).get("deps_hash_warm_s", 0.0) for r in readers), 3
                    ),
                    "needed": _what_is_needed(output, stage["name"], readers),
                }
            )
    return found


def _what_is_needed(output: str, stage: str, readers: list[str]) -> str:
    if _under(output, "data/sources/sample"):
        return (
            f"generate the sample inside its reader ({', '.join(readers)}) into a temporary folder, or "
            f"mark it `cache: false` (DVC still hashes it as {stage}'s output and as its readers' dep)"
        )
    return (
        f"write it as a temporary inside one stage with its readers ({', '.join(readers)}: e.g. convert and "
        "bake as one stage per source) or have the converter write the shards directly; `cache: false` "
        "alone saves the cache copy, not the hashing"
    )
