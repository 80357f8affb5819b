"""``GroundBenchError`` is defined in ``groundbench/errors.py``, below every package (``schemas`` raises it
too, and ``core`` builds on ``schemas``: defining it here would make the two packages import each other).
Re-exported so ``from groundbench.core.errors import GroundBenchError`` keeps working."""

from groundbench.errors import GroundBenchError

__all__ = ["GroundBenchError"]
