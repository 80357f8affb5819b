"""A restricted unpickler for GAPartNet's ``bbox/*.pkl``: numpy arrays and plain containers only.

Plain ``pickle.load`` runs whatever callable the file names, so an untrusted ``.pkl`` can execute
code. The renderer's pickles hold dicts of numpy arrays, ints, floats and strings; rebuilding those
needs exactly the array reconstructors below (spelled ``numpy.core`` under numpy 1.x and
``numpy._core`` under numpy 2.x; protocol 5 uses ``_frombuffer``), ``numpy.dtype`` and, for
protocol 2 bytes, ``_codecs.encode`` with latin1. Every other global is refused.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

import numpy as np

from groundbench.errors import GroundBenchError

_ALLOWED: dict[tuple[str, str], Any] = {}
for _module in ("numpy.core.multiarray", "numpy._core.multiarray"):
    _ALLOWED[(_module, "_reconstruct")] = np.ndarray.__reduce__(np.zeros(1))[0]
_ALLOWED[("numpy", "ndarray")] = np.ndarray


def _latin1(text: str, encoding: str = "latin1") -> bytes:
    """Protocol 2 spells bytes as ``_codecs.encode(str, 'latin1')``; no other codec is admitted."""
    if not isinstance(text, str) or encoding != "latin1":
        raise pickle.UnpicklingError("only _codecs.encode(str, 'latin1') is allowed")
    return text.encode("latin1")


_ALLOWED[("_codecs", "encode")] = _latin1


def _frombuffer(buffer: Any, dtype: np.dtype, shape: tuple[int, ...], order: str) -> np.ndarray:
    """Protocol 5's array reconstructor, for plain (non-object) dtypes only."""
    if not isinstance(dtype, np.dtype) or dtype.hasobject or order not in ("C", "F"):
        raise pickle.UnpicklingError("numpy buffer of object dtype or unknown order refused")
    return np.frombuffer(buffer, dtype=dtype).reshape(shape, order="C" if order == "C" else "F").copy()


for _module in ("numpy.core.numeric", "numpy._core.numeric"):
    _ALLOWED[(_module, "_frombuffer")] = _frombuffer
_ALLOWED[("numpy", "dtype")] = np.dtype


def _scalar(dtype: np.dtype, data: bytes = b"") -> Any:
    """``numpy.core.multiarray.scalar`` without numpy's object-dtype path (which unpickles again)."""
    if not isinstance(dtype, np.dtype) or dtype.hasobject:
        raise pickle.UnpicklingError("numpy scalar of object dtype refused")
    return np.frombuffer(data, dtype=dtype, count=1)[0]


for _module in ("numpy.core.multiarray", "numpy._core.multiarray"):
    _ALLOWED[(_module, "scalar")] = _scalar


class _Restricted(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        try:
            return _ALLOWED[(module, name)]
        except KeyError:
            raise pickle.UnpicklingError(f"global {module}.{name} is not allowed") from None


def _check_arrays(value: Any) -> None:
    """Object arrays would smuggle arbitrary pickles in their buffers; refuse them."""
    if isinstance(value, np.ndarray):
        if value.dtype.hasobject:
            raise pickle.UnpicklingError("numpy array of object dtype refused")
    elif isinstance(value, dict):
        for key, item in value.items():
            _check_arrays(key)
            _check_arrays(item)
    elif isinstance(value, (list, tuple, set, frozenset)):
        for item in value:
            _check_arrays(item)


def safe_load(data: bytes, where: str) -> Any:
    """Unpickle ``data`` admitting only numpy arrays/dtypes and builtin containers and scalars."""
    try:
        value = _Restricted(io.BytesIO(data)).load()
        _check_arrays(value)
    except GroundBenchError:
        raise
    except Exception as exc:  # UnpicklingError, EOFError, ValueError, TypeError, ...
        raise GroundBenchError(
            where, "pickle", f"refused: only numpy arrays and plain containers may be unpickled ({exc})"
        ) from exc
    return value
