"""Loopback servers for the fetch tests (127.0.0.1 only; they stop themselves after ``lifetime`` seconds).

- :class:`FileServer`: plain HTTP serving files with ``Range`` support; it can drop the connection
  half-way through a body once, as a flaky mirror does, and send slowly (``pace`` seconds per 16 KiB),
  so that a test can interrupt a download in progress.
- :class:`HubRepos`: the read side of the Hugging Face Hub that ``huggingface_hub`` 2.x calls for
  ``dataset_info``, ``list_repo_tree`` and ``hf_hub_download`` (HF_HUB_DISABLE_XET=1): dataset repos
  at one fixed commit each. Files of 1 KiB or more are served as LFS files (oid = sha256), smaller
  ones as git blobs (oid = git blob sha1), as the Hub does.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
import urllib.parse
from abc import ABC, abstractmethod
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class _Server(ABC):
    def __init__(self, lifetime: float) -> None:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: object) -> None:
                pass

            def do_GET(self) -> None:  # noqa: N802
                owner.handle(self, "GET")

            def do_HEAD(self) -> None:  # noqa: N802
                owner.handle(self, "HEAD")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.deadline = time.monotonic() + lifetime
        self.requests: list[tuple[str, str, str | None]] = []  # method, path, Range header
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        self.server.timeout = 0.2
        while time.monotonic() < self.deadline:
            self.server.handle_request()
        self.server.server_close()

    def __enter__(self) -> Any:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.deadline = 0.0
        self._thread.join(timeout=5)

    @abstractmethod
    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        """Answer one request (each server: its own routes)."""

    @staticmethod
    def send_body(
        handler: BaseHTTPRequestHandler,
        method: str,
        data: bytes,
        headers: dict[str, str],
        drop: bool = False,
        pace: float = 0.0,
    ) -> None:
        """200, or 206 for a ``Range: bytes=N-`` request; ``drop`` closes the connection half-way."""
        wanted = handler.headers.get("Range")
        start = int(wanted.removeprefix("bytes=").split("-")[0]) if wanted else 0
        body = data[start:]
        handler.send_response(206 if wanted else 200)
        if wanted:
            handler.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
        handler.send_header("Content-Length", str(len(body)))
        handler.send_header("Accept-Ranges", "bytes")
        for key, value in headers.items():
            handler.send_header(key, value)
        handler.end_headers()
        if method == "HEAD":
            return
        if drop:
            handler.wfile.write(body[: len(body) // 2])
            handler.wfile.flush()
            handler.close_connection = True
            handler.connection.shutdown(2)  # the rest of the body never comes
            return
        if not pace:
            handler.wfile.write(body)
            return
        try:
            for start in range(0, len(body), 16384):
                handler.wfile.write(body[start : start + 16384])
                handler.wfile.flush()
                time.sleep(pace)
        except OSError:  # the client went away (interrupted)
            pass


class FileServer(_Server):
    def __init__(
        self, files: dict[str, bytes], drop_first: bool = False, lifetime: float = 300.0, pace: float = 0.0
    ) -> None:
        super().__init__(lifetime)
        self.files = files
        self.drops_left = 1 if drop_first else 0
        self.pace = pace

    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        path = urllib.parse.unquote(handler.path.split("?")[0])
        self.requests.append((method, path, handler.headers.get("Range")))
        if path not in self.files:
            handler.send_response(404)
            handler.send_header("Content-Length", "0")
            handler.end_headers()
            return
        drop = method == "GET" and self.drops_left > 0
        self.drops_left -= int(drop)
        headers = {"Last-Modified": "Mon, 01 Jan 2024 00:00:00 GMT"}
        self.send_body(handler, method, self.files[path], headers, drop, self.pace)


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()  # noqa: S324 (git object id)


class HubRepos(_Server):
    def __init__(self, lifetime: float = 300.0) -> None:
        super().__init__(lifetime)
        self.repos: dict[str, dict[str, Any]] = {}  # repo -> {"commit": sha, "files": {path: bytes}, "oids": {...}}

    def add(self, repo: str, commit: str, files: dict[str, bytes]) -> None:
        self.repos[repo] = {"commit": commit, "files": dict(files), "listed": dict(files)}

    def change(self, repo: str, path: str, data: bytes, relist: bool) -> None:
        """New bytes under the same commit; ``relist`` also updates the tree listing's oid and size."""
        self.repos[repo]["files"][path] = data
        if relist:
            self.repos[repo]["listed"][path] = data

    @staticmethod
    def _entry(path: str, data: bytes) -> dict[str, Any]:
        entry: dict[str, Any] = {"type": "file", "path": path, "size": len(data), "oid": git_blob_id(data)}
        if len(data) >= 1024:
            entry["lfs"] = {"oid": hashlib.sha256(data).hexdigest(), "size": len(data), "pointerSize": 130}
        return entry

    def _json(self, handler: BaseHTTPRequestHandler, code: int, body: object, headers: dict[str, str] | None = None):
        data = json.dumps(body).encode()
        handler.send_response(code)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(data)))
        for key, value in (headers or {}).items():
            handler.send_header(key, value)
        handler.end_headers()
        handler.wfile.write(data)

    def handle(self, handler: BaseHTTPRequestHandler, method: str) -> None:
        raw = handler.path.split("?")[0]
        self.requests.append((method, raw, handler.headers.get("Range")))
        parts = [urllib.parse.unquote(p) for p in raw.strip("/").split("/")]
        if parts[:2] == ["api", "datasets"] and len(parts) >= 6:
            repo = self.repos.get(f"{parts[2]}/{parts[3]}")
            if repo is None:
                return self._json(handler, 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"})
            if parts[4] == "revision":
                name = f"{parts[2]}/{parts[3]}"
                return self._json(handler, 200, {"id": name, "sha": repo["commit"], "private": False})
            if parts[4] == "tree" and parts[5] == repo["commit"]:
                listed = [self._entry(p, b) for p, b in sorted(repo["listed"].items())]
                return self._json(handler, 200, listed)
        if parts[0] == "datasets" and len(parts) >= 6 and parts[3] == "resolve":
            repo = self.repos.get(f"{parts[1]}/{parts[2]}")
            path = "/".join(parts[5:])
            if repo is None or parts[4] != repo["commit"] or path not in repo["files"]:
                return self._json(handler, 404, {"error": "Entry not found"}, {"X-Error-Code": "EntryNotFound"})
            data = repo["files"][path]
            entry = self._entry(path, repo["listed"][path])
            headers = {"X-Repo-Commit": repo["commit"], "ETag": f'"{entry["oid"]}"'}
            if "lfs" in entry:
                headers["X-Linked-Etag"] = f'"{entry["lfs"]["oid"]}"'
                headers["X-Linked-Size"] = str(len(data))
            return self.send_body(handler, method, data, headers)
        return self._json(handler, 404, {"error": f"stub does not implement {method} {raw}"})
