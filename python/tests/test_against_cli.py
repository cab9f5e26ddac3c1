"""Every built-in kernel's outputs through Python are bitwise the outputs of the C library
as the apportion tool writes them (its f64 files), for one series and for several, on a
runtime that splits the work over two devices while the tool runs on the cpu alone."""

import pytest

from conftest import assert_bitwise

CASES = [
    ("bollinger", {"period": 20, "nbdev_up": 2, "nbdev_dn": 2}),
    ("bollinger", {"period": 7, "nbdev_up": 1.5, "nbdev_dn": 2.5}),
    ("macd", {"fast": 12, "slow": 26, "signal": 9}),
    ("macd", {"fast": 5, "slow": 35, "signal": 4}),
    ("returns_stats", {}),
    ("bootstrap", {"replicates": 64}),
]


@pytest.mark.parametrize("kernel,params", CASES)
@pytest.mark.parametrize("rows", [0, 3])
def test_kernel_equals_cli(rt, cli, walk, kernel, params, rows):
    x = walk(rows, 50000)
    info = rt.kernel_info(kernel)
    got = rt.compute(kernel, x, seed=11, **params, axis=-1)
    want = cli(kernel, x, params.items(), seed=11, outputs=info["outputs"])
    for name in info["outputs"]:
        assert_bitwise(getattr(got, name), want[name])


@pytest.mark.parametrize("kernel,params", CASES[:1] + CASES[2:3])
def test_module_functions_equal_cli(cli, walk, kernel, params):
    import apportion

    x = walk(0, 30000, seed=3)
    fn = getattr(apportion, kernel)
    got = fn(x, **params)
    want = cli(kernel, x, params.items(), outputs=got._fields)
    for name in got._fields:
        assert_bitwise(getattr(got, name), want[name])


def test_nan_input_equals_cli(rt, cli, walk):
    """NaN samples follow the kernel's NaN policy (docs/kernels.md), bit for bit as in C."""
    x = walk(0, 20000)
    x[[5, 700, 701, 15000]] = float("nan")
    got = rt.compute("bollinger", x, period=10)
    want = cli("bollinger", x, [("period", 10)], outputs=got._fields)
    for name in got._fields:
        assert_bitwise(getattr(got, name), want[name])
    stats = rt.compute("returns_stats", x)
    want = cli("returns_stats", x, outputs=stats._fields)
    for name in stats._fields:
        assert_bitwise(getattr(stats, name), want[name])
