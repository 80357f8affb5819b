"""Start-up probe for ``benchmarks/fixed_costs.py``: records when a stage process does its first work.

Python imports ``sitecustomize`` while it starts, before the command's own modules, when this folder is
on ``PYTHONPATH``. Nothing happens unless ``GROUNDBENCH_STARTUP_MARK`` names a file: then an audit hook
(PEP 578) waits for the process's first file-system event (``open``, ``os.mkdir``, ``os.rename``,
``os.link``, ...; not folder listings) on a path inside ``GROUNDBENCH_STARTUP_WATCH`` (the project's
``data/`` folder, less ``GROUNDBENCH_STARTUP_IGNORE``: every input a stage reads and every output it
writes lives there, and no module reads it while importing). At that event it appends one JSON line to
the mark file (the wall-clock time, the time this file was imported, the path and event, how many
modules are loaded and which project ones) and, with ``GROUNDBENCH_STARTUP_EXIT=1``, ends the process
with status 0 *before* the event's operation runs, so the stage changes nothing. "First work" is found
by what the stage touches, not by the name of a function: it holds whether the command's module
imports every stage (as ``cli.py`` once did) or a thin entry module imports one stage's module after
dispatch.
"""

from __future__ import annotations

import os
import sys
import time

_IMPORTED = time.time()
_MARK = os.environ.get("GROUNDBENCH_STARTUP_MARK")
# Reading, creating or moving a file counts as work; listing a folder does not (before a stage starts,
# the command scans the output folders for half-written leftovers of killed runs).
_EVENTS = frozenset(("open", "os.mkdir", "os.rename", "os.link", "os.symlink", "os.truncate"))


def _install(mark: str) -> None:
    import json

    watch = os.path.abspath(os.environ["GROUNDBENCH_STARTUP_WATCH"]) + os.sep
    # housekeeping inside the watched folder that is not the stage's work (data/.locks: one lock per output)
    ignore = tuple(
        os.path.abspath(p) + os.sep for p in os.environ.get("GROUNDBENCH_STARTUP_IGNORE", "").split(os.pathsep) if p
    )
    project = os.environ.get("GROUNDBENCH_STARTUP_PROJECT", "")
    leave = os.environ.get("GROUNDBENCH_STARTUP_EXIT") == "1"
    state = {"done": False}

    def hook(event: str, args: tuple[object, ...]) -> None:
        if state["done"] or event not in _EVENTS or not args:
            return
        path = args[0]
        if isinstance(path, bytes):
            path = os.fsdecode(path)
        if not isinstance(path, str):
            return
        full = os.path.abspath(path) + os.sep
        if full == watch or not full.startswith(watch) or full.startswith(ignore):
            return
        now = time.time()
        state["done"] = True  # the writes below raise audit events too
        modules = [m for m in list(sys.modules.values()) if m is not None]
        files = [str(getattr(m, "__file__", "") or "") for m in modules]
        # the project's own modules: under its checkout, not in an environment kept inside it (.venv)
        own = sorted(f for f in files if project and f.startswith(project) and not f.startswith(sys.prefix))
        parent = getattr(sys.modules.get("multiprocessing"), "parent_process", lambda: None)()
        heavy = sorted(
            name for name in ("datasets", "pandera", "pandas", "dask", "scipy", "torch") if name in sys.modules
        )
        line = {
            "pid": os.getpid(),
            "worker": parent is not None,  # a multiprocessing worker of the stage, not its command
            "first_work_unix": now,
            "sitecustomize_unix": _IMPORTED,
            "event": event,
            "path": path,
            "modules": len(modules),
            "project_modules": own,
            "heavy_modules": heavy,
        }
        with open(mark, "a", encoding="utf-8") as handle:
            handle.write(json.dumps(line) + "\n")
        if leave:
            sys.stdout.flush()
            os._exit(0)

    sys.addaudithook(hook)


def _chain() -> None:
    """Import the sitecustomize this one shadows (an environment may ship its own)."""
    import importlib

    here = os.path.dirname(os.path.abspath(__file__))
    saved = sys.path[:]
    sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != here]
    own = sys.modules.pop("sitecustomize", None)
    try:
        importlib.import_module("sitecustomize")
    except ImportError:
        pass
    finally:
        sys.path[:] = saved
        if own is not None:
            sys.modules["sitecustomize"] = own


if _MARK:
    _install(_MARK)
_chain()
