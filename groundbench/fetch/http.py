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
from dataclasses import dataclass
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


def _hash_prefix(path: Path) -> tuple[hashlib._Hash, int]:
    digest = hashlib.sha256()
    size = 0
    if path.is_file():
        with open(path, "rb") as handle:
            while chunk := handle.read(CHUNK):
                digest.update(chunk)
                size += len(chunk)
    return digest, size


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


def _read(response: http.client.HTTPResponse) -> bytes:
    """The next chunk of the body; empty at its end and when the connection dropped (the caller resumes)."""
    try:
        return response.read(CHUNK)
    except (http.client.IncompleteRead, ConnectionError, TimeoutError, OSError):
        return b""


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
    part = dest.with_name(dest.name + ".part")
    digest, size = _hash_prefix(part)
    resumed: list[int] = []
    etag = modified = None
    bar = tqdm(
        total=expected_bytes,
        initial=size,
        unit="B",
        unit_scale=True,
        desc=dest.name,
        disable=None if progress else True,
    )
    try:
        for _attempt in range(ATTEMPTS):
            response = _open(url, size)
            if response is None:
                break
            if size and response.status != 206:
                # The server ignored Range: start again from the first byte.
                digest, size = hashlib.sha256(), 0
                part.unlink(missing_ok=True)
                bar.reset(total=expected_bytes)
            elif size:
                resumed.append(size)
            start = size
            length = response.headers.get("Content-Length")
            # Where this response should end: a dropped connection ends the body early without an error.
            end = start + int(length) if length and length.isdigit() else None
            etag = response.headers.get("ETag") or etag
            modified = response.headers.get("Last-Modified") or modified
            try:
                with response, open(part, "ab") as handle:
                    # A network error ends this response (the rest is asked for); a disk error (a full disk)
                    # propagates: what reached the file stays in .part and the next run resumes from there.
                    while chunk := _read(response):
                        handle.write(chunk)
                        digest.update(chunk)
                        size += len(chunk)
                        bar.update(len(chunk))
                        if expected_bytes is not None and size > expected_bytes:
                            handle.close()
                            part.unlink(missing_ok=True)
                            raise GroundBenchError(url, "size", f"expected {expected_bytes} bytes, got more")
                    handle.flush()
                    os.fsync(handle.fileno())
            except OSError as exc:
                if exc.filename is None:  # a write or flush error names no file: it is the partial download
                    exc.filename = str(part)
                raise
            if end is not None and size < end:
                continue  # dropped mid-body: ask for the rest
            break
        else:
            raise GroundBenchError(url, "connection", f"dropped {ATTEMPTS} times; run fetch again to resume")
    finally:
        bar.close()
    if expected_bytes is not None and size != expected_bytes:
        raise GroundBenchError(
            url,
            "size",
            f"expected {expected_bytes} bytes, got {size} (the download or this mirror's copy is truncated); "
            "run fetch again to resume from where it stopped (with --url another mirror if this one is short)",
        )
    sha = digest.hexdigest()
    if expected_sha256 is not None and sha != expected_sha256.lower():
        part.unlink(missing_ok=True)  # wrong bytes are never resumed from
        source = f" ({pin})" if pin else ""
        raise GroundBenchError(
            url, "sha256", f"expected {expected_sha256.lower()}{source}, got {sha}; the download was removed"
        )
    os.replace(part, dest)
    return Download(dest, size, sha, etag, modified, tuple(resumed))
