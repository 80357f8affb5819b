"""Does caching the interim folder in DVC cost the pipeline anything? An A/B run of the UMD stages.

The interim folder (``data/interim/<source>``) is read only by the bake (and GAPartNet's derive stages); no
user fetches it. DVC hashes it after the convert stage and commits it into the cache. This runs
``dvc repro -s code sample_umd convert_umd bake_umd`` twice on the same generated UMD tree (``sources.py``, at
``--scale``), in two git copies of the project that differ only in ``data/interim/umd`` being a cached output
(as ``dvc.yaml`` has it) or ``cache: false``, and prints DVC's seconds per stage (from the line naming a stage
to the next: the command, then DVC hashing and committing its outputs) and CPU seconds of both runs.

Run: ``.venv/bin/python benchmarks/interim_cache.py --scale 0.2 --workdir DIR`` (~1 GB of interim at 0.2).
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
from pathlib import Path

import yaml
from measure import run_in_child
from pipeline_e2e import child_dvc_repro, git_copy
from sources import build_umd

REPO = Path(__file__).resolve().parent.parent
STAGES = ["convert_umd", "bake_umd"]


def params(tree: str, audit: str | None) -> dict:
    raw = yaml.safe_load((REPO / "params.yaml").read_text())
    raw["sources"] = {"umd": tree, "gui": dict.fromkeys(raw["sources"]["gui"]), "gapartnet": None}
    raw["umd"]["audit"] = audit
    return raw


def uncached(repo: Path) -> None:
    """``data/interim/umd`` as a DVC output that is hashed but not committed to the cache."""
    path = repo / "dvc.yaml"
    text = path.read_text()
    cached = "      - data/interim/umd:\n          persist: true\n"
    assert text.count(cached) == 1
    path.write_text(text.replace(cached, cached + "          cache: false\n"))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scale", type=float, default=0.2, help="fraction of UMD's 28,843 frames (default 0.2)")
    parser.add_argument("--workdir", type=Path, default=None)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="groundbench-interim-", dir=args.workdir))
    try:
        built = build_umd(work / "sources", args.scale)
        print(f"UMD at scale {args.scale}: {built.note}, {built.bytes / 1e9:.2f} GB", flush=True)
        figures = {}
        for name in ("cached", "cache: false"):
            repo = git_copy(work / name.replace(": ", "_"), params(built.roots["tree"], built.audit))
            if name != "cached":
                uncached(repo)
            run_in_child(child_dvc_repro, str(repo), ["code", "sample_umd"])  # not timed: what the stages read
            usage, _ = run_in_child(child_dvc_repro, str(repo), STAGES)
            figures[name] = usage
            per_stage = ", ".join(f"{k} {v:.1f} s" for k, v in usage.result["stage_wall_s"].items())
            print(f"{name}: {usage.wall_s:.1f} s wall, {usage.cpu_s:.1f} CPU s ({per_stage})", flush=True)
            shutil.rmtree(repo, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    a, b = figures["cached"], figures["cache: false"]
    print(f"cache: false saves {a.wall_s - b.wall_s:.1f} s wall, {a.cpu_s - b.cpu_s:.1f} CPU s of {a.wall_s:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
