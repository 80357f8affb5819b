"""Measurement helpers shared by the benchmarks (``run.py``, ``umd_bench.py``).

Each measurement runs in a fresh child process so its CPU time and peak RSS are its own; a thread in
the parent samples the summed RSS of the child's whole process tree, and ``/proc/stat`` gives the CPU
that every process on the (shared) machine used meanwhile, so other engineers' load shows up.

Children are forked from a fork server that has imported the benchmark script and GroundBench's
pipeline once (``PRELOAD``), instead of each spawned child importing them again: about 2.3 s of start-up
per child, which no figure included (timing starts inside the child) but every run paid, 30-odd times.
A child's RSS therefore includes those modules' pages (~0.2 GB) whether it uses them or not; every
conversion and stage child imports them anyway, so the peak-RSS figures the targets judge are unchanged.
"""

from __future__ import annotations

import multiprocessing
import os
import platform
import resource
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from groundbench.core.parallel import worker_count

GB = 1_000_000_000  # decimal, as the "1.5 GB"
RSS_POLL_SECONDS = 0.1
# What the fork server imports once: the running script (its children are module-level functions there)
# and the module that nearly every child imports (the bake stage: pyarrow, pandera).
PRELOAD = ("__main__", "groundbench.stages.bake")
BUSY_MACHINE_CORES = 0.1  # other processes' CPU above this makes a report warn that the machine was shared
# Variables that change how many threads numpy/OpenCV use in each process, recorded with the results.
THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENCV_FOR_THREADS_NUM")


@dataclass(frozen=True)
class Usage:
    """What one measured child reports about itself and its (finished) worker processes."""

    wall_s: float
    cpu_s: float  # user + sys of the child and all its workers
    self_peak_rss: int  # bytes; the child process itself
    worker_peak_rss: int  # bytes; the largest of its workers (ru_maxrss of RUSAGE_CHILDREN)
    machine_busy_s: float  # CPU seconds every process on the machine used meanwhile (/proc/stat)
    result: dict[str, Any]


def _machine_busy_seconds() -> float:
    """CPU seconds the whole machine has been busy since boot: other work on a shared machine shows up here."""
    fields = [int(value) for value in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = fields[3] + fields[4]  # idle + iowait
    return (sum(fields[:8]) - idle) / os.sysconf("SC_CLK_TCK")  # user..steal; guest time is inside user


def _cpu_seconds() -> float:
    own, workers = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + workers.ru_utime + workers.ru_stime


def measured(func: Callable[[], dict[str, Any]]) -> Usage:
    """Run ``func`` in this (child) process; its workers must have exited when it returns."""
    cpu_before, busy_before = _cpu_seconds(), _machine_busy_seconds()
    started = time.perf_counter()
    result = func()
    wall = time.perf_counter() - started
    busy = _machine_busy_seconds() - busy_before
    kib = 1024  # ru_maxrss is in KiB on Linux
    return Usage(
        wall_s=wall,
        cpu_s=_cpu_seconds() - cpu_before,
        self_peak_rss=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * kib,
        worker_peak_rss=resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * kib,
        machine_busy_s=busy,
        result=result,
    )


def _process_tree(root_pid: int) -> set[int]:
    """``root_pid`` and all its descendants now (from /proc)."""
    parents: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                stat = Path(f"/proc/{entry}/stat").read_text()
            except OSError:  # exited meanwhile
                continue
            parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
    tree, frontier = {root_pid}, [root_pid]
    while frontier:
        pid = frontier.pop()
        children = [child for child, parent in parents.items() if parent == pid]
        tree.update(children)
        frontier.extend(children)
    return tree


def _kib_fields(path: str, names: tuple[str, ...]) -> dict[str, int]:
    """``Name:   123 kB`` lines of a /proc file, in bytes (missing file or field: absent)."""
    found: dict[str, int] = {}
    try:
        text = Path(path).read_text()
    except OSError:
        return found
    for line in text.splitlines():
        name, _, value = line.partition(":")
        if name in names:
            found[name] = int(value.split()[0]) * 1024
    return found


@dataclass
class TreeMemory:
    """One sample of a process tree's memory (bytes). ``rss`` counts memory-mapped file pages (the shards
    and images verify reads through mmap); ``rss_anon``/``pss_anon`` only anonymous memory (the heap,
    numpy and Arrow buffers), which is what the machine must have free; PSS splits the pages forked
    workers share, so summing it over the tree counts each page once."""

    rss: int = 0
    rss_anon: int = 0
    pss_anon: int = 0
    largest_vm_hwm: int = 0  # the largest single process's own peak RSS (kernel's high-water mark)

    def peak(self, other: TreeMemory) -> TreeMemory:
        return TreeMemory(*(max(a, b) for a, b in zip(vars(self).values(), vars(other).values(), strict=True)))


def _tree_memory(root_pid: int) -> TreeMemory:
    page = os.sysconf("SC_PAGE_SIZE")
    now = TreeMemory()
    for pid in _process_tree(root_pid):
        try:
            now.rss += int(Path(f"/proc/{pid}/statm").read_text().split()[1]) * page
        except (OSError, IndexError, ValueError):
            continue
        status = _kib_fields(f"/proc/{pid}/status", ("RssAnon", "VmHWM"))
        now.rss_anon += status.get("RssAnon", 0)
        now.largest_vm_hwm = max(now.largest_vm_hwm, status.get("VmHWM", 0))
        now.pss_anon += _kib_fields(f"/proc/{pid}/smaps_rollup", ("Pss_Anon",)).get("Pss_Anon", 0)
    return now


def _process_tree_rss(root_pid: int) -> int:
    """Resident bytes of ``root_pid`` and all its descendants now (0 once it has gone)."""
    return _tree_memory(root_pid).rss


class TreeRssSampler:
    """Polls the summed memory of a process tree in a thread: the peaks that were resident at one moment."""

    def __init__(self, pid: int, observe: Callable[[TreeMemory], None] | None = None) -> None:
        self.pid = pid
        self.observe = observe  # also handed every sample (a curve of memory over the run)
        self.memory = TreeMemory()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    @property
    def peak(self) -> int:
        return self.memory.rss

    def _run(self) -> None:
        while not self._stop.is_set():
            now = _tree_memory(self.pid)
            self.memory = self.memory.peak(now)
            if self.observe is not None:
                self.observe(now)
            self._stop.wait(RSS_POLL_SECONDS)

    def __enter__(self) -> TreeRssSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def _child_entry(connection: Any, func: Callable[..., Usage], args: tuple[Any, ...]) -> None:
    try:
        connection.send(("ok", func(*args)))
    except BaseException:  # report any failure to the parent instead of dying silently
        connection.send(("error", traceback.format_exc()))
    finally:
        connection.close()


def run_in_child(func: Callable[..., Usage], *args: Any) -> tuple[Usage, int]:
    """``func(*args)`` in a fresh child process, so its RSS and CPU are its own; also the sampled tree peak."""
    usage, memory = run_in_child_memory(func, *args)
    return usage, memory.rss


def run_in_child_memory(
    func: Callable[..., Usage], *args: Any, observe: Callable[[TreeMemory], None] | None = None
) -> tuple[Usage, TreeMemory]:
    """``run_in_child``, with every sampled peak of the child's process tree (``TreeMemory``); ``observe`` is
    handed each sample as it is taken."""
    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(list(PRELOAD))  # read when the server starts (the first child)
    receiver, sender = context.Pipe(duplex=False)
    process = context.Process(target=_child_entry, args=(sender, func, args))
    process.start()
    sender.close()
    with TreeRssSampler(process.pid or 0, observe) as sampler:
        try:
            status, payload = receiver.recv()
        except EOFError:
            status, payload = "error", "the child exited without a result (killed, e.g. out of memory?)"
        process.join()
    if status != "ok":
        raise RuntimeError(f"{func.__name__} failed in the child process:\n{payload}")
    return payload, sampler.memory


def tree_bytes(folder: Path) -> int:
    return sum(path.stat().st_size for path in folder.rglob("*") if path.is_file())


def versions() -> dict[str, str]:
    import numpy
    import PIL
    import pyarrow
    import scipy

    return {
        "python": platform.python_version(),
        "pyarrow": pyarrow.__version__,
        "scipy": scipy.__version__,
        "numpy": numpy.__version__,
        "pillow": PIL.__version__,
    }


def machine() -> dict[str, Any]:
    cpu = next(
        (
            line.split(":", 1)[1].strip()
            for line in Path("/proc/cpuinfo").read_text().splitlines()
            if line.startswith("model name")
        ),
        platform.processor(),
    )
    memory_kib = next(
        int(line.split()[1]) for line in Path("/proc/meminfo").read_text().splitlines() if line.startswith("MemTotal")
    )
    return {"nproc": worker_count(0), "cpu": cpu, "memory_bytes": memory_kib * 1024, "platform": platform.platform()}
