"""The fault suite, network faults: a flaky HTTP mirror (cut, corrupt, truncated), damaged archives, a
flaky Hub stand-in under ``publish`` (a lost commit reply, a lost tag reply, an existing tag), and a
model endpoint that keeps failing some rows under ``eval``.

Every server is a loopback stand-in (tests/support/loopback.py, tests/support/hubstub.py, tests/support/openai_stub.py);
every command runs in a child process, as a user runs it.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.conftest import REPO, build_all, digests, umd_project
from tests.support.faults import child_env, cli_command, error_line, run
from tests.support.fetch_sources import UMD_PATH, umd_tarball
from tests.support.hubstub import HubStub
from tests.support.loopback import FileServer
from tests.support.openai_stub import Asked, OpenAIStub

MIRROR = "flaky HTTP mirror (fetch umd --url MIRROR)"
ARCHIVE = "damaged archive"
HUB = "flaky Hub (publish against the Hub stand-in)"
MODEL = "model endpoint failing some rows (eval)"

# fetch with the catalogue holding the stand-in release's sha256 and size, as it holds the official one's
CATALOGUED = (
    "import dataclasses, sys\n"
    "from groundbench.fetch import catalog\n"
    "umd = catalog.SOURCES['umd']\n"
    "catalog.SOURCES['umd'] = dataclasses.replace(umd, archive_sha256=sys.argv[1], archive_bytes=int(sys.argv[2]))\n"
    "from groundbench.cli import main\n"
    "sys.exit(main(sys.argv[3:]))\n"
)


@pytest.fixture(scope="module")
def release(tmp_path_factory: pytest.TempPathFactory) -> bytes:
    """The stand-in for the official UMD archive (the embedded sample, one frame per tool, as a .tar.gz)."""
    return umd_tarball(tmp_path_factory.mktemp("umd_release"))


def _fetch_root(tmp_path: Path, name: str = "fetching") -> Path:
    """A DVC project root with the repository's params.yaml: a fetch pins by provenance.json and tree.dvc."""
    root = tmp_path / name
    root.mkdir()
    shutil.copy(REPO / "params.yaml", root / "params.yaml")
    subprocess.run([sys.executable, "-m", "dvc", "init", "--no-scm", "-q"], cwd=root, check=True, env=child_env())
    return root


def _fetch(root: Path, archive: bytes, url: str, *args: str) -> subprocess.CompletedProcess[str]:
    sha = hashlib.sha256(archive).hexdigest()
    command = [sys.executable, "-c", CATALOGUED, sha, str(len(archive))]
    return run([*command, "--root", str(root), "fetch", "umd", "--url", url, "--quiet", *args])


def _pinned(root: Path) -> dict[str, str]:
    """The fetched tree, its record and its DVC pin (nothing, before a fetch verified)."""
    return digests(root, ("data/sources/umd",)) | {
        name: hashlib.sha256((root / name).read_bytes()).hexdigest()
        for name in ("data/sources/umd/tree.dvc",)
        if (root / name).exists()
    }


def _no_download_kept(root: Path) -> bool:
    download = root / "data/sources/umd/.download"
    return not download.exists() or not any(p.is_file() for p in download.rglob("*"))


def _nothing_pinned(root: Path) -> bool:
    umd = root / "data/sources/umd"
    return not any((umd / name).exists() for name in ("tree", "provenance.json", "tree.dvc"))


@pytest.fixture(scope="module")
def reference(tmp_path_factory: pytest.TempPathFactory, release: bytes) -> dict[str, str]:
    """What a clean fetch from a good mirror pins (tree, record, tree.dvc), the origin's URL aside."""
    root = _fetch_root(tmp_path_factory.mktemp("reference"))
    with FileServer({UMD_PATH: release}) as server:
        assert _fetch(root, release, server.url + UMD_PATH).returncode == 0
    return _portable_pins(root)


def _portable_pins(root: Path) -> dict[str, str]:
    pins = _pinned(root)
    record = json.loads((root / "data/sources/umd/provenance.json").read_text())
    record.pop("origin")  # the mirror's URL (its port) differs between runs
    pins["data/sources/umd/provenance.json"] = json.dumps(record, sort_keys=True)
    return pins


def test_a_mirror_cut_half_way_is_resumed(
    tmp_path: Path, release: bytes, reference: dict[str, str], fault_case
) -> None:
    root = _fetch_root(tmp_path)
    with FileServer({UMD_PATH: release}, drop_first=True) as server:
        result = _fetch(root, release, server.url + UMD_PATH)
        ranges = [r[2] for r in server.requests if r[0] == "GET"]
    assert result.returncode == 0, result.stderr
    assert ranges == [None, f"bytes={len(release) // 2}-"]  # the rest only, from where the bytes stopped
    assert _portable_pins(root) == reference
    shown = "resumed with Range from the byte where the connection dropped"
    fault_case.record(MIRROR, "connection cut half-way through the body", exit=0, shown=shown, rerun="n/a (same run)")


def test_a_mirror_serving_a_flipped_byte_is_held_to_the_catalogue(
    tmp_path: Path, release: bytes, reference: dict[str, str], fault_case
) -> None:
    root = _fetch_root(tmp_path)
    corrupt = bytearray(release)
    corrupt[len(corrupt) // 3] ^= 0x01
    with FileServer({UMD_PATH: bytes(corrupt)}) as bad:
        result = _fetch(root, release, bad.url + UMD_PATH)  # no --sha256: the catalogue's applies
    line = error_line(result)
    assert result.returncode == 2 and "the catalogue's sha256 of the official archive" in line
    assert _nothing_pinned(root) and _no_download_kept(root)  # wrong bytes are never resumed from
    with FileServer({UMD_PATH: release}) as good:
        assert _fetch(root, release, good.url + UMD_PATH).returncode == 0
    assert _portable_pins(root) == reference
    rerun = "rerun from a good mirror: the same pins (tree, provenance.json, tree.dvc)"
    fault_case.record(MIRROR, "one byte flipped, no --sha256", exit=2, shown=line, rerun=rerun)


def test_a_truncated_copy_on_a_mirror_is_resumed_from_another(
    tmp_path: Path, release: bytes, reference: dict[str, str], fault_case
) -> None:
    root = _fetch_root(tmp_path)
    half = len(release) // 2
    with FileServer({UMD_PATH: release[:half]}) as short:
        result = _fetch(root, release, short.url + UMD_PATH)
    line = error_line(result)
    assert result.returncode == 2 and "truncated); run fetch again to resume" in line
    part = root / "data/sources/umd/.download/part-affordance-dataset-tools.tar.gz.part"
    assert part.read_bytes() == release[:half] and _nothing_pinned(root)
    with FileServer({UMD_PATH: release}) as good:
        assert _fetch(root, release, good.url + UMD_PATH).returncode == 0
        ranges = [r[2] for r in good.requests if r[0] == "GET"]
    assert ranges == [f"bytes={half}-"]
    assert _portable_pins(root) == reference
    rerun = "rerun from another mirror resumes at the cut (Range): the same pins"
    fault_case.record(MIRROR, "the mirror's copy is cut to half", exit=2, shown=line, rerun=rerun)


def test_an_unreachable_mirror_is_one_line(tmp_path: Path, release: bytes, fault_case) -> None:
    root = _fetch_root(tmp_path)
    with socket.socket() as closed:  # a port nothing listens on
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    result = _fetch(root, release, f"http://127.0.0.1:{port}{UMD_PATH}")
    line = error_line(result)
    assert result.returncode == 2 and "could not connect" in line and _nothing_pinned(root)
    fault_case.record(MIRROR, "nothing listens at the mirror's address", exit=2, shown=line, rerun="n/a")


def _vouched(root: Path, archive: bytes, body: bytes) -> subprocess.CompletedProcess[str]:
    """Fetch ``body`` from a mirror with --sha256 of exactly those bytes (the user vouches for them)."""
    with FileServer({UMD_PATH: body}) as server:
        return _fetch(root, archive, server.url + UMD_PATH, "--sha256", hashlib.sha256(body).hexdigest())


def _flip(data: bytes, at: int, bit: int) -> bytes:
    return data[:at] + bytes([data[at] ^ bit]) + data[at + 1 :]


@pytest.mark.parametrize(
    ("case", "damage"),
    [
        ("tar.gz with its gzip CRC-32 damaged (bytes vouched by --sha256)", lambda data: _flip(data, len(data) - 8, 1)),
        (
            "tar.gz with a byte flipped mid-stream (bytes vouched by --sha256)",
            lambda data: _flip(data, len(data) // 2, 16),
        ),
        ("tar.gz cut before its end (bytes vouched by --sha256)", lambda data: data[: len(data) - 100]),
    ],
)
def test_an_archive_whose_own_checksum_fails_is_never_pinned(
    tmp_path: Path, release: bytes, reference: dict[str, str], case: str, damage: Any, fault_case
) -> None:
    root = _fetch_root(tmp_path)
    result = _vouched(root, release, damage(release))
    line = error_line(result)
    assert result.returncode == 2 and "archive: damaged or truncated" in line
    assert _nothing_pinned(root) and _no_download_kept(root)
    with FileServer({UMD_PATH: release}) as good:
        assert _fetch(root, release, good.url + UMD_PATH).returncode == 0
    assert _portable_pins(root) == reference
    rerun = "rerun with the intact archive: the same pins"
    fault_case.record(ARCHIVE, case, exit=2, shown=line, rerun=rerun)


def test_a_gapartnet_zip_with_a_damaged_member_is_refused(tmp_path: Path, fault_case) -> None:
    from tests.fetch.test_fetch import _gapartnet_download

    root = _fetch_root(tmp_path)
    archive = _gapartnet_download(tmp_path / "download", renders=True)
    intact = archive.read_bytes()
    data = bytearray(intact)
    at = data.index(b"[]")  # inside a stored member (a link annotation file)
    data[at] ^= 0x01
    damaged = tmp_path / "damaged.zip"
    damaged.write_bytes(bytes(data))
    result = run(cli_command(root, "fetch", "gapartnet", "--from", str(damaged)))
    line = error_line(result)
    assert result.returncode == 2 and "Bad CRC-32" in line
    assert not any((root / "data/sources/gapartnet" / n).exists() for n in ("tree", "provenance.json", "tree.dvc"))
    assert run(cli_command(root, "fetch", "gapartnet", "--from", str(archive))).returncode == 0
    record = json.loads((root / "data/sources/gapartnet/provenance.json").read_text())
    assert record["archive"]["sha256"] == hashlib.sha256(intact).hexdigest()
    rerun = "rerun with the intact download: pinned"
    fault_case.record(ARCHIVE, "gapartnet --from a zip, one member's CRC-32 fails", exit=2, shown=line, rerun=rerun)


# publish against a flaky Hub -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def published_build(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    """A UMD build publish accepts (the card check needs requirements.lock beside params.yaml)."""
    root = umd_project(tmp_path_factory.mktemp("publish_faults") / "project", umd_sample, "requirements.lock")
    build_all(root)
    return root


def _publish(root: Path, hub: HubStub | str, home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    endpoint = hub if isinstance(hub, str) else hub.endpoint
    env = {key: value for key, value in child_env().items() if not key.startswith(("HF_", "HUGGING"))}
    env.update(
        HF_ENDPOINT=endpoint,  # the loopback stand-in; never the real Hub
        HF_TOKEN="hf_loopback_test_token",
        HF_HUB_OFFLINE="0",
        HF_HUB_DISABLE_XET="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_HOME=str(home),
    )
    command = cli_command(root, "publish", "--repo-id", "org/groundbench", "--allow-synthetic", *args)
    return run(command, env)


@pytest.fixture(scope="module")
def clean_publish(published_build: Path, tmp_path_factory: pytest.TempPathFactory) -> dict[str, bytes]:
    """The files a publish that met no fault leaves on the Hub."""
    with HubStub() as hub:
        result = _publish(published_build, hub, tmp_path_factory.mktemp("hf_home"))
    assert result.returncode == 0, result.stderr
    return hub.files


def _last(result: subprocess.CompletedProcess[str]) -> str:
    assert "Traceback" not in result.stderr + result.stdout, result.stderr
    return result.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("fault", "action", "said", "case", "after"),
    [
        (
            "drop_reply",
            "commit",
            "completed: main already held these files",
            "the commit's reply is lost (the commit landed)",
            "rerun: found the commit, added only the tag; the Hub's files byte-identical to a clean publish",
        ),
        (
            "drop_reply",
            "tag",
            "already published: tag v0.1.0 holds exactly these files",
            "the tag's reply is lost (the tag was made)",
            "rerun: says the version is already complete; no second commit",
        ),
        (
            "cut",
            "commit",
            "published: org/groundbench v0.1.0",
            "the connection drops before the commit is applied",
            "rerun: published; the Hub's files byte-identical to a clean publish",
        ),
    ],
)
def test_a_publish_cut_short_is_completed_by_the_rerun(
    published_build: Path,
    clean_publish: dict[str, bytes],
    tmp_path: Path,
    fault: str,
    action: str,
    said: str,
    case: str,
    after: str,
    fault_case,
) -> None:
    """The next ``action`` request is faulty: one line saying run again; the rerun completes the version,
    with one commit in all and the Hub's files those of a publish that met no fault."""
    with HubStub() as hub:
        getattr(hub, fault)[action] = 1
        failed = _publish(published_build, hub, tmp_path)
        line = error_line(failed)
        assert failed.returncode == 2 and "run again" in line
        rerun = _publish(published_build, hub, tmp_path)
        assert rerun.returncode == 0, rerun.stderr
        shown = _last(rerun)
        assert shown.startswith(said)
        assert len(hub.commits) == 1 and hub.tagged == {"v0.1.0": hub.commits[0]["sha"]}
        assert hub.files == clean_publish
    fault_case.record(HUB, case, exit=2, shown=line, rerun=after)
    if action == "tag":  # that rerun is also what publishing a published version again does
        fault_case.record(HUB, "publish again: the tag exists on the same files", exit=0, shown=shown, rerun="n/a")


def test_an_existing_tag_on_other_files_is_refused(published_build: Path, tmp_path: Path, fault_case) -> None:
    with HubStub() as hub:
        # someone published other bytes under the same tag
        hub.repos.add("org/groundbench")
        hub.tagged["v0.1.0"] = hub._new_commit({"README.md": b"# another build\n", "data/x.parquet": b"other"})
        before = (len(hub.commits), dict(hub.tagged))
        refused = _publish(published_build, hub, tmp_path)
        line = error_line(refused)
        assert refused.returncode == 2 and "already exists" in line and "holds other content" in line
        assert (len(hub.commits), hub.tagged) == before
        renamed = _publish(published_build, hub, tmp_path, "--revision", "v0.1.0-b")
        assert renamed.returncode == 0 and hub.tagged["v0.1.0-b"] == hub.head
    after = "rerun with --revision NEW_TAG (or a bumped version): published beside it"
    fault_case.record(HUB, "the tag exists on other files", exit=2, shown=line, rerun=after)


def test_an_unreachable_hub_is_one_line(published_build: Path, tmp_path: Path, fault_case) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    result = _publish(published_build, f"http://127.0.0.1:{port}", tmp_path)
    line = error_line(result)
    assert result.returncode == 2 and "run again" in line
    fault_case.record(HUB, "nothing listens at HF_ENDPOINT", exit=2, shown=line, rerun="n/a")


# a model endpoint that keeps failing some rows ---------------------------------------------------------


@pytest.fixture(scope="module")
def eval_build(tmp_path_factory: pytest.TempPathFactory, umd_sample: Path) -> Path:
    root = umd_project(tmp_path_factory.mktemp("eval_faults") / "project", umd_sample)
    build_all(root)
    return root


REPLY = '{"part": "handle", "action": "grasp", "point": [1, 2]}'


def _eval(root: Path, out: Path, stub: OpenAIStub, xdg: Path) -> subprocess.CompletedProcess[str]:
    command = cli_command(
        root, "eval", "curated_umd", "--condition", "part_named", "--model", "openai-api/stub/stub-vlm",
        "--max-retries", "1", "--max-connections", "1", "--display", "none", "--out", str(out),
    )  # fmt: skip
    env = child_env(STUB_API_KEY="test-key", STUB_BASE_URL=stub.base_url, XDG_DATA_HOME=str(xdg))
    return run(command, env)


def test_rows_the_endpoint_keeps_failing_are_asked_again_and_only_they(
    eval_build: Path, tmp_path: Path, fault_case
) -> None:
    with OpenAIStub(REPLY) as healthy:
        assert _eval(eval_build, tmp_path / "reference", healthy, tmp_path / "xdg").returncode == 0
        every = sorted(a.prompt for a in healthy.asked)
    doomed = set(every[:2])  # two of the five rows

    def failing(asked: Asked) -> bool:
        return asked.prompt in doomed

    out = tmp_path / "run"
    with OpenAIStub(REPLY, failing=failing) as stub:
        failed = _eval(eval_build, out, stub, tmp_path / "xdg")
        line = error_line(failed)
        assert failed.returncode == 2 and f"2 of {len(every)} rows are still unanswered" in line
        assert "run the same command again to ask only those" in line
        assert "; first error: " in line and "500" in line  # the cause comes first, not only where the logs are
        assert {a.prompt for a in stub.failed} == doomed and len(stub.failed) == 4  # each tried, then retried once
        assert not (out / "predictions.jsonl").exists() and not (out / "scores.json").exists()
        stub.failing = None  # the endpoint recovers
        asked_before = len(stub.asked)
        rerun = _eval(eval_build, out, stub, tmp_path / "xdg")
        assert rerun.returncode == 0, rerun.stderr
        assert sorted(a.prompt for a in stub.asked[asked_before:]) == sorted(doomed)  # only those rows
    for name in ("predictions.jsonl", "scores.json"):
        assert (out / name).read_bytes() == (tmp_path / "reference" / name).read_bytes()
    after = "rerun asks only the 2 failed rows: predictions and scores byte-identical to a run without faults"
    fault_case.record(MODEL, "2 of 5 rows answered HTTP 500 on every try", exit=2, shown=line, rerun=after)


HUNG = "model endpoint that stopped answering (eval)"


def _eval_hung(root: Path, out: Path, stub: OpenAIStub, xdg: Path, *extra: str) -> subprocess.CompletedProcess[str]:
    command = cli_command(
        root, "eval", "curated_umd", "--condition", "part_named", "--model", "openai-api/stub/stub-vlm",
        "--max-connections", "1", "--display", "none", "--out", str(out), *extra,
    )  # fmt: skip
    env = child_env(STUB_API_KEY="test-key", STUB_BASE_URL=stub.base_url, XDG_DATA_HOME=str(xdg))
    return run(command, env)


def test_a_server_that_stopped_answering_ends_the_run_naming_the_wait_and_its_flag(
    eval_build: Path, tmp_path: Path, fault_case
) -> None:
    """Every request hangs: the first row is tried twice at most (whatever --max-retries allows), each try bounded by
    --attempt-timeout; the rows after it are not sent, and the one line names how long was waited and the flag.
    Once the server answers again, the rerun asks every row and completes."""
    xdg = tmp_path / "xdg"
    out = tmp_path / "run"
    with OpenAIStub(REPLY, delay=5) as hung:  # longer than every try waits
        started = time.monotonic()
        failed = _eval_hung(eval_build, out, hung, xdg, "--attempt-timeout", "2", "--max-retries", "3")
        took = time.monotonic() - started
        line = error_line(failed)
        tries = len(hung.asked)
    assert failed.returncode == 2 and "5 of 5 rows are still unanswered" in line
    assert "the model server stopped answering (a request got no reply in " in line
    assert "each try waited --attempt-timeout 2 s" in line and "4 rows were not sent after it" in line
    assert "raise --attempt-timeout" in line and "run the same command again to ask only those" in line
    assert 1 <= tries <= 2 and took < 90  # one row, two tries at most: not 5 rows x 4 tries
    assert not (out / "predictions.jsonl").exists()
    with OpenAIStub(REPLY) as recovered:
        rerun = _eval_hung(eval_build, out, recovered, xdg)
        assert rerun.returncode == 0, rerun.stderr
        assert len(recovered.asked) == 5
    lines = [json.loads(text) for text in (out / "predictions.jsonl").read_text().splitlines()]
    assert len(lines) == 5 and all(line["response"] == REPLY for line in lines) and (out / "scores.json").is_file()
    after = "rerun once the server answers: every row asked, predictions and scores written"
    shown = re.sub(r"no reply in \d+ s", "no reply in N s", line)  # the seconds waited vary with the machine
    fault_case.record(HUNG, "every request hangs (--attempt-timeout 2)", exit=2, shown=shown, rerun=after)


def test_an_unreachable_model_server_ends_the_run_in_one_line(eval_build: Path, tmp_path: Path, fault_case) -> None:
    """Nothing listens at the base URL: the first row's tries fail, the rest are not sent, one line says so."""
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    command = cli_command(
        eval_build, "eval", "curated_umd", "--condition", "part_named", "--model", "openai-api/stub/stub-vlm",
        "--max-connections", "1", "--max-retries", "1", "--display", "none", "--out", str(tmp_path / "run"),
    )  # fmt: skip
    env = child_env(STUB_API_KEY="k", STUB_BASE_URL=f"http://127.0.0.1:{port}/v1", XDG_DATA_HOME=str(tmp_path / "x"))
    failed = run(command, env)
    line = error_line(failed)
    assert failed.returncode == 2 and "the model server could not be reached" in line
    assert "4 rows were not sent after it" in line and "start the server" in line
    shown = re.sub(r"tried for \d+ s", "tried for N s", line)
    fault_case.record(HUNG, "nothing listens at the base URL", exit=2, shown=shown, rerun="n/a")
