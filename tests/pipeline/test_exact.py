"""groundbench.core.exact: fixed-order float helpers and correctly rounded sin/cos/tan without libm."""

from __future__ import annotations

import math
import random
from decimal import Decimal, getcontext

import numpy as np
import pytest

from groundbench.core import exact

# pi to 110 digits, for an independent reference in decimal arithmetic
PI = Decimal(
    "3.14159265358979323846264338327950288419716939937510582097494459230781640628620899862803482534211706798214808651"
)


def _decimal_sin(x: float) -> Decimal:
    getcontext().prec = 90
    value = Decimal(x)
    turns = (value / PI).to_integral_value()
    r = value - turns * PI
    total, term, n = r, r, 1
    while abs(term) > Decimal(10) ** -80:
        term = -term * r * r / ((2 * n) * (2 * n + 1))
        total += term
        n += 1
    return -total if turns % 2 else total


def test_known_values_are_the_correctly_rounded_ones() -> None:
    assert exact.sin(math.pi / 2) == 1.0
    assert exact.cos(math.pi / 2) == 6.123233995736766e-17  # cos of the double nearest pi/2
    assert exact.sin(math.pi) == 1.2246467991473532e-16
    assert exact.sin(1e22) == -0.8522008497671888  # the classic argument-reduction test
    assert exact.tan(math.pi / 4) == 0.9999999999999999
    assert exact.cos(0.0) == 1.0 and math.copysign(1.0, exact.sin(-0.0)) == -1.0
    assert exact.sin_cos(1e-300) == (1e-300, 1.0)
    assert math.isnan(exact.sin(math.nan))
    with pytest.raises(ValueError):
        exact.sin(math.inf)


def test_sin_cos_and_tan_are_within_one_ulp_of_libm_and_never_farther_from_the_truth() -> None:
    rng = random.Random(3)
    differing = 0
    for _ in range(3000):
        x = rng.uniform(-10, 10) * 10 ** rng.randint(-6, 4)
        s, c = exact.sin_cos(x)
        for ours, theirs in ((s, math.sin(x)), (c, math.cos(x)), (exact.tan(x), math.tan(x))):
            assert abs(ours - theirs) <= math.ulp(theirs)
        differing += s != math.sin(x)
    assert differing < 30  # glibc is nearly correctly rounded; they differ only where it is not


def test_sin_is_correctly_rounded_against_a_decimal_reference() -> None:
    rng = random.Random(5)
    for _ in range(300):
        x = rng.uniform(-10, 10) * 10 ** rng.randint(-6, 4)
        truth = _decimal_sin(x)
        ours = exact.sin(x)
        assert abs(Decimal(ours) - truth) <= Decimal(math.ulp(ours)) / 2, x.hex()


def test_products_and_sums_match_numpy_to_rounding_and_keep_exact_symmetries() -> None:
    rng = np.random.default_rng(0)
    a, b = rng.normal(size=(50, 3)), rng.normal(size=(50, 3))
    assert np.array_equal(exact.cross(b, a), -exact.cross(a, b))  # bit for bit: shared edges stay watertight
    assert np.allclose(exact.cross(a, b), np.cross(a, b), rtol=1e-14, atol=1e-15)
    assert np.allclose(exact.dot(a, b), np.einsum("ij,ij->i", a, b), rtol=1e-13, atol=1e-14)
    assert np.allclose(exact.norm(a), np.linalg.norm(a, axis=1), rtol=1e-15)
    m, v = rng.normal(size=(4, 4)), rng.normal(size=4)
    assert np.allclose(exact.matmul(m, m), m @ m, rtol=1e-13, atol=1e-14)
    assert np.allclose(exact.matmul(m, v), m @ v, rtol=1e-13, atol=1e-14)
    assert np.allclose(exact.matmul(v, m), v @ m, rtol=1e-13, atol=1e-14)
    assert exact.matmul(a, m[:3, :3]).shape == (50, 3) and exact.matmul(m, v).shape == (4,)
    assert exact.matmul(np.array([[1.0, 2.0]]), np.array([[3.0], [4.0]])).tolist() == [[11.0]]
    assert exact.mean_rows(np.array([[1.0, 2.0], [3.0, 6.0]])).tolist() == [2.0, 4.0]


def test_the_rigid_inverse_undoes_a_pose() -> None:
    s, c = exact.sin_cos(0.7)
    pose = np.array([[c, -s, 0.0, 1.5], [s, c, 0.0, -2.0], [0.0, 0.0, 1.0, 0.25], [0.0, 0.0, 0.0, 1.0]])
    assert np.allclose(exact.matmul(exact.rigid_inverse(pose), pose), np.eye(4), atol=1e-15)
    assert np.allclose(exact.rigid_inverse(pose), np.linalg.inv(pose), atol=1e-15)
