"""The fault suite, interruptions and concurrency: Ctrl-C (SIGINT to the process group, as a terminal
sends it) and SIGTERM at seeded moments while a stage writes, and two runs on the same project at once.

A signal is sent once the run is writing its output (its hidden temporary exists), after a seeded
delay; a run that finished first is started again (bounded). Each case checks: exit 130 / 143, one
``error:`` line and no stack (workers included), nothing half-written or left behind, and that the
same command run again restores byte-identical outputs.
"""

from __future__ import annotations

import os
import random
import signal
import subprocess
import time
from collections.abc import Callable
from pathlib import Path

import pytest
import yaml

from groundbench.core.atomic import HOST
from tests.conftest import build_all, dead_pid, digests
from tests.support.faults import (
    assert_nothing_half_written,
    child_env,
    cli_command,
    error_line,
    hidden_temporaries,
    run,
)
from tests.support.loopback import FileServer

pytestmark = pytest.mark.slow  # whole stages, interrupted and run again

SEED = 20261202
OUTPUTS = ("data/interim", "data/shards", "data/manifests", "data/images", "data/groundbench")
SIGINT = "Ctrl-C (SIGINT to the process group)"
SIGTERM = "SIGTERM"
CONCURRENT = "concurrent runs of one project"
ATTEMPTS = 5


@pytest.fixture
def built(project: Path) -> Path:
    """A complete UMD build; convert runs with two worker processes (a terminal's Ctrl-C reaches them too)."""
    build_all(project)
    params = yaml.safe_load((project / "params.yaml").read_text())
    params["umd"]["workers"] = 2
    (project / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return project


def _writing(folder: Path, name: str) -> Callable[[], bool]:
    """True once a run has started writing ``folder/name`` (its hidden temporary exists)."""
    return lambda: any(folder.glob(f".{name}.*.tmp"))


def _interrupt(
    command: list[str], writing: Callable[[], bool], signum: int, group: bool, rng: random.Random, late: float = 0.3
) -> subprocess.CompletedProcess[str]:
    """Run ``command``; once ``writing()`` holds, wait a seeded moment (up to ``late`` s) and send ``signum``.

    A run the signal reached only after its work was done (it exits without our handler) counts as
    finished first, and is started again.
    """
    status = 130 if signum == signal.SIGINT else 143
    for _ in range(ATTEMPTS):
        process = subprocess.Popen(
            command, env=child_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True
        )
        deadline = time.monotonic() + 300
        while process.poll() is None and not writing() and time.monotonic() < deadline:
            time.sleep(0.001)  # a stage's write can last a few milliseconds (the store's, below)
        time.sleep(rng.uniform(0.0, late))
        sent = process.poll() is None
        if sent and group:
            os.killpg(process.pid, signum)
        elif sent:
            process.send_signal(signum)
        out, err = process.communicate(timeout=300)
        if sent and process.returncode == status:
            return subprocess.CompletedProcess(command, process.returncode, out, err)
    pytest.fail(f"{command} finished before it could be interrupted, {ATTEMPTS} times")


@pytest.mark.parametrize(
    ("signum", "group", "stage", "parent", "name", "late"),
    [
        (signal.SIGINT, True, ["convert", "umd", "--quiet"], "data/interim", "umd", 0.3),
        (signal.SIGINT, True, ["store"], "data", "images", 0.002),  # its 36 images: ~5 ms on one thread per core
        (signal.SIGINT, True, ["assemble"], "data", "groundbench", 0.1),
        (signal.SIGTERM, False, ["convert", "umd", "--quiet"], "data/interim", "umd", 0.3),
        (signal.SIGTERM, True, ["assemble"], "data", "groundbench", 0.1),
    ],
)
def test_a_stage_interrupted_while_it_writes(
    built: Path, signum: int, group: bool, stage: list[str], parent: str, name: str, late: float, fault_case
) -> None:
    expected = digests(built, OUTPUTS)
    rng = random.Random(f"{SEED}-{signum}-{stage[0]}")
    writing = _writing(built / parent, name)
    result = _interrupt(cli_command(built, *stage), writing, signum, group, rng, late)
    line = error_line(result)  # the workers' stderr is the same pipe: no stack from them either
    status, said = (130, "interrupted (Ctrl-C)") if signum == signal.SIGINT else (143, "terminated (SIGTERM)")
    assert result.returncode == status and line.startswith(f"error: {said}: nothing half-written is kept")
    assert hidden_temporaries(built / "data") == []
    assert_nothing_half_written(built)
    assert run(cli_command(built, *stage)).returncode == 0
    assert digests(built, OUTPUTS) == expected
    to = "the process group" if group else "the process"
    kind = SIGINT if signum == signal.SIGINT else SIGTERM
    case = f"{' '.join(s for s in stage if s != '--quiet')}, sent to {to} while it writes {parent}/{name}"
    fault_case.record(kind, case, exit=status, shown=line, rerun="rerun: byte-identical outputs")


@pytest.mark.parametrize(("signum", "status"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_download_interrupted_is_resumed(tmp_path: Path, signum: int, status: int, fault_case) -> None:
    import hashlib
    import shutil

    from tests.conftest import REPO
    from tests.support.fetch_sources import UMD_PATH, umd_tarball

    root = tmp_path / "fetching"
    root.mkdir()
    shutil.copy(REPO / "params.yaml", root / "params.yaml")
    archive = umd_tarball(tmp_path / "release", frames_per_tool=4)  # ~2 MB: the client reads 1 MiB at a time
    vouch = ("--sha256", hashlib.sha256(archive).hexdigest())
    download = root / "data/sources/umd/.download"
    part = download / "part-affordance-dataset-tools.tar.gz.part"
    rng = random.Random(f"{SEED}-download-{signum}")
    with FileServer({UMD_PATH: archive}, pace=0.02) as server:  # ~800 KiB/s: the download takes seconds
        command = cli_command(root, "fetch", "umd", "--url", server.url + UMD_PATH, *vouch, "--quiet")
        result = _interrupt(command, lambda: part.is_file() and part.stat().st_size > 0, signum, True, rng)
        line = error_line(result)
        assert result.returncode == status
        kept = part.stat().st_size
        assert 0 < kept < len(archive) and part.read_bytes() == archive[:kept]
        assert (
            not (root / "data/sources/umd/tree").exists() and not (root / "data/sources/umd/provenance.json").exists()
        )
    with FileServer({UMD_PATH: archive}) as server:
        command = cli_command(root, "fetch", "umd", "--url", server.url + UMD_PATH, *vouch, "--quiet")
        assert run(command).returncode == 0
        assert [r[2] for r in server.requests if r[0] == "GET"] == [f"bytes={kept}-"]
    kind = SIGINT if signum == signal.SIGINT else SIGTERM
    rerun = "rerun resumes the download (Range) and pins the archive"
    fault_case.record(kind, "fetch umd, while it downloads", exit=status, shown=line, rerun=rerun)


# concurrent runs ----------------------------------------------------------------------------------------


def test_a_second_run_of_a_stage_refuses_and_a_cleanup_spares_a_run_in_progress(built: Path, fault_case) -> None:
    """The first convert is stopped (SIGSTOP) while it writes; meanwhile a second convert refuses and
    another stage's cleanup of leftovers runs. Resumed, the first finishes with the reference bytes."""
    expected = digests(built, OUTPUTS)
    first = subprocess.Popen(
        cli_command(built, "convert", "umd", "--quiet"), env=child_env(), stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
    )  # fmt: skip
    writing = _writing(built / "data/interim", "umd")
    deadline = time.monotonic() + 300
    while first.poll() is None and not writing() and time.monotonic() < deadline:
        time.sleep(0.005)
    os.killpg(first.pid, signal.SIGSTOP)
    try:
        assert first.poll() is None, "the first run ended before it could be held"
        in_progress = sorted((built / "data/interim").glob(".umd.*.tmp"))
        second = run(cli_command(built, "convert", "umd", "--quiet"))
        line = error_line(second)
        assert second.returncode == 2
        assert line == (
            "error: data/.locks/convert-umd.lock: lock: another run is writing convert-umd in this project; "
            "wait for it to finish, then run again"
        )
        other = run(cli_command(built, "store"))  # a different stage: its cleanup runs now
        assert other.returncode == 0, other.stderr
        assert sorted((built / "data/interim").glob(".umd.*.tmp")) == in_progress  # untouched
    finally:
        os.killpg(first.pid, signal.SIGCONT)
    out, err = first.communicate(timeout=300)
    assert first.returncode == 0, err
    assert digests(built, OUTPUTS) == expected
    rerun = "the first run completes: byte-identical outputs; the second, rerun later, succeeds"
    fault_case.record(CONCURRENT, "convert umd twice at once (the second while the first writes)", exit=2,
                      shown=line, rerun=rerun)  # fmt: skip
    assert run(cli_command(built, "convert", "umd", "--quiet")).returncode == 0
    assert digests(built, OUTPUTS) == expected


def test_the_cleanup_removes_only_temporaries_of_ended_runs(built: Path, fault_case) -> None:
    interim = built / "data/interim"
    dead = interim / f".umd.{dead_pid()}@{HOST}.killed.tmp"  # a killed run's half-written folder
    alive = interim / f".umd.{os.getpid()}@{HOST}.running.tmp"  # a running process's (this test's)
    unknown = interim / ".umd.no_writer_named.tmp"  # not named by GroundBench's atomic writes
    for folder in (dead, alive, unknown):
        (folder / "bulk_umd").mkdir(parents=True)
        (folder / "bulk_umd" / "test-00000-of-00001.arrow").write_bytes(b"half")
    expected = digests(built, ("data/shards", "data/manifests", "data/groundbench"))
    result = run(cli_command(built, "convert", "umd", "--quiet"))
    assert result.returncode == 0, result.stderr
    assert not dead.exists() and alive.is_dir() and unknown.is_dir()
    assert digests(built, ("data/shards", "data/manifests", "data/groundbench")) == expected
    shown = "removed the ended run's temporary; kept the running process's and the unnamed one"
    fault_case.record(CONCURRENT, "a stage starts beside three hidden temporaries", exit=0, shown=shown,
                      rerun="n/a")  # fmt: skip
