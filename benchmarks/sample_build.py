"""``make build`` of the embedded sample on a fresh clone, as a user runs it (``run.py`` calls this).

A git copy of the project's tracked files (no ``.venv``, no ``data/`` built, no DVC cache), then ``make env``
(``.venv`` from the lock files: pip, with this machine's pip cache, as on any machine that installed them
before) and ``make build`` (``.venv`` is then current, so this is the pipeline: ``dvc repro``, the relink,
``summary``, ``verify``, ``check-card``), each timed as wall and CPU seconds of its whole process tree. The
output is read as it comes: seconds per DVC stage (from the line naming a stage to the next, DVC's hashing and
committing included) and per command after the repro (from the line ``make`` echoes before it). Then the
no-op ``dvc repro`` in the built clone, ``repeat`` times.
"""

from __future__ import annotations

import os
import resource
import statistics
import subprocess
import time
from pathlib import Path
from typing import Any

import yaml
from pipeline_e2e import STAGE_LINE, dvc_env, git_copy

REPO = Path(__file__).resolve().parent.parent
# The commands `make build` runs after `dvc repro` (the Makefile echoes each before running it).
AFTER_REPRO = ("dvc checkout --relink", "groundbench summary", "groundbench verify", "groundbench check-card")


def _children_cpu_s() -> float:
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def clone_env() -> dict[str, str]:
    """The caller's environment without its virtualenv: the clone's Makefile puts the clone's own first."""
    env = dvc_env()
    venv = os.environ.get("VIRTUAL_ENV")
    parts = [p for p in env["PATH"].split(os.pathsep) if not (venv and p.startswith(venv))]
    parts = [p for p in parts if not p.startswith(str(REPO / ".venv"))]
    env["PATH"] = os.pathsep.join(parts)
    env.pop("VIRTUAL_ENV", None)
    return env


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> dict[str, Any]:
    """Run ``command``; its wall and CPU seconds, and the seconds from each marker line to the next."""
    cpu, started = _children_cpu_s(), time.perf_counter()
    parts: dict[str, float] = {}
    current, since = "start", started
    lines: list[str] = []
    with subprocess.Popen(
        command,
        cwd=cwd,
        env=dict(env, PYTHONUNBUFFERED="1"),
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    ) as process:
        assert process.stdout is not None
        for line in process.stdout:
            lines.append(line)
            named = STAGE_LINE.match(line)
            echoed = line.startswith(".venv/bin/")  # make's echo of its next command
            label = named.group(1) if named else next((c for c in AFTER_REPRO if echoed and c in line), None)
            if label and label != current:
                now = time.perf_counter()
                parts[current] = round(now - since, 2)
                current, since = label, now
    parts[current] = round(time.perf_counter() - since, 2)
    if process.returncode:
        raise RuntimeError(f"{' '.join(command)} failed:\n{''.join(lines)[-6000:]}")
    return {
        "wall_s": round(time.perf_counter() - started, 1),
        "cpu_s": round(_children_cpu_s() - cpu, 1),
        "parts_s": parts,
        "stages_run": sum(line.startswith("Running stage") for line in lines),
    }


def noop_repro(repo: Path, env: dict[str, str], repeat: int) -> dict[str, Any]:
    """``dvc repro`` with nothing changed, ``repeat`` times: each run's wall and CPU seconds, and the medians."""
    runs = []
    for _ in range(repeat):
        cpu, started = _children_cpu_s(), time.perf_counter()
        done = subprocess.run([".venv/bin/dvc", "repro"], cwd=repo, env=env, capture_output=True, text=True, check=True)
        runs.append((time.perf_counter() - started, _children_cpu_s() - cpu))
        assert "Running stage" not in done.stdout, done.stdout
    return {
        "noop_s": [round(wall, 2) for wall, _ in runs],
        "noop_cpu_s": [round(cpu, 2) for _, cpu in runs],
        "noop_median_s": round(statistics.median(wall for wall, _ in runs), 2),
        "noop_cpu_median_s": round(statistics.median(cpu for _, cpu in runs), 2),
    }


def measure_sample_build(target: Path, repeat: int = 5) -> dict[str, Any]:
    """A fresh clone at ``target``, built with ``make env`` and ``make build`` (kept: the caller measures
    start-up and DVC's share in it, then removes it)."""
    repo = git_copy(target, yaml.safe_load((REPO / "params.yaml").read_text()))
    env = clone_env()
    print("  make env (pip, from the lock files) on a fresh clone ...", flush=True)
    pip = timed(["make", "env"], repo, env)
    print(f"    {pip['wall_s']:.0f} s ({pip['cpu_s']:.0f} CPU s)", flush=True)
    print("  make build (the pipeline: dvc repro, relink, summary, verify, check-card) ...", flush=True)
    build = timed(["make", "build"], repo, env)
    print(f"    {build['wall_s']:.0f} s ({build['cpu_s']:.0f} CPU s), {build['stages_run']} stages", flush=True)
    repro = sum(s for name, s in build["parts_s"].items() if name not in AFTER_REPRO)
    noop = noop_repro(repo, env, repeat)
    print(f"  no-op dvc repro: {', '.join(map(str, noop['noop_s']))} s", flush=True)
    return {
        "pip": pip,
        "pipeline": build,
        "repro_s": round(repro, 1),
        "whole_s": round(pip["wall_s"] + build["wall_s"], 1),
        **noop,
    }
