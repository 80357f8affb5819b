"""One file over HTTP(S): resumed with ``Range`` after a dropped connection, hashed, size-checked.

The bytes go to ``<dest>.part`` first; a later run (or the next attempt of this one) asks the server
for the rest only. The finished file is renamed into place once its size and sha256 match.
"""

from __future__ import annotations

import hashlib
import http.client
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from tqdm import tqdm

from groundbench.errors import GroundBenchError

CHUNK = 1 << 20
ATTEMPTS = 5  # connection drops tolerated per download (each resumes where the last stopped)
TIMEOUT = 60.0


@dataclass(frozen=True)
class Download:
    path: Path
    bytes: int
    sha256: str
    etag: str | None
    last_modified: str | None
    resumed_at: tuple[int, ...]  # offsets a Range request continued from


def download(
    url: str,
    dest: Path,
    expected_bytes: int | None,
    expected_sha256: str | None,
    progress: bool = True,
    pin: str = "",
) -> Download:
    """Fetch ``url`` into ``dest``; stops with one GroundBenchError on a size or checksum mismatch.

    ``pin`` says where the expected sha256 comes from (shown with a mismatch). A download that ends
    short of ``expected_bytes`` keeps its ``.part`` (the next run resumes it, from this URL or
    another mirror); bytes that are too many or hash wrong are removed, never resumed from.
    """
    if not url.startswith(("http://", "https://")):
        raise GroundBenchError(url, "url", "expected an http:// or https:// URL")
    dest.parent.mkdir(parents=True, exist_ok=True)
    part = _Part.of(dest)
    with _progress(dest.name, expected_bytes, part.size, progress) as bar:
        seen = _receive(url, part, expected_bytes, bar)
    _check_size(url, part.size, expected_bytes)
    sha = _check_sha256(url, part, expected_sha256, pin)
    os.replace(part.path, dest)
    return Download(dest, part.size, sha, seen.etag, seen.last_modified, tuple(seen.resumed_at))


def _progress(name: str, total: int | None, initial: int, shown: bool) -> tqdm:
    """A byte count bar from what the partial file holds (``disable=None``: drawn on a terminal only)."""
    return tqdm(total=total, initial=initial, unit="B", unit_scale=True, desc=name, disable=None if shown else True)


def _receive(url: str, part: _Part, expected_bytes: int | None, bar: tqdm) -> _Responses:
    """Every byte of ``url`` into ``part``, in up to ATTEMPTS responses, each resuming where the last dropped."""
    seen = _Responses()
    for _attempt in range(ATTEMPTS):
        response = _open(url, part.size)
        if response is None:
            return seen  # the partial file already holds every byte
        _resume_or_restart(response, part, seen, bar)
        end = _end(response, part.size)
        seen.note(response)
        part.append(response, expected_bytes, url, bar)
        if end is None or part.size >= end:
            return seen
    raise GroundBenchError(url, "connection", f"dropped {ATTEMPTS} times; run fetch again to resume")


def _open(url: str, offset: int) -> http.client.HTTPResponse | None:
    """The response from ``offset`` on; None when the partial file already holds every byte (416)."""
    request = urllib.request.Request(url, headers={"User-Agent": "groundbench-fetch"})
    if offset:
        request.add_header("Range", f"bytes={offset}-")
    try:
        return urllib.request.urlopen(request, timeout=TIMEOUT)  # noqa: S310 (http(s) URLs from the catalog)
    except urllib.error.HTTPError as exc:
        if exc.code == 416 and offset:
            return None
        raise GroundBenchError(url, "HTTP", f"expected 200/206, got {exc.code} {exc.reason}") from exc
    except (urllib.error.URLError, OSError) as exc:
        raise GroundBenchError(url, "connection", f"could not connect ({exc})") from exc


def _resume_or_restart(response: http.client.HTTPResponse, part: _Part, seen: _Responses, bar: tqdm) -> None:
    """Continue the partial file when the server answered the Range request (206); start it over otherwise."""
    if not part.size:
        return
    if response.status == 206:
        seen.resumed_at.append(part.size)
    else:
        part.restart()
        bar.reset()  # its total stays the expected size


def _end(response: http.client.HTTPResponse, start: int) -> int | None:
    """Where this response's body should end (a dropped connection ends it early without an error)."""
    length = response.headers.get("Content-Length")
    return start + int(length) if length and length.isdigit() else None


def _check_size(url: str, size: int, expected_bytes: int | None) -> None:
    """A short file keeps its ``.part``: the next run resumes it, from this URL or another mirror."""
    if expected_bytes is not None and size != expected_bytes:
        raise GroundBenchError(
            url,
            "size",
            f"expected {expected_bytes} bytes, got {size} (the download or this mirror's copy is truncated); "
            "run fetch again to resume from where it stopped (with --url another mirror if this one is short)",
        )


def _check_sha256(url: str, part: _Part, expected_sha256: str | None, pin: str) -> str:
    """The file's sha256, when it is the expected one; wrong bytes are removed, never resumed from."""
    sha = part.digest.hexdigest()
    if expected_sha256 is not None and sha != expected_sha256.lower():
        part.path.unlink(missing_ok=True)
        source = f" ({pin})" if pin else ""
        raise GroundBenchError(
            url, "sha256", f"expected {expected_sha256.lower()}{source}, got {sha}; the download was removed"
        )
    return sha


@dataclass
class _Responses:
    """What the responses of one download said: the validators of the latest, where each resumed."""

    etag: str | None = None
    last_modified: str | None = None
    resumed_at: list[int] = field(default_factory=list)

    def note(self, response: http.client.HTTPResponse) -> None:
        self.etag = response.headers.get("ETag") or self.etag
        self.last_modified = response.headers.get("Last-Modified") or self.last_modified


@dataclass
class _Part:
    """``<dest>.part``: the bytes received so far, their sha256 and count (a later run resumes from them)."""

    path: Path
    digest: hashlib._Hash
    size: int

    @classmethod
    def of(cls, dest: Path) -> _Part:
        """The partial file of ``dest``, hashed as far as an earlier run got (empty if none)."""
        path = dest.with_name(dest.name + ".part")
        digest, size = _hash_prefix(path)
        return cls(path, digest, size)

    def restart(self) -> None:
        """Drop what was received: the server ignored Range, so its body starts at the first byte."""
        self.digest, self.size = hashlib.sha256(), 0
        self.path.unlink(missing_ok=True)

    def append(self, response: http.client.HTTPResponse, expected_bytes: int | None, url: str, bar: tqdm) -> None:
        """The response's body after what the file holds, synced to disk. A network error ends the body (the
        caller asks for the rest); a disk error (a full disk) propagates naming this file: what reached it
        stays, and the next run resumes from there. More bytes than expected remove the file."""
        with _naming(self.path), response, open(self.path, "ab") as handle:
            for chunk in _body(response):
                handle.write(chunk)
                self.digest.update(chunk)
                self.size += len(chunk)
                bar.update(len(chunk))
                if expected_bytes is not None and self.size > expected_bytes:
                    handle.close()
                    self.path.unlink(missing_ok=True)
                    raise GroundBenchError(url, "size", f"expected {expected_bytes} bytes, got more")
            handle.flush()
            os.fsync(handle.fileno())


def _hash_prefix(path: Path) -> tuple[hashlib._Hash, int]:
    digest = hashlib.sha256()
    size = 0
    if path.is_file():
        with open(path, "rb") as handle:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
                size += len(chunk)
    return digest, size


@contextmanager
def _naming(path: Path) -> Iterator[None]:
    """An OSError of a write or flush names no file: it is ``path``'s, and the message says so."""
    try:
        yield
    except OSError as exc:
        if exc.filename is None:
            exc.filename = str(path)
        raise


def _body(response: http.client.HTTPResponse) -> Iterator[bytes]:
    """The body's chunks, up to its end or to where the connection dropped."""
    while chunk := _read(response):
        yield chunk


def _read(response: http.client.HTTPResponse) -> bytes:
    """The next chunk of the body; empty at its end and when the connection dropped (the caller resumes)."""
    try:
        return response.read(CHUNK)
    except (http.client.IncompleteRead, ConnectionError, TimeoutError, OSError):
        return b""
