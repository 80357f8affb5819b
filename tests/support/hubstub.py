"""A loopback stand-in for the Hugging Face Hub endpoints that ``create_repo``, ``upload_folder``,
``create_tag``, ``list_repo_refs``, ``list_repo_tree``, ``snapshot_download``, ``dataset_info`` and, on a
model repository, ``create_commit(..., create_pr=True)`` call (huggingface_hub 2.x with
HF_HUB_DISABLE_XET=1, so every file travels inline).

Binds 127.0.0.1 only, answers at most ``max_requests`` requests, and stops itself after ``lifetime``
seconds, so a hung client can never keep it alive. It keeps every commit (a new repo starts with
an empty one, as on the Hub), the tags and the commits they point at, and answers revisions given
as a branch, a tag or a commit id. Tree listings carry git blob ids, as the Hub's do.

Faults, for the fault suite: ``drop_reply[action] = n`` applies the next ``n`` requests of that
action (``commit``, ``tag``, ...) and closes the connection without a reply (the reply was lost);
``cut[action] = n`` closes the connection on the next ``n`` without applying them (the network went);
``hold[action] = Event()`` keeps the requests of that action waiting until the event is set (``held``
counts them), so a test can kill a client in the middle of an upload.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.parse
from collections import Counter
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

MAIN = "main"


def git_blob_id(data: bytes) -> str:
    return hashlib.sha1(f"blob {len(data)}\0".encode() + data).hexdigest()  # noqa: S324 (git object id)


def cli_against(endpoint: str, home: Path, root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """``groundbench --root ROOT ARGS`` in a subprocess whose Hub is ``endpoint`` (huggingface_hub reads its
    environment at import), with a throw-away token and HF_HOME, online, every file inline (no Xet)."""
    command = [sys.executable, "-m", "groundbench.cli", "--root", str(root), *args]
    return subprocess.run(command, env=env_against(endpoint, home), capture_output=True, text=True, timeout=300)


def env_against(endpoint: str, home: Path) -> dict[str, str]:
    """The environment of :func:`cli_against`: :func:`hub_env` with a throw-away token."""
    return {**hub_env(endpoint, home), "HF_TOKEN": "hf_loopback_test_token"}


def hub_env(endpoint: str, home: Path) -> dict[str, str]:
    """This environment without any HF_ variable, online against ``endpoint`` with HF_HOME ``home``, no token."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("HF_", "HUGGING"))}
    env.update(
        HF_ENDPOINT=endpoint,  # the loopback stub; never the real Hub
        HF_HUB_OFFLINE="0",
        HF_HUB_DISABLE_XET="1",
        HF_HUB_DISABLE_TELEMETRY="1",
        HF_HOME=str(home),
        NO_PROXY="127.0.0.1",
        no_proxy="127.0.0.1",
    )
    return env


class HubStub:
    def __init__(self, max_requests: int = 200, lifetime: float = 120.0) -> None:
        self.repos: set[str] = set()
        self.files: dict[str, bytes] = {}  # path in repo -> bytes of main's last commit
        self.commits: list[dict[str, Any]] = []  # uploads, in order: header, files, deleted, sha
        self.snapshots: dict[str, dict[str, bytes]] = {}  # commit id -> every file at that commit
        self.head: str | None = None
        self.tags: dict[str, str] = {}  # tag -> message
        self.tagged: dict[str, str] = {}  # tag -> commit id
        self.pull_requests: list[dict[str, Any]] = []  # commits opened as pull requests on model repositories
        self.requests: list[str] = []
        self.unknown: list[str] = []
        self.drop_reply: Counter[str] = Counter()
        self.cut: Counter[str] = Counter()
        self.hold: dict[str, threading.Event] = {}  # action -> requests of it wait until it is set (or the lifetime)
        self.held: Counter[str] = Counter()  # requests that arrived while their action was held
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
        self.server.daemon_threads = True
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

    # state ---------------------------------------------------------------------------------------------

    def _new_commit(self, files: dict[str, bytes]) -> str:
        content = json.dumps({p: hashlib.sha256(b).hexdigest() for p, b in sorted(files.items())})
        sha = hashlib.sha1(f"{self.head}\n{len(self.snapshots)}\n{content}".encode()).hexdigest()  # noqa: S324
        self.snapshots[sha] = dict(files)
        self.head = sha
        self.files = dict(files)
        return sha

    def seed(self, repo: str, files: dict[str, bytes], tag: str | None = None) -> str:
        """A dataset repository that already holds ``files`` at a new commit (tagged ``tag``): its commit id."""
        self.repos.add(repo)
        sha = self._new_commit(files)
        if tag is not None:
            self.tags[tag] = ""
            self.tagged[tag] = sha
        return sha

    def resolve(self, revision: str) -> str | None:
        """A branch (main), tag or commit id as the commit it names."""
        revision = urllib.parse.unquote(revision)
        if revision == MAIN:
            return self.head
        if revision in self.tagged:
            return self.tagged[revision]
        return revision if revision in self.snapshots else None

    # faults ---------------------------------------------------------------------------------------------

    @staticmethod
    def _hang_up(handler: Any) -> None:
        """Close the connection without a reply."""
        handler.close_connection = True
        with contextlib.suppress(OSError):  # the client may be gone already
            handler.connection.shutdown(socket.SHUT_RDWR)

    def _fault(self, counter: Counter[str], action: str) -> bool:
        if counter[action] > 0:
            counter[action] -= 1
            return True
        return False

    # requests --------------------------------------------------------------------------------------------

    @staticmethod
    def _send_file(handler: Any, method: str, data: bytes, commit: str) -> None:
        """A file download as the Hub answers it: the commit and the file's etag in the headers."""
        handler.send_response(200)
        handler.send_header("Content-Type", "application/octet-stream")
        handler.send_header("Content-Length", str(len(data)))
        handler.send_header("X-Repo-Commit", commit)
        handler.send_header("ETag", f'"{git_blob_id(data)}"')
        handler.end_headers()
        if method == "GET":
            handler.wfile.write(data)

    def handle(self, handler: Any, method: str, body: bytes) -> None:
        path = handler.path.split("?")[0]
        self.requests.append(f"{method} {path}")
        parts = path.strip("/").split("/")
        action = parts[4] if len(parts) >= 5 and parts[:2] == ["api", "datasets"] else path
        if path == "/api/repos/create":
            action = "create"
        if action in self.hold:
            self.held[action] += 1
            self.hold[action].wait(timeout=max(0.0, self.deadline - time.monotonic()))
        if self._fault(self.cut, action):
            return self._hang_up(handler)
        answer = self._answer(handler, method, path, parts, body)
        if self._fault(self.drop_reply, action):
            return self._hang_up(handler)
        code, payload, headers = answer
        if code == 0:  # a file, already sent
            return None
        return handler._reply(code, payload, headers)

    def _answer(self, handler: Any, method: str, path: str, parts: list[str], body: bytes) -> tuple[int, Any, Any]:
        if path == "/api/repos/create":
            payload = json.loads(body)
            repo = f"{payload.get('organization') or 'user'}/{payload['name']}"
            if repo not in self.repos:
                self.repos.add(repo)
                self._new_commit({})  # a new repo starts with one (here: empty) commit
            return 200, {"url": f"{self.endpoint}/datasets/{repo}", "name": repo}, None
        if len(parts) >= 6 and parts[0] == "datasets" and parts[3] == "resolve":  # a file at a revision
            commit = self.resolve(parts[4])
            name = "/".join(parts[5:])
            files = self.snapshots.get(commit or "", {})
            if commit is None or name not in files:
                return 404, {"error": f"no file {name}"}, {"X-Error-Code": "EntryNotFound"}
            self._send_file(handler, method, files[name], commit)
            return 0, None, None
        if path == "/api/validate-yaml":
            return 200, {"errors": [], "warnings": []}, None
        if len(parts) >= 5 and parts[:2] == ["api", "datasets"]:
            return self._api(f"{parts[2]}/{parts[3]}", parts[4], parts[5:], body)
        if len(parts) >= 5 and parts[:2] == ["api", "models"]:  # a model repository: pull requests only
            return self._model_api(handler, f"{parts[2]}/{parts[3]}", parts[4], body)
        self.unknown.append(f"{method} {handler.path}")
        return 404, {"error": f"stub does not implement {method} {path}"}, None

    def _api(self, repo: str, action: str, rest: list[str], body: bytes) -> tuple[int, Any, Any]:
        if repo not in self.repos:
            return 404, {"error": "Repository not found"}, {"X-Error-Code": "RepoNotFound"}
        if action == "preupload":
            return self._preupload(body)
        if action == "revision":  # repo_info at a revision
            commit = self.resolve(rest[0] if rest else MAIN)
            if commit is None:
                return 404, {"error": "Revision not found"}, {"X-Error-Code": "RevisionNotFound"}
            siblings = [{"rfilename": name} for name in sorted(self.snapshots[commit])]
            return 200, {"id": repo, "sha": commit, "siblings": siblings, "private": False}, None
        if action == "refs":
            tags = [{"name": t, "ref": f"refs/tags/{t}", "targetCommit": c} for t, c in sorted(self.tagged.items())]
            branches = [{"name": MAIN, "ref": f"refs/heads/{MAIN}", "targetCommit": self.head}]
            return 200, {"branches": branches, "converts": [], "tags": tags}, None
        if action == "tree":
            commit = self.resolve(rest[0] if rest else MAIN)
            if commit is None:
                return 404, {"error": "Revision not found"}, {"X-Error-Code": "RevisionNotFound"}
            files = self.snapshots[commit]
            entries = [
                {"type": "file", "path": p, "size": len(b), "oid": git_blob_id(b)} for p, b in sorted(files.items())
            ]
            return 200, entries, None
        if action == "commit":
            return self._commit(repo, body)
        if action == "tag":
            payload = json.loads(body)
            commit = self.resolve(rest[0] if rest else MAIN)
            if commit is None:
                return 404, {"error": "Revision not found"}, {"X-Error-Code": "RevisionNotFound"}
            if payload["tag"] in self.tagged:
                return 409, {"error": f"Tag {payload['tag']} already exists"}, None
            self.tags[payload["tag"]] = payload.get("message") or ""
            self.tagged[payload["tag"]] = commit
            return 200, {"name": payload["tag"]}, None
        return 404, {"error": f"stub does not implement {action}"}, None

    @staticmethod
    def _preupload(body: bytes) -> tuple[int, Any, Any]:
        files = [{"path": f["path"], "uploadMode": "regular", "shouldIgnore": False} for f in json.loads(body)["files"]]
        return 200, {"files": files}, None

    @staticmethod
    def _parse_commit(body: bytes) -> dict[str, Any]:
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

    def _model_api(self, handler: Any, repo: str, action: str, body: bytes) -> tuple[int, Any, Any]:
        if action == "preupload":
            return self._preupload(body)
        if action == "commit" and "create_pr=1" in handler.path.partition("?")[2].split("&"):
            commit = {**self._parse_commit(body), "repo": repo}
            self.pull_requests.append(commit)
            sha = hashlib.sha1(f"pr {len(self.pull_requests)} {repo}".encode()).hexdigest()  # noqa: S324
            pull = f"{self.endpoint}/{repo}/discussions/{len(self.pull_requests)}"
            url = f"{self.endpoint}/{repo}/commit/{sha}"
            return 200, {"commitUrl": url, "commitOid": sha, "pullRequestUrl": pull}, None
        return 404, {"error": f"stub does not implement {action} on a model repository"}, None

    def _commit(self, repo: str, body: bytes) -> tuple[int, Any, Any]:
        commit = self._parse_commit(body)
        files = dict(self.files)
        for deleted in commit["deleted"]:
            files.pop(deleted, None)
            for name in [n for n in files if n.startswith(deleted.rstrip("/") + "/")]:
                files.pop(name)
        files.update(commit["files"])
        commit["sha"] = self._new_commit(files)
        self.commits.append(commit)
        url = f"{self.endpoint}/datasets/{repo}/commit/{commit['sha']}"
        return 200, {"commitUrl": url, "commitOid": commit["sha"]}, None
