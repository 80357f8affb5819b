"""Shared fixtures: the embedded samples written once per test run, throw-away project roots, and
``build_all``, whose identical builds are made once per run (see tests/support/builds.py)."""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

from groundbench.cli import main
from groundbench.converters.gapartnet.sample import write_sample as write_gapartnet_sample
from groundbench.converters.umd.sample import write_sample
from tests.support import builds

REPO = Path(__file__).resolve().parents[1]
# The real-format annotation fixtures beside the project (GROUNDBENCH_SHARED points elsewhere, e.g. from a git
# worktree); tests that read them skip when they are absent, and fail instead under CI (CI=true), where a
# missing ../shared must not pass for a green run.
SHARED = Path(os.environ.get("GROUNDBENCH_SHARED", REPO.parent / "shared"))
UMD_FIXTURES = SHARED / "fixtures" / "real" / "umd"
CI = os.environ.get("CI", "").strip().lower() in ("1", "true", "yes")

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("DVC_NO_ANALYTICS", "1")
# Loopback servers (tests/support/loopback.py, hubstub.py, openai_stub.py) must never be reached through a proxy.
for _variable in ("NO_PROXY", "no_proxy"):
    os.environ[_variable] = ",".join(filter(None, [os.environ.get(_variable), "127.0.0.1", "localhost"]))
# A suite started in the background of a non-interactive shell (`make test &`) inherits SIGINT ignored, and every
# child it starts would too (an ignored signal stays ignored across exec): the Ctrl-C cases need Python's default.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)


def needs(folder: Path) -> pytest.MarkDecorator:
    """Mark a test that reads ``folder`` (under ../shared): skipped when it is absent, failed under CI."""
    if folder.is_dir():
        return pytest.mark.usefixtures()
    if CI:
        return pytest.mark.shared_missing(str(folder))
    return pytest.mark.skip(reason=f"{folder} is not beside the project (../shared)")


def shared_or_skip(folder: Path) -> None:
    """Inside a test: stop when ``folder`` (under ../shared) is absent; a failure under CI."""
    if folder.is_dir():
        return
    if CI:
        pytest.fail(f"{folder} is missing and CI=true: the tests that read ../shared must run under CI")
    pytest.skip(f"{folder} is not beside the project (../shared)")


def pytest_runtest_setup(item: pytest.Item) -> None:
    missing = item.get_closest_marker("shared_missing")
    if missing is not None:
        pytest.fail(f"{missing.args[0]} is missing and CI=true: the tests that read ../shared must run under CI")


needs_shared = needs(UMD_FIXTURES)


@pytest.fixture(scope="session", autouse=True)
def _shared_builds(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Where builds shared by every worker of this run live (tests/support/builds.py)."""
    builds.RUN_DIR = builds.run_dir(tmp_path_factory.getbasetemp())


@pytest.fixture(autouse=True)
def _no_data_from_the_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    """A GROUNDBENCH_DATA in the developer's shell would win over every test's --root (core/datafolder.py);
    a COLUMNS (xdist's workers get COLUMNS=80) would set the width of every result table a test reads."""
    monkeypatch.delenv("GROUNDBENCH_DATA", raising=False)
    monkeypatch.delenv("COLUMNS", raising=False)


@pytest.fixture(scope="session")
def umd_sample(_shared_builds: None) -> Path:
    """A pristine embedded UMD sample (written once per run); copy it before changing anything (``umd_tree``)."""
    return builds.once("umd_sample", lambda folder: write_sample(folder / "umd")) / "umd"


@pytest.fixture(scope="session")
def gapartnet_rendered(_shared_builds: None) -> Path:
    """The embedded GAPartNet sample at the default size, rendered once per run (read only: conversion never
    writes to a source; copy it before changing anything)."""
    return builds.once("gapartnet_sample", lambda folder: write_gapartnet_sample(folder / "gapartnet")) / "gapartnet"


@pytest.fixture(scope="session")
def published_sample(umd_sample: Path) -> Path:
    """The embedded UMD and ScreenSpot-Pro samples, published once per run (tests/support/frames.py)."""
    from tests.support.frames import published_sample as build

    return build(umd_sample)


@pytest.fixture
def umd_tree(umd_sample: Path, tmp_path: Path) -> Path:
    """A private copy of the sample that a test may damage."""
    target = tmp_path / "umd_source"
    shutil.copytree(umd_sample, target, symlinks=True)
    return target


@pytest.fixture
def project(tmp_path: Path, umd_tree: Path) -> Path:
    """A project root (params.yaml + audit file) whose UMD source is ``umd_tree``, one worker."""
    root = tmp_path / "project"
    (root / "data" / "audits").mkdir(parents=True)
    shutil.copy(REPO / "data" / "audits" / "curated_umd.yaml", root / "data" / "audits" / "curated_umd.yaml")
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = str(umd_tree)
    params["umd"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def digests(root: Path, folders: tuple[str, ...]) -> dict[str, str]:
    """sha256 of every file under ``folders`` (relative to ``root``), keyed by relative path."""
    return {
        str(path.relative_to(root)): hashlib.sha256(path.read_bytes()).hexdigest()
        for folder in folders
        for path in sorted((root / folder).rglob("*"))
        if path.is_file()
    }


def dead_pid() -> int:
    """The id of a process that has ended (and was reaped): what a killed run's temporaries carry."""
    child = subprocess.Popen(["true"])
    child.wait()
    return child.pid


def run_cli(root: Path, *args: str) -> int:
    """Run the CLI in-process (output goes to the captured stdout/stderr)."""
    return main(["--root", str(root), *args])


UMD_STAGES = (
    ("convert", "umd", "--quiet"),
    ("bake", "curated_umd", "bulk_umd"),
    ("store",),
    ("assemble",),
)


def umd_project(root: Path, umd_source: Path, *also: str) -> Path:
    """A project root reading ``umd_source`` with one worker: params.yaml, the UMD audit and ``also``
    (files of the repository, e.g. requirements.lock, which the card check reads)."""
    (root / "data" / "audits").mkdir(parents=True)
    for name in ("data/audits/curated_umd.yaml", *also):
        shutil.copy(REPO / name, root / name)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"]["umd"] = str(umd_source)
    params["umd"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    return root


def sample_umd_project(root: Path, umd_sample: Path) -> Path:
    """A project root reading the UMD sample as ``sample`` in params.yaml (so its build is synthetic and says
    so), the other sources null, one worker; with the UMD audit and requirements.lock."""
    (root / "data" / "audits").mkdir(parents=True)
    for name in ("data/audits/curated_umd.yaml", "requirements.lock"):
        shutil.copy(REPO / name, root / name)
    params = yaml.safe_load((REPO / "params.yaml").read_text())
    params["sources"].update(umd="sample", gapartnet=None)
    params["sources"]["gui"] = dict.fromkeys(params["sources"]["gui"])
    params["umd"]["workers"] = 1
    (root / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    shutil.copytree(umd_sample, root / params["sample"]["root"] / "umd")
    return root


def build_all(root: Path) -> None:
    """Run every stage the way dvc.yaml does, without DVC (a copy of an identical earlier build of this run)."""
    builds.run_stages(root, UMD_STAGES, lambda where, command: run_cli(where, *command))


# Longest files first (measured with --durations on 2 cores). `make test` hands whole files to two workers
# in collection order (--no-loadscope-reorder: by default xdist starts with the files holding the most
# tests, which leaves these long few-test files for last), and a run ends when its last file does: a long
# file picked up last leaves the other worker idle. test_dvc.py makes the run's one `dvc repro`
# (tests/support/dvcrepo.py) that test_dvc_s3.py, test_scoring_built.py and test_faults_integrity.py read, so it
# starts at once (on the other worker) and they come later. Only the order changes: no test depends on
# another having run.
LONGEST_FIRST = (
    "test_benchmark.py",
    "test_dvc.py",
    "test_fetch_dvc.py",
    "test_faults.py",
    "test_faults_network.py",
    "test_faults_signals.py",
    "test_faults_os.py",
    "test_card.py",
    "test_eval.py",
    "test_dvc_s3.py",
    "test_scoring_built.py",
    "test_faults_integrity.py",
)


# `make test-fast` (-m "not slow") is the suite a developer runs between edits, within 3 minutes on 2 cores. Besides
# the tests marked `slow` where they are written (whole builds, DVC, the browser, the benchmark, Dask), these
# are `slow` too: each runs the CLI as a user does, in a child process, many times over (each start pays
# a second or more of imports), or a whole stage many times. `make test` runs them all; so does naming the file.
SLOW_FILES = {
    "tests/cli/test_cli_project.py": "every command twice in a child process, from a subfolder and with --root",
    "tests/cli/test_cli_user.py": "every command in a child process, on pipes and on a pseudo-terminal",
    "tests/cli/test_notice.py": "every command that reads a sample build in a child process",
    "tests/evaluate/test_eval_folder.py": "eval runs in child processes, interrupted with Ctrl-C and resumed",
    "tests/faults/test_faults_network.py": "the fault suite: child processes against failing loopback servers",
    "tests/faults/test_faults_os.py": "the fault suite: child processes on full, read-only and denied file systems",
    "tests/loaders/test_hub_dataset.py": "a build of every source, published to a loopback Hub, read back",
    "tests/tools/test_publish.py": "publish runs (some killed) against a loopback Hub",
}
SLOW_TESTS = {
    "tests/tools/test_integrity.py::test_a_single_byte_flip_anywhere_in_any_artifact_is_caught": "294 whole verifies",
    "tests/review/test_report.py::test_two_builds_are_byte_identical": "two whole galleries",
    "tests/pipeline/test_dvc_deps.py::test_a_stage_process_loads_the_folders_its_deps_name": "a process per stage",
    "tests/evaluate/test_eval.py::test_stub_server_gets_our_prompt_and_image_and_a_killed_run_resumes": "eval killed",
}


def _mark_slow(items: list[pytest.Item]) -> None:
    stale = [path for path in (*SLOW_FILES, *(t.split("::")[0] for t in SLOW_TESTS)) if not (REPO / path).is_file()]
    for item in items:
        path = item.path.relative_to(REPO).as_posix() if item.path.is_relative_to(REPO) else str(item.path)
        if path in SLOW_FILES or f"{path}::{getattr(item, 'originalname', item.name)}" in SLOW_TESTS:
            item.add_marker(pytest.mark.slow)
        module = getattr(item, "module", None)
        # a listed test renamed would silently join `make test-fast`
        stale += [t for t in SLOW_TESTS if t.startswith(f"{path}::") and not hasattr(module, t.split("::")[1])]
    if stale:
        raise pytest.UsageError(f"tests/conftest.py SLOW_FILES / SLOW_TESTS name no test: {sorted(set(stale))}")


@pytest.hookimpl(tryfirst=True)  # before -m "not slow" deselects
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    _mark_slow(items)
    rank = {name: index for index, name in enumerate(LONGEST_FIRST)}
    items.sort(key=lambda item: rank.get(item.path.name, len(rank)))  # stable: the rest keep their order


# The fault suite (tests/faults/test_faults*.py): every test records its cases through this fixture; the section of
# docs/reliability.md made of them is compared once the whole run is over (tests/support/reliability.py).


@pytest.fixture
def fault_case(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[Any]:
    """``fault_case.record(fault_class, case, exit=..., shown=..., rerun=...)`` after a case's checks held."""
    from tests.support.reliability import FaultRecorder

    recorder = FaultRecorder(request.node, [tmp_path, tmp_path.parent])
    yield recorder
    if recorder.cases == 0:
        pytest.fail("a test of the fault suite must record its cases (fault_case.record)")


@pytest.fixture(autouse=True)
def _fault_suite_records(request: pytest.FixtureRequest) -> None:
    """Every test in a tests/faults/test_faults*.py file takes part in the generated section."""
    from tests.support.reliability import FAULT_FILES

    if request.node.path.match(FAULT_FILES) and "fault_case" not in request.fixturenames:
        pytest.fail("a test of the fault suite must use the fault_case fixture and record its cases")


def _fault_nodes(ids: list[str]) -> set[str]:
    from tests.support.reliability import FAULT_FILES

    return {node for node in ids if Path(node.split("::")[0]).match(FAULT_FILES)}


def _whole_run(config: pytest.Config) -> bool:
    """No -k, -m, --deselect, --lf or node id picked a part of the collected files."""
    picked = config.getoption("keyword") or config.getoption("markexpr") or config.getoption("deselect")
    return not picked and not config.getoption("lf", False) and not any("::" in str(a) for a in config.args)


def pytest_collection_finish(session: pytest.Session) -> None:
    from tests.support import reliability

    if getattr(session.config, "workerinput", None) is None:  # one process (no xdist)
        reliability.FAULT_COLLECTED |= _fault_nodes([item.nodeid for item in session.items])


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_node_collection_finished(node: Any, ids: list[str]) -> None:
    from tests.support import reliability

    reliability.FAULT_COLLECTED |= _fault_nodes(ids)


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    from tests.support import reliability

    if not _fault_nodes([report.nodeid]):
        return
    # setup, call and teardown all passed (a skip does not count: its cases are missing from the section)
    reliability.FAULT_RESULTS[report.nodeid] = reliability.FAULT_RESULTS.get(report.nodeid, True) and report.passed
    if report.when == "call" and report.passed:
        reliability.FAULT_CASES.extend(value for name, value in report.user_properties if name == reliability.PROPERTY)


def _check_fault_section(session: pytest.Session) -> None:
    from tests.support import reliability

    if not _whole_run(session.config) or not reliability.fault_suite_complete():
        return  # part of the suite ran: no section from part of the cases
    problem = reliability.check_fault_section()
    if problem:
        print(f"\n{problem}", file=sys.stderr)
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    print(
        f"\nfault suite: docs/reliability.md's section holds this run's {len(reliability.FAULT_CASES)} cases",
        file=sys.stderr,
    )


# The reliability table (tests/support/reliability.py): written once the whole run is over, from the campaigns every
# hardening file recorded, so that no test has to run after the others.


@pytest.hookimpl(optionalhook=True)
def pytest_testnodedown(node: Any, error: object) -> None:
    """xdist controller: take a finished worker's campaigns."""
    campaigns = getattr(node, "workeroutput", {}).get("reliability_campaigns")
    if campaigns:
        from tests.support import reliability

        reliability.merge(campaigns)


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    reliability = sys.modules.get("tests.support.reliability")
    workeroutput = getattr(session.config, "workeroutput", None)
    if workeroutput is not None:  # an xdist worker: hand the campaigns to the controller
        if reliability is not None:
            workeroutput["reliability_campaigns"] = reliability.campaigns_json(reliability.CAMPAIGNS)
        return
    _check_fault_section(session)
    if reliability is None or not reliability.CAMPAIGNS:
        return  # no hardening test ran
    missing = reliability.missing_campaigns()
    if missing:  # some of the hardening tests ran (-k, one file, a failure): no table from part of the campaigns
        if os.environ.get("GROUNDBENCH_WRITE_RELIABILITY"):
            print(f"\nreliability table NOT written: {missing} fuzz campaigns did not run", file=sys.stderr)
            session.exitstatus = pytest.ExitCode.TESTS_FAILED
        return
    print(f"\nreliability table: {reliability.write_table()}", file=sys.stderr)
