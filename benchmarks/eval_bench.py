"""What users run on the built data: ``groundbench eval`` against floors (issue 43).

Against a loopback OpenAI-compatible server that answers at once (its own process, so its CPU is not
the client's), for N rows of one (config, condition), each in a fresh child process (``measure.py``):

* the **floor**: a plain asyncio client (kept-alive HTTP/1.1 connections, no library) reading the same
  prompts (``groundbench requests``' file, made before the timing) and the same image bytes (the config's
  Parquet, pyarrow), sending the same requests with the same base64 images, ``max_connections`` in flight,
  appending each answer to a JSONL file;
* a **bare inspect-ai task** asking the same prepared samples (built before the timing, images as data
  URIs; ``generate()`` only, the same logging options as GroundBench's): inspect's own cost;
* **``groundbench eval``** (the command's code in process, imports included), with the seconds before its
  first request (the server records the time of each request), the bytes it wrote to ``--out`` per sample
  (inspect's logs separately) and its peak RSS.

``--whole`` measures one ``groundbench eval`` of every row of the config under every condition (``--rows N``:
the first N of each), sampling its memory against the rows answered so far (the curve, and its slope per 1,000
rows past the first windows: flat memory), then ``groundbench requests`` of the whole config.

``python benchmarks/eval_bench.py --data FOLDER --rows 1000 --rows 5000`` runs it standalone on a published
folder; ``benchmarks/run.py`` runs it on the folder it built (``--eval-rows``; ``--whole-rows``; ``--skip eval``,
``--skip eval-whole``, ``--skip eval-gui``), and on its largest GUI config under ``gui``.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from measure import GB, TreeMemory, Usage, measured, run_in_child_memory, tree_bytes

ANSWER = '{"part": "handle", "action": "grasp", "point": [320, 240], "box": [300, 220, 340, 260]}'
SERVICE = "bench"  # openai-api/bench/...: BENCH_API_KEY, BENCH_BASE_URL
MODEL = f"openai-api/{SERVICE}/bench-vlm"
CONNECTIONS = 4


# ----------------------------------------------------------------------------------------------
# The loopback server (its own process): answers every chat completion at once with ANSWER.


def serve(port_file: Path) -> None:
    stats = {"requests": 0, "first": None, "last": None}
    body = json.dumps(
        {
            "id": "chatcmpl-bench",
            "object": "chat.completion",
            "created": 0,
            "model": "bench-vlm",
            "choices": [{"index": 0, "message": {"role": "assistant", "content": ANSWER}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
        }
    ).encode()

    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"  # keep-alive: clients reuse their connections

        def log_message(self, *args: object) -> None:
            pass

        def _send(self, data: bytes) -> None:
            self.send_response(200)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
            self._send(json.dumps(stats).encode())
            if self.path == "/reset":
                stats.update(requests=0, first=None, last=None)

        def do_POST(self) -> None:  # noqa: N802
            self.rfile.read(int(self.headers["Content-Length"]))
            now = time.time()
            stats["requests"] += 1
            stats["first"] = stats["first"] or now
            stats["last"] = now
            self._send(body)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    port_file.write_text(str(server.server_address[1]))
    server.serve_forever()


class Server:
    """The loopback server in a child process; ``stats()`` reads (and ``reset`` clears) its request times."""

    def __init__(self, work: Path) -> None:
        port_file = work / "server.port"
        self.process = subprocess.Popen([sys.executable, __file__, "--serve", str(port_file)])
        for _ in range(200):
            if port_file.is_file() and port_file.read_text():
                break
            time.sleep(0.05)
        self.url = f"http://127.0.0.1:{port_file.read_text()}/v1"

    def stats(self, reset: bool = False) -> dict[str, Any]:
        with urllib.request.urlopen(self.url.removesuffix("/v1") + ("/reset" if reset else "/stats")) as answer:
            return dict(json.loads(answer.read()))

    def close(self) -> None:
        self.process.terminate()
        self.process.wait()


# ----------------------------------------------------------------------------------------------
# The children (each measured in a fresh process).


def _image_bytes(folder: str, config: str, wanted: set[str]) -> dict[str, bytes]:
    """The embedded image bytes of the wanted rows, read with pyarrow batch by batch."""
    import pyarrow.parquet as pq

    found: dict[str, bytes] = {}
    for path in sorted((Path(folder) / "data" / config).glob("*.parquet")):
        for batch in pq.ParquetFile(path).iter_batches(columns=["example_id", "image"], batch_size=256):
            ids = batch.column(0).to_pylist()
            if not wanted.intersection(ids):
                continue
            images = batch.column(1).field("bytes")
            for number, example_id in enumerate(ids):
                if example_id in wanted:
                    found[example_id] = images[number].as_py()
    return found


def _requests(requests_file: str, rows: int) -> list[dict[str, Any]]:
    lines = [json.loads(line) for line in Path(requests_file).read_text().splitlines()]
    return sorted(lines, key=lambda line: line["example_id"])[:rows]


def _body(prompt: str, image: bytes | None, mime: str) -> dict[str, Any]:
    import base64

    content: list[dict[str, Any]] = []
    if image is not None:
        uri = f"data:{mime};base64," + base64.b64encode(image).decode("ascii")
        content.append({"type": "image_url", "image_url": {"url": uri, "detail": "auto"}})
    content.append({"type": "text", "text": prompt})
    return {"model": "bench-vlm", "messages": [{"role": "user", "content": content}], "temperature": 0}


def _mime(data: bytes) -> str:
    return "image/png" if data.startswith(b"\x89PNG") else "image/jpeg"


async def _post(reader: Any, writer: Any, host: str, path: str, body: bytes) -> bytes:
    """One HTTP/1.1 POST on a kept-alive connection (the floor's client: asyncio streams, no library)."""
    head = f"POST {path} HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
    writer.write(f"{head}Content-Length: {len(body)}\r\n\r\n".encode() + body)
    await writer.drain()
    headers = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").lower()
    length = int(headers.split("content-length:", 1)[1].split("\r\n", 1)[0])
    return bytes(await reader.readexactly(length))


def child_floor(folder: str, config: str, requests_file: str, rows: int, url: str, out: str) -> Usage:
    def work() -> dict[str, Any]:
        import asyncio
        from urllib.parse import urlsplit

        lines = _requests(requests_file, rows)
        images = _image_bytes(folder, config, {line["example_id"] for line in lines if line["image"] is not None})
        where = urlsplit(url)

        async def ask_all() -> int:
            queue: asyncio.Queue[dict[str, Any]] = asyncio.Queue()
            for line in lines:
                queue.put_nowait(line)
            with open(out, "a", encoding="utf-8") as answers:

                async def client() -> None:  # one of CONNECTIONS kept-alive connections
                    reader, writer = await asyncio.open_connection(where.hostname, where.port)
                    while not queue.empty():
                        line = queue.get_nowait()
                        image = images.get(line["example_id"])
                        body = json.dumps(_body(line["prompt"], image, _mime(image or b""))).encode()
                        reply = await _post(reader, writer, where.netloc, f"{where.path}/chat/completions", body)
                        text = json.loads(reply)["choices"][0]["message"]["content"]
                        answers.write(json.dumps({"example_id": line["example_id"], "response": text}) + "\n")
                        answers.flush()
                    writer.close()

                await asyncio.gather(*(client() for _ in range(CONNECTIONS)))
            return len(lines)

        return {"asked": asyncio.run(ask_all())}

    return measured(work)


def child_bare_inspect(
    folder: str, config: str, requests_file: str, rows: int, url: str, log_dir: str, defaults: bool = False
) -> Usage:
    import base64

    from inspect_ai import Task
    from inspect_ai import eval as inspect_eval
    from inspect_ai.dataset import MemoryDataset, Sample
    from inspect_ai.model import ChatMessageUser, Content, ContentImage, ContentText
    from inspect_ai.solver import generate

    os.environ.update({f"{SERVICE.upper()}_API_KEY": "bench", f"{SERVICE.upper()}_BASE_URL": url})
    lines = _requests(requests_file, rows)
    images = _image_bytes(folder, config, {line["example_id"] for line in lines})
    samples = []
    for line in lines:  # prepared before the timing: inspect's own cost is what is measured
        content: list[Content] = []
        image = images.get(line["example_id"])
        if line["image"] is not None and image is not None:
            content.append(ContentImage(image=f"data:{_mime(image)};base64," + base64.b64encode(image).decode()))
        content.append(ContentText(text=line["prompt"]))
        samples.append(Sample(id=line["example_id"], input=[ChatMessageUser(content=content)]))
    task = Task(dataset=MemoryDataset(samples), solver=generate(), name="bare")

    def work() -> dict[str, Any]:
        (log,) = inspect_eval(
            task,
            model=MODEL,
            model_args={"max_retries": 0},
            log_dir=log_dir,
            display="none",
            max_connections=CONNECTIONS,
            temperature=0.0,
            # as groundbench eval logs (defaults: inspect's own, images in base64 and the realtime buffer)
            **({} if defaults else {"log_images": False, "log_realtime": False, "ctl_server": False}),
        )
        return {"asked": len(samples), "status": log.status}

    return measured(work)


def child_groundbench(folder: str, config: str, conditions: list[str], rows: int | None, url: str, out: str) -> Usage:
    """``groundbench eval`` of the (config, condition)s, the first ``rows`` of each (None: every valid row)."""
    os.environ.update({f"{SERVICE.upper()}_API_KEY": "bench", f"{SERVICE.upper()}_BASE_URL": url})

    def work() -> dict[str, Any]:
        started = time.time()
        clock = CpuClock()
        from rich.console import Console

        from groundbench.evaluate.run import EvalSettings, run_eval

        quiet = Console(file=open(os.devnull, "w"))  # noqa: SIM115 (the child exits right after)
        settings = EvalSettings(
            model=MODEL,
            configs=[config],
            conditions=conditions,
            folder=Path(folder),
            out=Path(out),
            limit=rows,
            max_connections=CONNECTIONS,
            display="none",
        )
        result = run_eval(settings, quiet, quiet)
        return {"asked": result.asked, "started": started, "cpu_clock": clock.stop()}

    return measured(work)


class CpuClock:
    """The process's CPU seconds against wall time, sampled in a thread: the CPU spent before a moment the
    server records (the first request). On a machine other work shares, wall time waits for the cores; CPU
    seconds are what the command itself spent."""

    def __init__(self, every: float = 0.05) -> None:
        self.samples: list[tuple[float, float]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, args=(every,), daemon=True)
        self._thread.start()

    def _run(self, every: float) -> None:
        while not self._stop.is_set():
            self.samples.append((time.time(), time.process_time()))
            self._stop.wait(every)

    def stop(self) -> list[tuple[float, float]]:
        self._stop.set()
        self._thread.join()
        return self.samples


def cpu_before(clock: list[tuple[float, float]], moment: float) -> float | None:
    """CPU seconds the process had spent at ``moment`` (the last sample before it), from its start."""
    before = [cpu for wall, cpu in clock if wall <= moment]
    return round(before[-1] - clock[0][1], 2) if before and clock else None


def child_requests(folder: str, config: str, condition: str, out: str) -> Usage:
    """``groundbench requests`` of one (config, condition) (the command's code in process, imports included)."""

    def work() -> dict[str, Any]:
        from groundbench.cli import main

        return {"exit": main(["requests", config, "--condition", condition, "--data", folder, "--out", out])}

    return measured(work)


# ----------------------------------------------------------------------------------------------
# score: every valid (row, condition) of a config answered, against a plain floor


def write_predictions(folder: Path, config: str, out: Path, models: int = 1, name: str = "bench") -> int:
    """A predictions line for every valid (row, base condition): the target's action and point (free form: an
    answer naming every keyword, what gaming the scorer would send); the gate fields of the folder; the model
    ``name`` (eval's own lines, the run folder's answer cache, carry the same fields). ``models`` above 1: the
    same lines again under the names ``bench-2``, ``bench-3``, ..., each model's points a quarter pixel further
    right (a predictions file ``models`` times as large in which no two models share an answer, for score's
    memory against the file's size)."""
    import pyarrow.parquet as pq

    from groundbench.evaluate.gate_fields import answer_gate
    from groundbench.schemas.request_conditions import BASE_CONDITIONS, FREE_FORM, row_allows
    from groundbench.scoring.metrics import every_keyword_answer

    columns = ["example_id", "excluded", "stratum", "original_target_part_id", "conditions", "target_part_id"]
    gaming = every_keyword_answer()
    gates = {c: answer_gate(folder, config, c) for c in BASE_CONDITIONS}
    lines = 0
    names = [name, *(f"{name}-{n}" for n in range(2, models + 1))]
    with open(out, "w", encoding="utf-8") as handle:
        shards = sorted((folder / "data" / config).glob("*.parquet"))
        for shift, model, path in ((k / 4, m, p) for k, m in enumerate(names) for p in shards):
            table = pq.read_table(path, columns=[*columns, "target_action", "parts"])
            for row in table.to_pylist():
                part = next((p for p in row["parts"] or [] if p["part_id"] == row["target_part_id"]), None) or {}
                x, y = part.get("point_xy") or [1.0, 1.0]
                point = [x + shift, y] if shift else [x, y]
                answer = json.dumps({"part": part.get("category"), "action": row["target_action"], "point": point})
                for condition in BASE_CONDITIONS:
                    if row_allows(row, condition):
                        response = gaming if condition == FREE_FORM else answer
                        line = {"example_id": row["example_id"], "config": config, "condition": condition}
                        handle.write(json.dumps({**line, "model": model, **gates[condition], "response": response}))
                        handle.write("\n")
                        lines += 1
    return lines


def _in_mask(part: dict[str, Any], x: float, y: float) -> bool:
    """Whether pixel (x, y) is in the part's mask: its row-major runs over the visible box, walked."""
    box, counts = part.get("visible_bbox_xyxy"), part.get("mask_rle")
    if not box or counts is None:
        return False
    x0, y0, x1, y1 = (int(v) for v in box)
    col, line = int(x) - x0, int(y) - y0
    if not (0 <= col < x1 - x0 and 0 <= line < y1 - y0):
        return False
    index, start = line * (x1 - x0) + col, 0
    for number, run in enumerate(counts):
        if index < start + run:
            return number % 2 == 1
        start += run
    return False


def child_score_floor(folder: str, config: str, predictions: str, out: str) -> Usage:
    def work() -> dict[str, Any]:
        import pyarrow.parquet as pq

        rows = {}
        for path in sorted((Path(folder) / "data" / config).glob("*.parquet")):
            table = pq.read_table(path, columns=["example_id", "target_action", "target_part_id", "parts"])
            for row in table.to_pylist():
                rows[row["example_id"]] = row
        right = hits = total = 0
        with open(predictions, encoding="utf-8") as handle:
            for text in handle:
                line = json.loads(text)
                row = rows[line["example_id"]]
                try:
                    answer = json.loads(line["response"])
                except ValueError:
                    answer = {}
                total += 1
                right += answer.get("action") == row["target_action"]
                part = next((p for p in row["parts"] if p["part_id"] == row["target_part_id"]), None)
                point = answer.get("point")
                hits += bool(part and point and _in_mask(part, *point))
        figures = {"lines": total, "action_accuracy": right / total, "point_in_mask": hits / total}
        Path(out).write_text(json.dumps(figures) + "\n")
        return figures

    return measured(work)


def child_score(folder: str, predictions: str, out: str) -> Usage:
    def work() -> dict[str, Any]:
        from groundbench.cli import main

        code = main(["score", predictions, "--data", folder, "--json", out])
        return {"exit": code}

    return measured(work)


def measure_score(folder: Path, config: str, work: Path, models: Sequence[int] = ()) -> dict[str, Any]:
    """``groundbench score --json`` on a predictions file of every valid (row, condition) against the floor; for
    each of ``models``, its peak memory on that file written under that many model names (``memory_in_file``)."""
    work.mkdir(parents=True, exist_ok=True)
    predictions = work / "predictions.jsonl"
    lines = write_predictions(folder, config, predictions)
    print(f"  score {config}: {lines} lines, {predictions.stat().st_size / 1e6:.1f} MB ...", flush=True)
    usage, memory = run_in_child_memory(child_score_floor, str(folder), config, str(predictions), str(work / "f.json"))
    report: dict[str, Any] = {"lines": lines, "floor": _figures(usage, memory, lines)}
    usage, memory = run_in_child_memory(child_score, str(folder), str(predictions), str(work / "scores.json"))
    report["groundbench"] = _figures(usage, memory, lines)
    report["groundbench"]["json_bytes"] = (work / "scores.json").stat().st_size
    report["ratios"] = {
        "cpu_to_floor": round(report["groundbench"]["cpu_s"] / report["floor"]["cpu_s"], 2),
        "wall_to_floor": round(report["groundbench"]["wall_s"] / report["floor"]["wall_s"], 2),
    }
    print(f"    {report['ratios']}, groundbench {report['groundbench']['cpu_s']} CPU s", flush=True)
    if models:
        report["memory_in_file"] = [score_memory(folder, config, work, n) for n in models]
    return report


def score_memory(folder: Path, config: str, work: Path, models: int) -> dict[str, Any]:
    """``groundbench score --json``'s peak memory on every valid (row, condition) answered by ``models`` models."""
    predictions = work / f"predictions-{models}.jsonl"
    lines = write_predictions(folder, config, predictions, models)
    size = predictions.stat().st_size
    usage, memory = run_in_child_memory(child_score, str(folder), str(predictions), str(work / "scores-n.json"))
    predictions.unlink()
    fig = {"models": models, "lines": lines, "file_bytes": size, **_figures(usage, memory, lines)}
    print(
        f"    {models} models: {lines} lines, {size / 1e6:.0f} MB: peak RSS {fig['peak_rss_bytes'] / GB:.2f} GB, "
        f"{fig['cpu_s']:.1f} CPU s",
        flush=True,
    )
    return fig


# ----------------------------------------------------------------------------------------------


def _figures(usage: Usage, memory: TreeMemory, rows: int) -> dict[str, Any]:
    return {
        "wall_s": round(usage.wall_s, 3),
        "cpu_s": round(usage.cpu_s, 2),
        "peak_rss_bytes": memory.rss,  # mapped file pages included (the memory-mapped config's pages read)
        "peak_anon_bytes": memory.pss_anon,  # what the process itself holds
        "cpu_ms_per_row": round(usage.cpu_s / rows * 1000, 3),
        "other_processes_cores": round(max(0.0, usage.machine_busy_s - usage.cpu_s) / usage.wall_s, 2),
        "result": usage.result,
    }


def requests_file(folder: Path, config: str, condition: str, work: Path) -> Path:
    """``groundbench requests`` of the (config, condition): the floor's prompts (made before any timing)."""
    out = work / f"requests-{config}-{condition.replace('/', '-')}.jsonl"
    if not out.is_file():
        command = [sys.executable, "-m", "groundbench.cli", "requests", config, "--condition", condition]
        subprocess.run([*command, "--data", str(folder), "--out", str(out)], check=True, capture_output=True)
    return out


def measure_eval(
    folder: Path, config: str, condition: str, rows: list[int], work: Path, bare: bool = True
) -> dict[str, Any]:
    """Floor, bare inspect task and groundbench eval for each N of ``rows`` (capped at the valid rows)."""
    work.mkdir(parents=True, exist_ok=True)
    prompts = requests_file(folder, config, condition, work)
    valid = len(prompts.read_text().splitlines())
    server = Server(work)
    report: dict[str, Any] = {"config": config, "condition": condition, "valid_rows": valid, "runs": {}}
    try:
        measured: set[int] = set()
        for wanted in rows:
            n = min(wanted, valid)
            if n in measured:  # a second run in the same folders would find its rows answered and ask nothing
                print(f"  eval {config} / {condition}: {n} rows measured already (--rows {wanted})", flush=True)
                continue
            measured.add(n)
            run: dict[str, Any] = {}
            print(f"  eval {config} / {condition}, {n} rows ...", flush=True)
            server.stats(reset=True)
            answers = work / f"floor-{n}.jsonl"
            usage, memory = run_in_child_memory(
                child_floor, str(folder), config, str(prompts), n, server.url, str(answers)
            )
            run["floor"] = _figures(usage, memory, n)
            run["floor"]["bytes_per_row"] = round(answers.stat().st_size / n, 1)
            answers.unlink()
            if bare:
                server.stats(reset=True)
                logs = work / f"bare-{n}"
                usage, memory = run_in_child_memory(
                    child_bare_inspect, str(folder), config, str(prompts), n, server.url, str(logs)
                )
                run["bare_inspect"] = _figures(usage, memory, n)
                run["bare_inspect"]["bytes_per_row"] = round(tree_bytes(logs) / n, 1)
                server.stats(reset=True)
                logs = work / f"bare-default-{n}"
                usage, memory = run_in_child_memory(
                    child_bare_inspect, str(folder), config, str(prompts), n, server.url, str(logs), True
                )
                run["bare_inspect_defaults"] = _figures(usage, memory, n)
                run["bare_inspect_defaults"]["bytes_per_row"] = round(tree_bytes(logs) / n, 1)
            server.stats(reset=True)
            out = work / f"eval-{n}"
            usage, memory = run_in_child_memory(
                child_groundbench, str(folder), config, [condition], n, server.url, str(out)
            )
            stats = server.stats()
            run["groundbench"] = fig = _figures(usage, memory, n)
            fig["first_request_s"] = round(stats["first"] - usage.result["started"], 2) if stats["first"] else None
            fig["first_request_cpu_s"] = cpu_before(usage.result.pop("cpu_clock"), stats["first"] or 0)
            fig["requests"] = stats["requests"]
            fig["bytes_per_row"] = round(tree_bytes(out) / n, 1)
            fig["log_bytes_per_row"] = round(tree_bytes(out / "logs") / n, 1)
            fig["answer_bytes_per_row"] = round((out / "answers.jsonl").stat().st_size / n, 1)
            answered = sum((out / name).stat().st_size for name in ("answers.jsonl", "predictions.jsonl"))
            fig["beyond_answer_bytes_per_row"] = round((tree_bytes(out) - answered) / n, 1)  # logs, scores
            floor = run["floor"]
            run["ratios"] = {
                "groundbench_cpu_to_floor": round(fig["cpu_s"] / floor["cpu_s"], 2),
                "groundbench_wall_to_floor": round(fig["wall_s"] / floor["wall_s"], 2),
            }
            if bare:
                inspect_cpu = run["bare_inspect"]["cpu_s"]
                run["ratios"]["bare_inspect_cpu_to_floor"] = round(inspect_cpu / floor["cpu_s"], 2)
                # GroundBench's own share per row against inspect's (target <= 0.2)
                share = (fig["cpu_s"] - inspect_cpu) / max(inspect_cpu - floor["cpu_s"], 1e-9)
                run["ratios"]["groundbench_share_to_inspect_share"] = round(share, 2)
            for line in (f"{k}: {v}" for k, v in run["ratios"].items()):
                print(f"    {line}", flush=True)
            print(
                f"    groundbench {fig['wall_s']:.1f} s wall, {fig['cpu_s']:.1f} CPU s, peak RSS "
                f"{fig['peak_rss_bytes'] / GB:.2f} GB (anonymous {fig['peak_anon_bytes'] / GB:.2f}), "
                f"first request after {fig['first_request_s']} s ({fig['first_request_cpu_s']} CPU s), "
                f"{fig['bytes_per_row']:.0f} B/row written (logs {fig['log_bytes_per_row']:.0f})",
                flush=True,
            )
            report["runs"][str(n)] = run
    finally:
        server.close()
    return report


# ----------------------------------------------------------------------------------------------
# the whole config: every condition its rows are valid under, in one command, memory sampled as it answers

CURVE_SECONDS = 2.0  # one point of the memory curve per this many seconds


class AnswerCounter:
    """Lines appended so far to a growing answers file, read incrementally (the file is never re-read)."""

    def __init__(self, path: Path) -> None:
        self.path, self.offset, self.lines = path, 0, 0

    def count(self) -> int:
        try:
            with open(self.path, "rb") as handle:
                handle.seek(self.offset)
                data = handle.read()
        except OSError:
            return self.lines
        self.offset += len(data)
        self.lines += data.count(b"\n")
        return self.lines


def growth_per_1000_rows(curve: list[dict[str, Any]], key: str, after: int) -> float | None:
    """Bytes a measure grows per 1,000 answered rows past the first ``after`` (the first windows' start-up):
    a least-squares slope over the points taken while rows were being answered; None with too few points."""
    points = [(p["answered"], p[key]) for p in curve if after <= p["answered"] < curve[-1]["answered"]]
    if len(points) < 3 or points[-1][0] == points[0][0]:
        return None
    mean_x = sum(x for x, _ in points) / len(points)
    mean_y = sum(y for _, y in points) / len(points)
    slope = sum((x - mean_x) * (y - mean_y) for x, y in points) / sum((x - mean_x) ** 2 for x, _ in points)
    return round(slope * 1000)


def measure_whole(folder: Path, config: str, work: Path, limit: int | None = None, after: int = 2000) -> dict[str, Any]:
    """``groundbench eval`` of every row of the config under every base condition (the first ``limit`` of each
    when given: a full-scale config's 350,000 samples take hours), in one command, against the loopback server:
    its peak memory and the curve of memory against answered rows (flat: the windows' samples are built and
    dropped one window at a time); ``requests`` of the whole config beside it."""
    from groundbench.schemas.request_conditions import BASE_CONDITIONS

    work.mkdir(parents=True, exist_ok=True)
    out = work / "whole"
    counter = AnswerCounter(out / "answers.jsonl")
    curve: list[dict[str, Any]] = []
    began = time.monotonic()

    def observe(now: TreeMemory) -> None:
        elapsed = time.monotonic() - began
        if not curve or elapsed - curve[-1]["s"] >= CURVE_SECONDS:
            curve.append({"s": round(elapsed, 1), "answered": counter.count(), "rss": now.rss, "anon": now.pss_anon})

    server = Server(work)
    try:
        rows = "every row" if limit is None else f"the first {limit} rows"
        print(f"  eval {config}, {rows} under each of {len(BASE_CONDITIONS)} conditions, one command ...", flush=True)
        usage, memory = run_in_child_memory(
            child_groundbench, str(folder), config, list(BASE_CONDITIONS), limit, server.url, str(out), observe=observe
        )
        stats = server.stats()
    finally:
        server.close()
    asked = usage.result["asked"]
    report: dict[str, Any] = {"config": config, "conditions": list(BASE_CONDITIONS), "limit": limit, "samples": asked}
    report["groundbench"] = fig = _figures(usage, memory, max(asked, 1))
    fig["first_request_s"] = round(stats["first"] - usage.result["started"], 2) if stats["first"] else None
    fig["first_request_cpu_s"] = cpu_before(usage.result.pop("cpu_clock"), stats["first"] or 0)
    fig["requests"] = stats["requests"]
    fig["log_bytes_per_row"] = round(tree_bytes(out / "logs") / max(asked, 1), 1)
    fig["anon_growth_per_1000_rows"] = growth_per_1000_rows(curve, "anon", after)
    fig["rss_growth_per_1000_rows"] = growth_per_1000_rows(curve, "rss", after)
    step = max(1, len(curve) // 40)  # at most about 40 points in the report
    report["curve"] = curve[::step] + ([curve[-1]] if curve and (len(curve) - 1) % step else [])
    growth = fig["anon_growth_per_1000_rows"]
    print(
        f"    {asked} samples: {fig['wall_s']:.0f} s wall, {fig['cpu_s']:.0f} CPU s, peak RSS "
        f"{fig['peak_rss_bytes'] / GB:.2f} GB (anonymous {fig['peak_anon_bytes'] / GB:.2f}), anonymous growth "
        f"{'n/a' if growth is None else f'{growth / 1e6:.2f} MB'} per 1,000 rows past {after}, first request "
        f"after {fig['first_request_s']} s ({fig['first_request_cpu_s']} CPU s), "
        f"logs {fig['log_bytes_per_row']:.0f} B/row",
        flush=True,
    )
    report["requests"] = measure_requests(folder, config, "part_named", work)
    return report


def measure_whole_answered(folder: Path, config: str, work: Path) -> dict[str, Any]:
    """The end of a whole-config run at full N: every valid (row, condition) of the config already in the run
    folder's answer cache (eval's own lines: the folder's gate fields, the model's name), so ``groundbench eval``
    of every condition asks nothing and writes the predictions and scores of them all. Its peak memory is what
    a run over the whole config holds at its end: the plan of every row, the cache read back, the predictions
    written and scored (asking every sample against the loopback server would take hours)."""
    from groundbench.schemas.request_conditions import BASE_CONDITIONS

    out = work / "answered"
    out.mkdir(parents=True, exist_ok=True)
    answers = write_predictions(folder, config, out / "answers.jsonl", name=MODEL)
    server = Server(work)  # the model's client needs an address; nothing is sent to it
    try:
        print(f"  eval {config}, every condition, all {answers} answers cached, one command ...", flush=True)
        usage, memory = run_in_child_memory(
            child_groundbench, str(folder), config, list(BASE_CONDITIONS), None, server.url, str(out)
        )
        requests = server.stats()["requests"]
    finally:
        server.close()
    fig = _figures(usage, memory, max(answers, 1))
    with open(out / "predictions.jsonl", "rb") as predictions:
        written = sum(1 for _ in predictions)
    fig.update(answers=answers, requests=requests, predictions=written)
    print(
        f"    {answers} answers: {fig['wall_s']:.0f} s wall, {fig['cpu_s']:.0f} CPU s, peak RSS "
        f"{fig['peak_rss_bytes'] / GB:.2f} GB (anonymous {fig['peak_anon_bytes'] / GB:.2f}), {requests} requests",
        flush=True,
    )
    return {"config": config, "conditions": list(BASE_CONDITIONS), "groundbench": fig}


def measure_requests(folder: Path, config: str, condition: str, work: Path) -> dict[str, Any]:
    """``groundbench requests`` of every valid row of (config, condition): time, peak memory, bytes per line."""
    out = work / f"requests-whole-{config}-{condition.replace('/', '-')}.jsonl"
    usage, memory = run_in_child_memory(child_requests, str(folder), config, condition, str(out))
    lines = len(out.read_text(encoding="utf-8").splitlines())
    fig = _figures(usage, memory, max(lines, 1))
    fig.update(
        lines=lines, bytes_per_line=round(out.stat().st_size / max(lines, 1), 1), config=config, condition=condition
    )
    print(
        f"    requests {config} / {condition}: {lines} lines in {fig['wall_s']:.1f} s wall, {fig['cpu_s']:.1f} CPU s, "
        f"peak RSS {fig['peak_rss_bytes'] / GB:.2f} GB, {fig['bytes_per_line']:.0f} B/line",
        flush=True,
    )
    out.unlink()
    return fig


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--data", type=Path, help="a published GroundBench folder")
    parser.add_argument("--config", default="bulk_umd")
    parser.add_argument("--condition", default="part_named")
    parser.add_argument("--rows", type=int, action="append", help="N rows to ask (repeatable; default 1000)")
    parser.add_argument("--no-bare", action="store_true", help="leave out the bare inspect-ai task")
    parser.add_argument(
        "--whole",
        action="store_true",
        help="eval every row of the config under every condition in one command (memory curve; --rows N: the first N "
        "of each condition), and requests",
    )
    parser.add_argument(
        "--whole-answered",
        action="store_true",
        help="eval every condition of the config with every valid row already answered in its run folder: the "
        "memory of a whole-config run's end (its plan, predictions and score) without hours of requests",
    )
    parser.add_argument("--score", action="store_true", help="measure `groundbench score` instead of eval")
    parser.add_argument(
        "--score-models",
        type=int,
        action="append",
        default=[],
        metavar="N",
        help="with --score: also score's peak memory on the file written under N model names (repeatable)",
    )
    parser.add_argument("--json", type=Path, default=None, help="also write the figures here")
    args = parser.parse_args(argv)
    if args.serve is not None:
        serve(args.serve)
        return 0
    if args.data is None:
        parser.error("--data is required")
    with tempfile.TemporaryDirectory(prefix="groundbench-eval-bench-") as work:
        if args.score:
            report = measure_score(args.data, args.config, Path(work), args.score_models)
        elif args.whole_answered:
            report = measure_whole_answered(args.data, args.config, Path(work))
        elif args.whole:
            report = measure_whole(args.data, args.config, Path(work), args.rows[0] if args.rows else None)
        else:
            report = measure_eval(
                args.data, args.config, args.condition, args.rows or [1000], Path(work), not args.no_bare
            )
    text = json.dumps(report, indent=2) + "\n"
    if args.json is not None:
        args.json.write_text(text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
