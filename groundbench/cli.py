"""``groundbench.cli.main`` and ``python -m groundbench.cli``: the ``groundbench`` command, as the scripts and
tests that call it by this name expect. The command line itself: ``groundbench/entry.py`` (which module a
command line runs) and ``groundbench/commands/`` (every command, in one table)."""

from __future__ import annotations

import sys

from groundbench.entry import main

__all__ = ["main"]

if __name__ == "__main__":
    sys.exit(main())
