"""The fault suite, operating-system faults: a full disk, read-only targets, permission denied, an ASCII
terminal, a bug, missing inputs and nonsense knobs, each met by the real CLI in a child process.

Each case checks what the user sees (one ``error:`` line, no stack), that nothing partial or damaged
was kept, and that the documented rerun (after freeing space, fixing the permission, ...) restores
byte-identical outputs. How the faults are injected: tests/support/faults.py.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
from pathlib import Path

import pytest
import yaml

from tests.conftest import build_all, digests, umd_project
from tests.support.faults import (
    child_env,
    cli_command,
    denied,
    error_line,
    hidden_temporaries,
    on_full_disk,
    on_read_only,
    run,
)
from tests.support.loopback import FileServer

UMD_OUTPUTS = ("data/interim", "data/shards", "data/manifests", "data/images", "data/groundbench")
ENOSPC = "disk full (ENOSPC)"
EROFS = "read-only file system (EROFS)"
EACCES = "permission denied (EACCES)"
RERUN_SAME = "rerun: byte-identical outputs"


@pytest.fixture
def built(project: Path) -> Path:
    """A complete UMD build with its own copy of the source (a test may change either)."""
    build_all(project)
    return project


def _reference(root: Path) -> dict[str, str]:
    return digests(root, UMD_OUTPUTS)


def _mock_eval(root: Path, out: Path, home: Path, *extra: str) -> list[str]:
    """``eval`` with the offline mock model; the caches live under ``home``."""
    return cli_command(
        root, "eval", "curated_umd", "--condition", "part_named", "--model", "mockllm/model", "--out", str(out),
        "--display", "none", *extra,
    )  # fmt: skip


def _home_env(home: Path) -> dict[str, str]:
    """HOME holds every cache (datasets, huggingface_hub, inspect): no XDG or HF_HOME elsewhere."""
    env = {k: v for k, v in child_env().items() if not k.startswith(("XDG_", "HF_HOME", "HF_DATASETS_CACHE"))}
    env["HOME"] = str(home)
    return env


@pytest.fixture(scope="module")
def mock_run(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """An eval run folder of curated_umd (the mock model's answers) on a UMD build like ``built``'s."""
    base = tmp_path_factory.mktemp("mock_eval")
    root = umd_project(base / "project", umd_sample)
    build_all(root)
    result = run(_mock_eval(root, base / "run", base / "home"), _home_env(base / "home"))
    assert result.returncode == 0, result.stderr
    return base / "run"


@pytest.fixture
def predictions(mock_run: Path) -> Path:
    """A predictions file of curated_umd; every build here has the same rows, so it passes the gate."""
    return mock_run / "predictions.jsonl"


# disk full ----------------------------------------------------------------------------------------------


def test_convert_on_a_full_disk_keeps_nothing_partial(built: Path, fault_case) -> None:
    expected = _reference(built)
    interim = built / "data/interim"
    shutil.rmtree(interim)
    interim.mkdir()
    result = on_full_disk(interim, 64 * 1024, cli_command(built, "convert", "umd", "--quiet"))
    line = error_line(result)
    assert result.returncode == 2 and "No space left on device; free space" in line
    assert list(interim.iterdir()) == []  # no half-written umd/, no hidden temporary
    assert run(cli_command(built, "convert", "umd", "--quiet")).returncode == 0
    assert digests(built, ("data/interim",)) == {k: v for k, v in expected.items() if k.startswith("data/interim")}
    fault_case.record(ENOSPC, "convert umd, data/interim with 64 KiB free", exit=2, shown=line, rerun=RERUN_SAME)


def test_assemble_on_a_full_disk_keeps_the_last_folder(built: Path, fault_case) -> None:
    expected = _reference(built)
    result = on_full_disk(built / "data", 16 * 1024, cli_command(built, "assemble"))
    line = error_line(result)
    assert result.returncode == 2 and "No space left on device" in line
    assert _reference(built) == expected  # the previous data/groundbench, whole
    assert hidden_temporaries(built / "data") == []
    assert run(cli_command(built, "assemble")).returncode == 0
    assert _reference(built) == expected
    fault_case.record(ENOSPC, "assemble, data/ with 16 KiB free", exit=2, shown=line, rerun=RERUN_SAME)


def test_score_json_on_a_full_disk_writes_no_report(built: Path, predictions: Path, tmp_path: Path, fault_case) -> None:
    reference = tmp_path / "reference.json"
    assert run(cli_command(built, "score", str(predictions), "--json", str(reference))).returncode == 0
    out = tmp_path / "reports"
    out.mkdir()
    command = cli_command(built, "score", str(predictions), "--json", str(out / "scores.json"))
    result = on_full_disk(out, 0, command)
    line = error_line(result)
    assert result.returncode == 2 and "No space left on device" in line
    assert list(out.iterdir()) == []
    assert run(command).returncode == 0
    assert (out / "scores.json").read_bytes() == reference.read_bytes()
    fault_case.record(ENOSPC, "score --json, the report's folder full", exit=2, shown=line, rerun=RERUN_SAME)


def test_score_with_a_full_temporary_folder_names_it_and_tmpdir(
    built: Path, predictions: Path, tmp_path: Path, fault_case
) -> None:
    """score keeps its bulk in anonymous files in TMPDIR: when they cannot grow, one line names that folder."""
    lines = [json.loads(line) for line in predictions.read_text(encoding="utf-8").splitlines()]
    many = tmp_path / "many.jsonl"  # the run's lines under 40 model names: records enough to fill 8 KiB
    many.write_text("".join(json.dumps({**line, "model": f"m{k}"}) + "\n" for k in range(40) for line in lines))
    reference = tmp_path / "reference.json"
    command = cli_command(built, "score", str(many), "--json", str(reference))
    assert run(command).returncode == 0
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    out = tmp_path / "scores.json"
    command = cli_command(built, "score", str(many), "--json", str(out))
    # 8 KiB: room for tempfile's own probe of the folder (else it picks another), not for score's records
    result = on_full_disk(scratch, 8 * 1024, command, child_env(TMPDIR=str(scratch)))
    line = error_line(result)
    assert result.returncode == 2 and f"{scratch}: TMPDIR:" in line and "No space left on device" in line
    assert list(scratch.iterdir()) == [] and not out.exists()
    assert run(command, child_env(TMPDIR=str(scratch))).returncode == 0
    assert out.read_bytes() == reference.read_bytes()
    fault_case.record(ENOSPC, "score, TMPDIR with 8 KiB free", exit=2, shown=line, rerun=RERUN_SAME)


@pytest.mark.parametrize("free", [0, 12 * 1024])
def test_eval_on_a_full_disk_names_the_folder_and_keeps_every_answer(
    built: Path, mock_run: Path, tmp_path: Path, free: int, fault_case
) -> None:
    """The run folder fills up before or while answers and inspect's logs are written: one line naming the folder
    and the full file system (not a log that could not be written), every answer kept whole; once space is freed
    the same command completes with the predictions and scores of a run that met no fault."""
    home, out = tmp_path / "home", tmp_path / "eval"
    out.mkdir()
    command = _mock_eval(built, out, home)
    result = on_full_disk(out, free, command, _home_env(home))
    line = error_line(result)
    assert result.returncode == 2, result.stderr
    assert f"{out}" in line and "No space left on device" in line and "free space" in line
    assert "No such file or directory" not in line
    assert not (out / "predictions.jsonl").exists() and hidden_temporaries(out) == []
    answers = out / "answers.jsonl"
    kept = answers.read_text().split("\n")[:-1] if answers.exists() else []
    assert all(json.loads(text) for text in kept)  # every whole line an answer; a torn tail has no newline
    rerun = run(command, _home_env(home))
    assert rerun.returncode == 0, rerun.stderr
    for name in ("predictions.jsonl", "scores.json"):
        assert (out / name).read_bytes() == (mock_run / name).read_bytes()
    case = f"eval --out with {free // 1024} KiB free (the mock model)"
    after = "rerun once space is freed: asks only the unanswered rows; byte-identical"
    shown = re.sub(r"\b\d+ of 5 rows", "N of 5 rows", line)  # how many fit before the disk filled may vary
    fault_case.record(ENOSPC, case, exit=2, shown=shown, rerun=after)


def test_a_download_on_a_full_disk_resumes_once_space_is_freed(tmp_path: Path, fault_case) -> None:
    from tests.support.fetch_sources import UMD_PATH, umd_tarball

    root = tmp_path / "fetching"
    (root / "data/sources/umd").mkdir(parents=True)
    shutil.copy(Path(__file__).resolve().parents[2] / "params.yaml", root / "params.yaml")
    archive = umd_tarball(tmp_path / "release")
    vouch = ("--sha256", hashlib.sha256(archive).hexdigest())
    with FileServer({UMD_PATH: archive}) as server:
        command = cli_command(root, "fetch", "umd", "--url", server.url + UMD_PATH, *vouch, "--quiet")
        result = on_full_disk(root / "data/sources/umd", len(archive) // 2, command)
        line = error_line(result)
        assert result.returncode == 2 and "No space left on device" in line
        part = root / "data/sources/umd/.download/part-affordance-dataset-tools.tar.gz.part"
        kept = part.stat().st_size
        assert 0 < kept < len(archive) and part.read_bytes() == archive[:kept]  # a prefix, never wrong bytes
        assert (
            not (root / "data/sources/umd/tree").exists() and not (root / "data/sources/umd/provenance.json").exists()
        )
        assert run(command).returncode == 0
        gets = [r for r in server.requests if r[0] == "GET"]
    assert gets[-1][2] == f"bytes={kept}-"  # the rerun asked only for the rest
    record = json.loads((root / "data/sources/umd/provenance.json").read_text())
    assert record["archive"]["sha256"] == hashlib.sha256(archive).hexdigest()
    rerun = "rerun resumes from the bytes kept (Range) and pins the same archive"
    fault_case.record(ENOSPC, "fetch umd, the download folder full", exit=2, shown=line, rerun=rerun)


# read-only targets --------------------------------------------------------------------------------------


def test_convert_into_a_read_only_folder(built: Path, fault_case) -> None:
    expected = _reference(built)
    result = on_read_only(built / "data/interim", cli_command(built, "convert", "umd", "--quiet"))
    line = error_line(result)
    assert result.returncode == 2 and "Read-only file system; the file system is read-only" in line
    assert _reference(built) == expected
    assert run(cli_command(built, "convert", "umd", "--quiet")).returncode == 0
    assert _reference(built) == expected
    fault_case.record(EROFS, "convert umd, data/interim mounted read-only", exit=2, shown=line, rerun=RERUN_SAME)


def test_score_json_into_a_read_only_folder(built: Path, predictions: Path, tmp_path: Path, fault_case) -> None:
    out = tmp_path / "reports"
    out.mkdir()
    command = cli_command(built, "score", str(predictions), "--json", str(out / "scores.json"))
    result = on_read_only(out, command)
    line = error_line(result)
    assert result.returncode == 2 and "Read-only file system" in line
    assert list(out.iterdir()) == []
    assert run(command).returncode == 0
    assert json.loads((out / "scores.json").read_text())["metrics"]
    rerun = "rerun on a writable folder: the report"
    fault_case.record(EROFS, "score --json, the report's folder read-only", exit=2, shown=line, rerun=rerun)


def test_eval_with_a_read_only_home(built: Path, mock_run: Path, tmp_path: Path, fault_case) -> None:
    home, out = tmp_path / "home", tmp_path / "eval"
    home.mkdir()
    result = on_read_only(home, _mock_eval(built, out, home), _home_env(home))
    line = error_line(result)
    assert result.returncode == 2 and "the libraries' caches live there" in line
    assert not (out / "predictions.jsonl").exists()
    assert run(_mock_eval(built, out, home), _home_env(home)).returncode == 0
    for name in ("predictions.jsonl", "scores.json"):
        assert (out / name).read_bytes() == (mock_run / name).read_bytes()
    rerun = "rerun with a writable HOME: predictions and scores byte-identical"
    fault_case.record(EROFS, "eval (mock model), HOME read-only (the caches)", exit=2, shown=line, rerun=rerun)


# permission denied ---------------------------------------------------------------------------------------


def _convert_denied(built: Path, folder: Path, mode: int) -> str:
    """``convert umd`` with ``folder`` at ``mode``, as a user whom modes bind: its line, then the rerun."""
    expected = _reference(built)
    folder.chmod(mode)
    try:
        result = denied(cli_command(built, "convert", "umd", "--quiet"))
    finally:
        folder.chmod(0o755)
    line = error_line(result)
    assert result.returncode == 2 and "Permission denied; check its permissions" in line
    assert _reference(built) == expected
    assert run(cli_command(built, "convert", "umd", "--quiet")).returncode == 0
    assert _reference(built) == expected
    return line


def test_convert_of_an_unreadable_source_folder(built: Path, fault_case) -> None:
    params = yaml.safe_load((built / "params.yaml").read_text())
    line = _convert_denied(built, Path(params["sources"]["umd"]) / "part-affordance-dataset/tools/bowl_01", 0)
    assert "tools/bowl_01: Permission denied" in line
    rerun = "rerun once readable: byte-identical outputs"
    fault_case.record(EACCES, "convert umd, a tool folder of the source mode 000", exit=2, shown=line, rerun=rerun)


def test_convert_into_a_folder_without_write_permission(built: Path, fault_case) -> None:
    line = _convert_denied(built, built / "data/interim", 0o555)
    assert "data/interim/umd: Permission denied" in line
    fault_case.record(EACCES, "convert umd, data/interim mode 555", exit=2, shown=line, rerun=RERUN_SAME)


def test_sheet_into_an_out_folder_without_write_permission(built: Path, tmp_path: Path, fault_case) -> None:
    out = tmp_path / "sheets"
    out.mkdir()
    command = cli_command(built, "sheet", "curated_umd", "--out", str(out), "--quiet")
    out.chmod(0o555)
    try:
        result = denied(command)
    finally:
        out.chmod(0o755)
    line = error_line(result)
    assert result.returncode == 2 and "Permission denied; check its permissions (or choose another --out" in line
    assert list(out.iterdir()) == []
    assert run(command).returncode == 0
    assert sorted(p.name for p in (out / "curated_umd").iterdir()) == ["page-001.png"]
    rerun = "rerun with a writable --out: the pages"
    fault_case.record(EACCES, "sheet --out, a folder mode 555", exit=2, shown=line, rerun=rerun)


# an ASCII terminal --------------------------------------------------------------------------------------

ASCII = {"LANG": "C", "LC_ALL": "C", "PYTHONIOENCODING": "ascii"}
TERMINAL = "terminal without Unicode (LANG=C, PYTHONIOENCODING=ascii)"


def test_summary_on_an_ascii_terminal(built: Path, fault_case) -> None:
    params = yaml.safe_load((built / "params.yaml").read_text())
    params["sources"]["umd"] = "sample"  # the build is of the embedded sample: summary prints the warning sign
    (built / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    result = run(cli_command(built, "summary"), child_env(**ASCII))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    first = result.stderr.splitlines()[0]  # the notice: one line on stderr, before the table on stdout
    assert first.startswith("\\u26a0 SYNTHETIC SAMPLE BUILD")  # the warning sign, escaped
    fault_case.record(TERMINAL, "summary (prints the warning sign)", exit=0, shown=first[:60], rerun="n/a")


def test_score_on_an_ascii_terminal(built: Path, predictions: Path, fault_case) -> None:
    result = run(cli_command(built, "score", str(predictions)), child_env(**ASCII))
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    assert "\\u03c4" in result.stdout and "τ" not in result.stdout  # tau, escaped
    line = next(line for line in result.stdout.splitlines() if "\\u03c4" in line).strip(" |")
    shown = line[line.rfind("; ", 0, line.index("\\u03c4")) + 2 :][:60]  # the baseline beside the escaped tau
    fault_case.record(TERMINAL, "score (prints τ as \\u03c4)", exit=0, shown=shown, rerun="n/a")


# a bug: an exception GroundBench does not expect ----------------------------------------------------------

BUG = "a bug (an unexpected exception)"
# What a bug looks like, made on purpose: the store stage raises an exception no code anticipates.
FAULTY_STORE = (
    "import sys\n"
    "import groundbench.stages.store as store\n"
    "def broken(root): raise ValueError('an unexpected value in the store')\n"
    "store.run_store = broken\n"
    "from groundbench.cli import main\n"
    "sys.exit(main(sys.argv[1:]))\n"
)


@pytest.mark.parametrize(
    ("how", "flag", "env"),
    [
        ("by default", [], {}),
        ("with --debug", ["--debug"], {}),
        ("with GROUNDBENCH_DEBUG=1", [], {"GROUNDBENCH_DEBUG": "1"}),
    ],
)
def test_a_bug_is_one_line_unless_the_stack_is_asked_for(
    built: Path, how: str, flag: list[str], env: dict[str, str], fault_case
) -> None:
    import sys

    expected = _reference(built)
    result = run([sys.executable, "-c", FAULTY_STORE, *flag, "--root", str(built), "store"], child_env(**env))
    if flag or env:
        assert result.returncode == 1
        assert "Traceback (most recent call last)" in result.stderr
        shown = result.stderr.strip().splitlines()[-1]
        assert shown == "ValueError: an unexpected value in the store"
    else:
        shown = error_line(result)
        assert result.returncode == 1
        assert shown == (
            "error: internal error (ValueError: an unexpected value in the store); run with --debug "
            "(or GROUNDBENCH_DEBUG=1) for the stack, and report it"
        )
    assert _reference(built) == expected
    outcome = "the stack, then the exception" if flag or env else "one line"
    fault_case.record(BUG, f"store raises ValueError, {how} ({outcome})", exit=1, shown=shown, rerun="n/a")


# missing inputs -----------------------------------------------------------------------------------------

MISSING = "missing input"


def test_score_of_a_missing_predictions_file(built: Path, tmp_path: Path, fault_case) -> None:
    result = run(cli_command(built, "score", str(tmp_path / "nowhere.jsonl")))
    line = error_line(result)
    assert result.returncode == 2 and "No such file or directory" in line
    fault_case.record(MISSING, "score of a predictions file that does not exist", exit=2, shown=line, rerun="n/a")


def test_convert_of_a_source_folder_that_does_not_exist(built: Path, tmp_path: Path, fault_case) -> None:
    expected = _reference(built)
    params = yaml.safe_load((built / "params.yaml").read_text())
    params["sources"]["umd"] = str(tmp_path / "not_downloaded")
    (built / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    result = run(cli_command(built, "convert", "umd", "--quiet"))
    line = error_line(result)
    assert result.returncode == 2 and "not_downloaded" in line
    assert _reference(built) == expected
    fault_case.record(MISSING, "convert umd, sources.umd names no folder", exit=2, shown=line, rerun="n/a")


# nonsense knobs -----------------------------------------------------------------------------------------

KNOBS = "params.yaml knob out of its range"


@pytest.mark.parametrize(
    ("key", "value", "command"),
    [
        ("shards.rows_per_batch", -5, ["convert", "umd", "--quiet"]),
        ("shards.max_bytes", 0, ["convert", "umd", "--quiet"]),
        ("umd.window", -3, ["convert", "umd", "--quiet"]),
        ("umd.workers", -2, ["convert", "umd", "--quiet"]),
        ("umd.max_image_pixels", -1, ["convert", "umd", "--quiet"]),
        ("gapartnet.iou_min", 1.5, ["assemble"]),
        ("report.rows_per_file", 0, ["report", "--quiet"]),
    ],
)
def test_a_knob_out_of_range_is_refused_before_anything_is_written(
    built: Path, key: str, value: float, command: list[str], fault_case
) -> None:
    expected = _reference(built)
    params = yaml.safe_load((built / "params.yaml").read_text())
    section, name = key.rsplit(".", 1)
    params[section.split(".")[0]][name] = value
    (built / "params.yaml").write_text(yaml.safe_dump(params, sort_keys=False))
    locks = sorted((built / "data/.locks").iterdir()) if (built / "data/.locks").is_dir() else []
    result = run(cli_command(built, *command))
    line = error_line(result)
    assert result.returncode == 2 and line.startswith(f"error: params.yaml: {key}: expected a number ")
    assert _reference(built) == expected
    assert (sorted((built / "data/.locks").iterdir()) if (built / "data/.locks").is_dir() else []) == locks
    rerun = "refused before anything is written"
    fault_case.record(KNOBS, f"{key}: {value} ({command[0]})", exit=2, shown=line, rerun=rerun)
