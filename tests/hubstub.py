"""A loopback stand-in for the Hugging Face Hub endpoints that ``create_repo``, ``upload_folder``,
``create_tag``, ``snapshot_download`` (the last commit's files read back), ``dataset_info`` and, on a model
repository, ``create_commit(..., create_pr=True)`` call (huggingface_hub 2.x with HF_HUB_DISABLE_XET=1, so
every file travels inline).

Binds 127.0.0.1 only, answers at most ``max_requests`` requests, and stops itself after ``lifetime``
seconds, so a hung client can never keep it alive. It records what was uploaded and tagged.
"""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

FAKE_SHA = "0123456789abcdef0123456789abcdef01234567"


def cli_against(endpoint: str, home: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``groundbench --root ROOT ARGS`` in a subprocess whose Hub is ``endpoint`` (huggingface_hub reads its
    environment at import), with a throw-away token and HF_HOME, online, every file inline (no Xet)."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "HUGGING"))}
    env.update(
        HF_ENDPOINT=endpoint,  # the loopback stub; never the real Hub
        HF_TOKEN="hf_loopback_test_token",
        HF_HUB_OFFLINE="0",
        HF_HUB_DISABLE_XET="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_HOME=str(home),
        NO_PROXY="127.0.0.1",
    )
    command = [sys.executable, "-m", "groundbench.cli", "--root", str(root), *args]
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=300, check=False)


class HubStub:
    def __init__(self, max_requests: int = 200, lifetime: float = 120.0) -> None:
        self.repos: set[str] = set()
        self.files: dict[str, bytes] = {}  # path in repo -> bytes of the last commit
        self.commits: list[dict[str, Any]] = []
        self.tags: dict[str, str] = {}  # tag -> message
        self.pull_requests: list[dict[str, Any]] = []  # commits opened as pull requests on model repositories
        self.requests: list[str] = []
        self.unknown: list[str] = []
        self.max_requests = max_requests
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

            def _reply(self, code: int, body: object, headers: dict[str, str] | None = None) -> None:
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                for key, value in (headers or {}).items():
                    self.send_header(key, value)
                self.end_headers()
                self.wfile.write(data)

            def _body(self) -> bytes:
                return self.rfile.read(int(self.headers.get("Content-Length") or 0))

            def do_GET(self) -> None:  # noqa: N802 (http.server naming)
                stub.handle(self, "GET", b"")

            def do_POST(self) -> None:  # noqa: N802
                stub.handle(self, "POST", self._body())

            def do_HEAD(self) -> None:  # noqa: N802
                stub.handle(self, "HEAD", b"")

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.deadline = time.monotonic() + lifetime
        self._thread = threading.Thread(target=self._serve, daemon=True)

    def _serve(self) -> None:
        self.server.timeout = 0.2
        while time.monotonic() < self.deadline and len(self.requests) < self.max_requests:
            self.server.handle_request()
        self.server.server_close()

    def __enter__(self) -> HubStub:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.deadline = 0.0
        self._thread.join(timeout=5)

    @staticmethod
    def _send_file(handler: Any, method: str, data: bytes) -> None:
        """A file download as the Hub answers it: the commit and the file's etag in the headers."""
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("X-Repo-Commit", FAKE_SHA)
        handler.send_header("ETag", f'"{hashlib.sha256(data).hexdigest()}"')
        handler.end_headers()
        if method == "GET":
            handler.wfile.write(data)

    @staticmethod
    def _commit(body: bytes) -> dict[str, Any]:
        """A commit's NDJSON payload: its header, the files it adds (inline, base64) and the paths it deletes."""
        commit: dict[str, Any] = {"files": {}, "deleted": []}
        for line in body.decode().splitlines():
            item = json.loads(line)
            if item["key"] == "header":
                commit["header"] = item["value"]
            elif item["key"] == "file":
                commit["files"][item["value"]["path"]] = base64.b64decode(item["value"]["content"])
            elif item["key"] in ("deletedFile", "deletedFolder"):
                commit["deleted"].append(item["value"]["path"])
        return commit

    def handle(self, handler: Any, method: str, body: bytes) -> None:
        path = handler.path.split("?")[0]
        self.requests.append(f"{method} {path}")
        parts = path.strip("/").split("/")
        if path == "/api/repos/create":
            payload = json.loads(body)
            repo = f"{payload.get('organization') or 'user'}/{payload['name']}"
            self.repos.add(repo)
            return handler._reply(200, {"url": f"{self.endpoint}/datasets/{repo}", "name": repo})
        if len(parts) >= 6 and parts[0] == "datasets" and parts[3] == "resolve":  # a file of the last commit
            name = "/".join(parts[5:])
            if name not in self.files:
                return handler._reply(404, {"error": f"no file {name}"}, {"X-Error-Code": "EntryNotFound"})
            return self._send_file(handler, method, self.files[name])
        if path == "/api/validate-yaml":
            return handler._reply(200, {"errors": [], "warnings": []})
        if len(parts) >= 5 and parts[:2] == ["api", "datasets"]:
            repo, action = f"{parts[2]}/{parts[3]}", parts[4]
            if action == "preupload":
                files = json.loads(body)["files"]
                return handler._reply(
                    200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]}
                )
            if action == "revision":  # repo_info: the one commit the stub holds
                siblings = [{"rfilename": name} for name in sorted(self.files)]
                return handler._reply(200, {"id": repo, "sha": FAKE_SHA, "siblings": siblings, "private": False})
            if action == "tree":
                return handler._reply(
                    200,
                    [
                        {"type": "file", "path": p, "size": len(b), "oid": hashlib.sha1(b).hexdigest()}
                        for p, b in sorted(self.files.items())
                    ],
                )
            if action == "commit":
                commit = self._commit(body)
                for deleted in commit["deleted"]:
                    self.files.pop(deleted, None)
                self.files.update(commit["files"])
                self.commits.append(commit)
                url = f"{self.endpoint}/datasets/{repo}/commit/{FAKE_SHA}"
                return handler._reply(200, {"commitUrl": url, "commitOid": FAKE_SHA})
            if action == "tag":
                payload = json.loads(body)
                self.tags[payload["tag"]] = payload.get("message") or ""
                return handler._reply(200, {"name": payload["tag"]})
        if len(parts) >= 5 and parts[:2] == ["api", "models"]:  # a model repository: pull requests only
            repo, action = f"{parts[2]}/{parts[3]}", parts[4]
            if action == "preupload":
                files = json.loads(body)["files"]
                return handler._reply(
                    200, {"files": [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in files]}
                )
            if action == "commit" and "create_pr=1" in handler.path.partition("?")[2].split("&"):
                commit = {**self._commit(body), "repo": repo}
                self.pull_requests.append(commit)
                pull = f"{self.endpoint}/{repo}/discussions/{len(self.pull_requests)}"
                url = f"{self.endpoint}/{repo}/commit/{FAKE_SHA}"
                return handler._reply(200, {"commitUrl": url, "commitOid": FAKE_SHA, "pullRequestUrl": pull})
        self.unknown.append(f"{method} {handler.path}")
        return handler._reply(404, {"error": f"stub does not implement {method} {path}"})
