#!/usr/bin/env python3
"""Writes tests/data/talib_functions.tsv: every function of TA-Lib's abstract interface with
what the catalog must match (docs/kernels/talib.md, "Every TA-Lib function"), which
tests/runtime/catalog/test_talib_coverage.c compares with the catalog's descriptors.

Pinned: the PyPI package ta-lib==0.8.2 (which bundles TA-Lib 0.8.1's C library) and numpy.
    python3 -m venv /tmp/venv-talib && /tmp/venv-talib/bin/pip install ta-lib==0.8.2 numpy
    /tmp/venv-talib/bin/python scripts/talib-functions.py > tests/data/talib_functions.tsv

One line a function, in the order of talib.get_function_groups() (group by group, each in
TA-Lib's order), tab-separated:
    name      TA-Lib's name (upper case), from talib.get_functions()
    group     its group
    inputs    the inputs flattened in the order of TA-Lib's C signature, comma-separated: a
              price component (open, high, low, close, volume) as its name; a series of its
              own (TA-Lib's inReal, inReal0, inReal1, inPeriods) as `input:column`, the
              Python binding's input name and the column it reads by default
    outputs   the output names, in TA-Lib's order
    params    name=default, in TA-Lib's order (empty: none); matype and the periods as
              integers, the rest as Python's repr of the float
    lookback  TA-Lib's lookback (its NaN lead) at the defaults
Lines starting with '#' are comments.
"""
import sys

import talib
import talib.abstract


def flatten_inputs(input_names):
    """TA-Lib's inputs in the order of its C signature: price components as themselves, a
    series of its own as name:column."""
    flat = []
    for name, column in input_names.items():
        if isinstance(column, (list, tuple)):
            flat.extend(column)
        else:
            flat.append(f"{name}:{column}")
    return flat


def format_default(value):
    return str(value) if isinstance(value, int) else repr(float(value))


def main():
    if talib.__version__ != "0.8.2":
        sys.exit(f"talib-functions.py: ta-lib {talib.__version__}, not the pinned 0.8.2")
    names = talib.get_functions()
    groups = talib.get_function_groups()
    out = sys.stdout
    out.write(f"# TA-Lib's abstract interface, PyPI ta-lib=={talib.__version__} "
              "(TA-Lib 0.8.1's C library): scripts/talib-functions.py\n")
    out.write(f"# {len(names)} functions\n")
    out.write("# name\tgroup\tinputs\toutputs\tparams\tlookback\n")
    listed = 0
    for group, members in groups.items():
        for name in members:
            info = talib.abstract.Function(name).info
            params = ",".join(f"{k}={format_default(v)}" for k, v in info["parameters"].items())
            fields = [name, group, ",".join(flatten_inputs(info["input_names"])),
                      ",".join(info["output_names"]), params,
                      str(talib.abstract.Function(name).lookback)]
            out.write("\t".join(fields) + "\n")
            listed += 1
    if listed != len(names):
        sys.exit(f"talib-functions.py: the groups list {listed} functions, get_functions() "
                 f"{len(names)}")


if __name__ == "__main__":
    main()
