"""``groundbench.fetch.http.download`` against loopback servers that answer each way a mirror can: one that
ignores ``Range``, one that sends more than the catalogue says, one that answers 416 for a finished partial
file, one that drops the connection half-way; and a disk that fills (``/dev/full``). Nothing leaves 127.0.0.1."""

from __future__ import annotations

import hashlib
import os
from http.server import BaseHTTPRequestHandler
from pathlib import Path

import pytest

from groundbench.errors import GroundBenchError
from groundbench.fetch.http import download
from tests.support.loopback import FileServer, _Server

DATA = bytes(range(256)) * 64  # 16 KiB
SHA = hashlib.sha256(DATA).hexdigest()


class _Answering(_Server):
    """Serves ``data`` at every path as ``mode`` says: ``ignore-range`` (always 200 and the whole body),
    ``416`` (416 to every Range request)."""

    def __init__(self, data: bytes, mode: str) -> None:
        super().__init__(lifetime=60.0)
        self.data, self.mode = data, mode

    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        wanted = handler.headers.get("Range")
        self.requests.append((method, handler.path, wanted))
        if self.mode == "416" and wanted:
            handler.send_response(416)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        handler.send_response(200)
        handler.send_header("Content-Length", str(len(self.data)))
        handler.send_header("ETag", '"v1"')
        handler.end_headers()
        handler.wfile.write(self.data)


def _part(dest: Path, data: bytes) -> Path:
    part = dest.with_name(dest.name + ".part")
    part.write_bytes(data)
    return part


def test_a_dropped_connection_is_resumed_from_where_it_stopped(tmp_path: Path) -> None:
    dest = tmp_path / "release.tar"
    with FileServer({"/release.tar": DATA}, drop_first=True) as server:
        got = download(f"{server.url}/release.tar", dest, len(DATA), SHA, progress=False)
    half = len(DATA) // 2
    assert [r[2] for r in server.requests] == [None, f"bytes={half}-"]
    assert got.resumed_at == (half,) and got.bytes == len(DATA) and got.sha256 == SHA
    assert got.last_modified == "Mon, 01 Jan 2024 00:00:00 GMT"
    assert dest.read_bytes() == DATA and not dest.with_name("release.tar.part").exists()


def test_a_server_ignoring_range_is_read_from_the_first_byte(tmp_path: Path) -> None:
    dest = tmp_path / "release.tar"
    _part(dest, b"stale bytes of another copy")  # would hash wrong if the whole body were appended to it
    with _Answering(DATA, "ignore-range") as server:
        got = download(f"{server.url}/release.tar", dest, len(DATA), SHA, progress=False)
    assert [r[2] for r in server.requests] == ["bytes=27-"]
    assert got.resumed_at == () and got.etag == '"v1"' and dest.read_bytes() == DATA


def test_a_finished_partial_file_is_not_asked_for_again(tmp_path: Path) -> None:
    dest = tmp_path / "release.tar"
    _part(dest, DATA)
    with _Answering(DATA, "416") as server:
        got = download(f"{server.url}/release.tar", dest, len(DATA), SHA, progress=False)
    assert [r[2] for r in server.requests] == [f"bytes={len(DATA)}-"]
    assert got.bytes == len(DATA) and got.etag is None and dest.read_bytes() == DATA


def test_more_bytes_than_expected_are_removed(tmp_path: Path) -> None:
    dest = tmp_path / "release.tar"
    with _Answering(DATA, "ignore-range") as server, pytest.raises(GroundBenchError, match="got more"):
        download(f"{server.url}/release.tar", dest, len(DATA) - 1, None, progress=False)
    assert not dest.exists() and not dest.with_name("release.tar.part").exists()


def test_wrong_bytes_are_removed_and_a_short_file_is_kept(tmp_path: Path) -> None:
    dest = tmp_path / "release.tar"
    with _Answering(DATA, "ignore-range") as server:
        with pytest.raises(GroundBenchError, match=r"expected 0{64} \(the catalogue\), got "):
            download(f"{server.url}/release.tar", dest, len(DATA), "0" * 64, progress=False, pin="the catalogue")
        assert not dest.with_name("release.tar.part").exists()
        with pytest.raises(GroundBenchError, match=f"expected {len(DATA) + 1} bytes, got {len(DATA)}"):
            download(f"{server.url}/release.tar", dest, len(DATA) + 1, None, progress=False)
    assert dest.with_name("release.tar.part").read_bytes() == DATA and not dest.exists()


@pytest.mark.skipif(not os.path.exists("/dev/full"), reason="needs /dev/full (Linux)")
def test_a_full_disk_names_the_partial_file(tmp_path: Path) -> None:
    dest = tmp_path / "release.tar"
    part = dest.with_name("release.tar.part")
    part.symlink_to("/dev/full")  # every write to it fails with ENOSPC, naming no file
    with _Answering(DATA, "ignore-range") as server, pytest.raises(OSError) as raised:
        download(f"{server.url}/release.tar", dest, len(DATA), SHA, progress=False)
    assert raised.value.filename == str(part) and "No space left" in str(raised.value)
