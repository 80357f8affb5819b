"""A loopback OpenAI-compatible chat-completions server that records what each request carried.

Binds 127.0.0.1 only. For every ``POST /v1/chat/completions`` it records the prompt text, the sha256 and
size of the image decoded from the data URI (None when no image was sent), a system message's text and the
whole body, waits ``delay`` seconds (so a test can kill a client mid-run), and answers ``reply`` (a text, or
a function of what was asked); or, when ``failing(asked)`` is true, HTTP 500 (a provider that keeps failing
those requests, however often they are retried).
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from PIL import Image


@dataclass(frozen=True)
class Asked:
    prompt: str
    image_sha256: str | None
    body: dict[str, Any]
    system: str | None = None  # a system message's text, when one was sent before the user's
    image_size: tuple[int, int] | None = None  # (width, height) of the image sent


def _asked(body: dict[str, Any]) -> Asked:
    messages = body["messages"]
    system = None
    if len(messages) == 2:
        first, message = messages
        assert first["role"] == "system", first
        system = first["content"] if isinstance(first["content"], str) else first["content"][0]["text"]
    else:
        (message,) = messages
    content = message["content"]
    if isinstance(content, str):
        return Asked(content, None, body, system)
    texts = [c["text"] for c in content if c["type"] == "text"]
    images = [c["image_url"]["url"] for c in content if c["type"] == "image_url"]
    assert len(texts) == 1 and len(images) <= 1, content
    sha, size = None, None
    if images:
        head, _, data = images[0].partition(",")
        assert head.startswith("data:image/") and head.endswith(";base64"), head
        raw = base64.b64decode(data)
        sha = hashlib.sha256(raw).hexdigest()
        with Image.open(io.BytesIO(raw)) as image:
            size = image.size
    return Asked(texts[0], sha, body, system, size)


class OpenAIStub:
    def __init__(
        self, reply: str | Callable[[Asked], str], delay: float = 0.0, failing: Callable[[Asked], bool] | None = None
    ) -> None:
        self.asked: list[Asked] = []
        self.reply = reply
        self.delay = delay
        self.failing = failing
        self.failed: list[Asked] = []
        self.lock = threading.Lock()
        stub = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:  # keep test output quiet
                pass

            def do_POST(self) -> None:  # noqa: N802 (http.server's naming)
                try:
                    body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                except (OSError, ValueError):  # the client was interrupted while it sent the request
                    return
                if self.path != "/v1/chat/completions":
                    self.send_error(404)
                    return
                asked = _asked(body)
                if stub.failing is not None and stub.failing(asked):
                    with stub.lock:
                        stub.failed.append(asked)
                    self.send_error(500, "the stub fails this request")
                    return
                with stub.lock:
                    stub.asked.append(asked)
                time.sleep(stub.delay)
                text = stub.reply(asked) if callable(stub.reply) else stub.reply
                answer = {
                    "id": "chatcmpl-stub",
                    "object": "chat.completion",
                    "created": 0,
                    "model": body["model"],
                    "choices": [
                        {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}
                    ],
                    "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
                }
                data = json.dumps(answer).encode()
                try:
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(data)))
                    self.end_headers()
                    self.wfile.write(data)
                except OSError:  # the client was killed while this request was in flight
                    pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self) -> OpenAIStub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
