"""The ``groundbench`` command's entry: a stage process loads its own stage module only (never the user
commands' parser), ``python -m groundbench`` works, and ``--help`` lists the user commands first."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from groundbench.commands import STAGES, command_name
from tests.pipeline.test_dvc_deps import spec_modules
from tests.support.faults import child_env

# Runs `groundbench store` on an empty project, then reports which modules the process had imported.
AUDIT = (
    "import json, sys\n"
    "from groundbench.entry import main\n"
    "status = main(sys.argv[1:])\n"
    "print(json.dumps({'status': status, 'modules': sorted(sys.modules)}))\n"
)


def test_a_stage_process_imports_its_stage_only(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-c", AUDIT, "--root", str(tmp_path), "store"], capture_output=True, text=True, check=True
    )
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["status"] == 0, result.stderr
    modules = set(report["modules"])
    assert "groundbench.stages.store" in modules
    assert not {m for m in modules if m.startswith("groundbench.commands.")} - {"groundbench.commands.protocol"}
    other_stages = {m for m in STAGES.values() if m != "groundbench.stages.store"}
    assert not modules & other_stages
    # Of the source folders, only what the registry reads on import (their packages, specs and params models).
    assert not {m for m in modules if m.startswith(("groundbench.converters", "groundbench.scoring", "pandera"))} - (
        spec_modules()
    )


def test_python_m_groundbench_lists_user_commands_before_the_stages() -> None:
    result = subprocess.run([sys.executable, "-m", "groundbench", "--help"], capture_output=True, text=True, check=True)
    text = result.stdout
    users, stages = text.index("user commands"), text.index("pipeline stages")
    assert users < stages
    for command in ("requests", "eval", "score", "compare", "preview", "fetch", "verify"):
        assert users < text.index(f"\n  {command} ") < stages, command
    for command in STAGES:
        assert text.index(f"\n  {command} ") > stages, command


def test_the_command_is_the_first_word_after_the_global_options() -> None:
    assert command_name(["--root", "x", "convert", "umd"]) == "convert"
    assert command_name(["--debug", "bake", "curated_umd"]) == "bake"
    assert command_name(["--help"]) is None


MOMENTS = random.Random(20261203)


@pytest.mark.parametrize("moment", sorted(round(MOMENTS.uniform(0.15, 0.45), 3) for _ in range(3)))
def test_a_ctrl_c_before_the_command_starts_ends_in_one_line(tmp_path: Path, moment: float) -> None:
    """SIGINT to the console script while it imports and builds the parser (before the command's own handling):
    the same one line and exit status as a Ctrl-C during a command. The bake stage is the command whose
    imports last longest (pyarrow, pandera: about a second), so the moments fall inside them."""
    script = Path(sys.executable).parent / "groundbench"
    process = subprocess.Popen(
        [str(script), "--root", str(tmp_path), "bake", "curated_umd"], env=child_env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    time.sleep(moment)
    assert process.poll() is None, "the command ended before it could be interrupted"
    os.killpg(process.pid, signal.SIGINT)
    _, err = process.communicate(timeout=120)
    assert process.returncode == 130, err
    assert [line for line in err.splitlines() if line.strip()] == [
        "error: interrupted (Ctrl-C): nothing half-written is kept; run the same command again"
    ]


# Records whether the cyclic collector runs inside and after collector.loading() blocks, nested and not.
COLLECTOR = (
    "import gc, json\n"
    "from groundbench.core.collector import loading\n"
    "seen = []\n"
    "with loading():\n"
    "    seen.append(gc.isenabled())\n"
    "    with loading():\n"
    "        seen.append(gc.isenabled())\n"
    "    seen.append(gc.isenabled())\n"
    "    kept = [[] for _ in range(1000)]\n"
    "seen.append(gc.isenabled())\n"
    "frozen = gc.get_freeze_count()\n"
    "gc.disable()\n"
    "with loading():\n"
    "    pass\n"
    "seen.append(gc.isenabled())\n"
    "from groundbench.entry import main\n"
    "gc.enable()\n"
    "status = main(['version', 'show'])\n"
    "print(json.dumps({'seen': seen, 'frozen': frozen, 'after': gc.isenabled(), 'status': status}))\n"
)


def test_the_collector_is_paused_while_loading_only() -> None:
    """A command loads without the cyclic collector and runs with it: a block turns it off, an inner block leaves
    it to the outer one, the loaded objects are frozen out of later scans, and a caller's choice to run without
    it is kept."""
    result = subprocess.run([sys.executable, "-c", COLLECTOR], capture_output=True, text=True, check=True)
    report = json.loads(result.stdout.splitlines()[-1])
    assert report["seen"] == [False, False, False, True, False]
    assert report["frozen"] >= 1000  # the block's lists among them
    assert report["after"] is True and report["status"] == 0
