"""Float arithmetic whose every bit is the same on every CPU (for computations that land in an output byte).

Why: numpy's ``@``, ``dot``, ``linalg.norm``, ``linalg.inv`` and ``einsum`` run BLAS/LAPACK or SIMD
kernels chosen at run time (OpenBLAS by core type, numpy by instruction set): their summation order
and their use of fused multiply-add differ between CPUs, and so does the last bit of a result.
The C library's ``sin``/``cos``/``tan`` differ too: glibc picks an FMA variant at run time (masking
FMA with ``GLIBC_TUNABLES=glibc.cpu.hwcaps=-AVX2,-FMA`` changed ~0.07 % of ``math.sin`` results).
Elementwise IEEE-754 ``+ - * /`` and ``sqrt`` are correctly rounded on every CPU, and numpy never
fuses two ufunc calls, so the helpers below write every product and sum out, in a fixed order.
``sin``/``cos``/``tan`` are computed in integer fixed-point arithmetic and rounded once (correctly
rounded), so they depend on no math library.
"""

from __future__ import annotations

import math
from functools import cache, lru_cache

import numpy as np

_WORK_BITS = 256  # fraction bits of the series: far more than any double needs to round correctly
_REDUCE_BITS = 1024 + 64 + _WORK_BITS + 32  # pi's bits for reducing any finite double by pi/2
_TINY = 2.0**-30  # below this, sin(x) and tan(x) round to x and cos(x) to 1 (their next term is < 1/2 ulp)


def dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a . b`` over the last axis, summed left to right (broadcasting like numpy)."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    total = a[..., 0] * b[..., 0]
    for k in range(1, a.shape[-1]):
        total = total + a[..., k] * b[..., k]
    return total


def norm(a: np.ndarray) -> np.ndarray:
    """Euclidean length over the last axis (``sqrt`` is correctly rounded everywhere)."""
    return np.sqrt(dot(a, a))


def cross(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a x b`` over the last axis (length 3). ``cross(b, a)`` is exactly ``-cross(a, b)``."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    return np.stack(
        [
            a[..., 1] * b[..., 2] - a[..., 2] * b[..., 1],
            a[..., 2] * b[..., 0] - a[..., 0] * b[..., 2],
            a[..., 0] * b[..., 1] - a[..., 1] * b[..., 0],
        ],
        axis=-1,
    )


def matmul(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """``a @ b`` for a (..., n, k) or (k,) ``a`` and a (k, m) or (k,) ``b``, each sum left to right over k."""
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    row, column = a.ndim == 1, b.ndim == 1
    a2 = a[None, :] if row else a
    b2 = b[:, None] if column else b
    total = a2[..., :, 0, None] * b2[0]
    for k in range(1, a2.shape[-1]):
        total = total + a2[..., :, k, None] * b2[k]
    if column:
        total = total[..., 0]
    return total[0] if row else total


def rigid_inverse(matrix: np.ndarray) -> np.ndarray:
    """Inverse of a 4x4 rigid transform [R t; 0 1]: [R^T, -R^T t] (no LAPACK)."""
    rotation_t = np.ascontiguousarray(matrix[:3, :3].T)
    inverse = np.eye(4)
    inverse[:3, :3] = rotation_t
    inverse[:3, 3] = -matmul(rotation_t, matrix[:3, 3])
    return inverse


def mean_rows(points: np.ndarray) -> np.ndarray:
    """Mean of the rows of a (N, d) array, summed top to bottom."""
    points = np.asarray(points, dtype=np.float64)
    total = points[0]
    for row in points[1:]:
        total = total + row
    return total / len(points)


@cache
def _pi_fixed() -> int:
    """floor(pi * 2**_REDUCE_BITS) (to within one unit), by Machin's formula on integers."""
    bits = _REDUCE_BITS + 16

    def arctan_inverse(n: int) -> int:  # atan(1/n) * 2**bits
        total, power, k = 0, (1 << bits) // n, 0
        while power:
            term = power // (2 * k + 1)
            total += -term if k % 2 else term
            power //= n * n
            k += 1
        return total

    return (16 * arctan_inverse(5) - 4 * arctan_inverse(239)) >> 16


def _sin_cos_fixed(x: float) -> tuple[int, int]:
    """(sin x, cos x) * 2**_WORK_BITS as integers (error far below 2**-200 relative), |x| >= _TINY."""
    numerator, denominator = x.as_integer_ratio()  # exact; the denominator is a power of two
    half_pi = _pi_fixed() >> 1
    scaled = (numerator << _REDUCE_BITS) // denominator  # exact: |x| >= 2**-30 has at most 2**82 below
    quadrant = (2 * scaled + half_pi) // (2 * half_pi)  # nearest multiple of pi/2
    r = (scaled - quadrant * half_pi) >> (_REDUCE_BITS - _WORK_BITS)  # |r| <= pi/4
    one = 1 << _WORK_BITS
    r2 = (r * r) >> _WORK_BITS
    s, term, k = r, r, 1
    while term:
        term = -((term * r2) >> _WORK_BITS) // ((2 * k) * (2 * k + 1))
        s += term
        k += 1
    c, term, k = one, one, 1
    while term:
        term = -((term * r2) >> _WORK_BITS) // ((2 * k - 1) * (2 * k))
        c += term
        k += 1
    return ((s, c), (c, -s), (-s, -c), (-c, s))[quadrant % 4]


def _check(x: float, name: str) -> float:
    x = float(x)
    if math.isinf(x):
        raise ValueError(f"{name}({x}): math domain error")
    return x


@lru_cache(maxsize=4096)  # the same joint angles come back view after view (never 0.0 or -0.0: equal keys)
def _sin_cos_rounded(x: float) -> tuple[float, float]:
    s, c = _sin_cos_fixed(x)
    one = 1 << _WORK_BITS
    return s / one, c / one  # int / int is correctly rounded in Python


def sin_cos(x: float) -> tuple[float, float]:
    """(sin x, cos x), each correctly rounded."""
    x = _check(x, "sin_cos")
    if math.isnan(x):
        return x, x
    if abs(x) < _TINY:
        return x, 1.0
    return _sin_cos_rounded(x)


def sin(x: float) -> float:
    return sin_cos(x)[0]


def cos(x: float) -> float:
    return sin_cos(x)[1]


def tan(x: float) -> float:
    """tan x, correctly rounded."""
    x = _check(x, "tan")
    if math.isnan(x) or abs(x) < _TINY:
        return x
    s, c = _sin_cos_fixed(x)
    return s / c
