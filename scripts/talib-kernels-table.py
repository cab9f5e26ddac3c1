#!/usr/bin/env python3
"""Writes docs/kernels/talib.md's table of every TA-Lib function and every kernel ("Every TA-Lib
function", "All kernels against TA-Lib 0.8"), from what measured them rather than by hand:

    tests/data/talib_functions.tsv    TA-Lib 0.8's functions: inputs, outputs, defaults
                                      (scripts/talib-functions.py)
    the kernels                       `apportion kernels` of the build (--apportion)
    accuracy                          the log of test_catalog_talib08_slow --verbose
                                      (--accuracy): each kernel's worst distance from
                                      TA-Lib 0.8.1 at the defaults and at timeperiod 200
    speed                             apo-bench-peers --kernels catalog output (--bench,
                                      repeatable: a kernel's figure at a size comes from
                                      the last file that has it, so a run cut short can
                                      lay its figures over a complete one; with
                                      --median, the median over the files that have it,
                                      for whole runs repeated on a machine whose
                                      run-to-run spread is a tenth or more):
                                      TA-Lib's time over apportion's on one thread
                                      (talib/apo1) at 1 x 1e4 and 1 x 1e6 bars; wall clock,
                                      with the ratio of CPU times in parentheses

    scripts/talib-kernels-table.py --apportion build/cli/apportion \\
        --accuracy talib08.log --bench peers.txt [--bench more.txt] [--median] \
        [--write docs/kernels/talib.md]

Without --write it prints the table; with it, it replaces the text between the markers
"<!-- talib-table begin -->" and "<!-- talib-table end -->" of that file.

Every kernel of the line "Slower than TA-Lib 0.8.1 on one thread" must have its cause in the
table of the section "Why these kernels are slower than TA-Lib" (its `kernels` column names
each in backquotes), in the file written (without --write, docs/kernels/talib.md where it
exists, or --causes): with --write, a kernel without a cause row makes the script refuse to
write and exit non-zero, naming it; a kernel with a cause row that is no longer slower is
reported as a warning, so that the row is deleted or its kernel's figure looked at again.
"""
import argparse
import os
import re
import subprocess
import sys

BEGIN = "<!-- talib-table begin -->"
END = "<!-- talib-table end -->"
CAUSES_HEADING = "### Why these kernels are slower than TA-Lib"


def read_functions(path):
    functions = []
    with open(path) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            name, group, inputs, outputs, params, lookback = line.rstrip("\n").split("\t")
            functions.append({"name": name, "group": group, "inputs": inputs,
                              "outputs": outputs, "params": params, "lookback": lookback})
    return functions


def read_kernels(apportion):
    """The kernels `apportion kernels` lists, with their inputs, outputs and parameters."""
    text = subprocess.run([apportion, "kernels"], check=True, capture_output=True,
                          text=True).stdout
    kernels, current = {}, None
    for line in text.splitlines():
        if line and not line.startswith(" "):
            current = {"inputs": "", "outputs": "", "params": []}
            kernels[line.strip()] = current
            continue
        fields = line.split(None, 1)
        if current is None or not fields:
            continue
        if fields[0] in ("inputs", "outputs"):
            current[fields[0]] = fields[1].replace(" ", ", ")
        elif fields[0] == "params" and fields[1] != "(none)":
            current["params"].append(fields[1].split(" ")[0])
        elif fields[0] not in ("halo",) and line.startswith("           ") and \
                "=" in fields[0]:
            current["params"].append(fields[0])
    return kernels


def read_accuracy(path):
    """kernel -> {period: worst}; period 0 is the defaults."""
    pattern = re.compile(r"\] (\w+)\((\d+)\): worst ([0-9.e+-]+) of max")
    worst = {}
    with open(path) as f:
        for line in f:
            m = pattern.search(line)
            if m:
                worst.setdefault(m.group(1), {})[int(m.group(2))] = float(m.group(3))
    return worst


def read_bench(path):
    """cols -> kernel -> (talib/apo1 wall, talib/apo1 cpu, d_apo), of the single-series
    tables."""
    tables, cols = {}, None
    header = re.compile(r"^# catalog kernels, 1 x (\d+),")
    with open(path) as f:
        for line in f:
            m = header.match(line)
            if m:
                cols = int(m.group(1))
                tables[cols] = {}
                continue
            if line.startswith("# catalog kernels,"):
                cols = None
            if cols is None or line.startswith("#") or "skipped" in line:
                continue
            parts = line.replace("|", " ").split()
            if len(parts) < 16 or line.startswith(" "):
                continue
            # kernel reps tulip talib apo1 apoN t/a1 t/aN ti/a1 ti/aN | ti_cpu ta_cpu a1_cpu
            # t/a1 ti/a1 | d_apo d_tulip
            wall = parts[6].rstrip("*")
            cpu = parts[13].rstrip("*")
            tables[cols][parts[0]] = (float(wall), float(cpu), parts[15])
    return tables


def median_figures(figures):
    """Several runs' (talib/apo1 wall, talib/apo1 cpu, d_apo) of one kernel and size: the
    median of each ratio (of an even count, the mean of the middle two), the last run's d_apo
    (the same bits in every run)."""
    def median(values):
        v = sorted(values)
        mid = len(v) // 2
        return v[mid] if len(v) % 2 else (v[mid - 1] + v[mid]) / 2
    return (median([f[0] for f in figures]), median([f[1] for f in figures]), figures[-1][2])


def read_causes(path):
    """kernel -> the causes (first column) of the rows of CAUSES_HEADING's table that name it
    in their `kernels` column (the second), or None where the file has no such section."""
    with open(path) as f:
        doc = f.read()
    if CAUSES_HEADING not in doc:
        return None
    section = doc.split(CAUSES_HEADING, 1)[1]
    # The section ends at the next heading of any level.
    section = re.split(r"\n#", section, 1)[0]
    causes = {}
    for line in section.splitlines():
        # Cells split at the pipes Markdown reads as cell edges: an escaped one (`\|`, as in
        # `a \|\| b` inside a cell) is text.
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip().strip("|"))]
        if not line.startswith("|") or len(cells) < 2 or set(cells[0]) <= set("-: "):
            continue
        if cells[1] == "kernels":
            continue
        for kernel in re.findall(r"`([a-z0-9_]+)`", cells[1]):
            causes.setdefault(kernel, []).append(cells[0])
    return causes


def check_causes(slower_kernels, causes, path):
    """The kernels of the slower list that no cause row names (an error with --write), after a
    warning on stderr for each cause row's kernel that is no longer slower."""
    if causes is None:
        return sorted(slower_kernels)
    for kernel in sorted(set(causes) - set(slower_kernels)):
        print(f"talib-kernels-table.py: warning: {kernel} has a row in {path}'s "
              f"\"{CAUSES_HEADING[4:]}\" but is no longer slower than TA-Lib",
              file=sys.stderr)
    return [k for k in slower_kernels if k not in causes]


def accuracy_text(kernel, worst, integer):
    w = worst.get(kernel)
    if not w or 0 not in w:
        return "not compared"
    if integer:
        return "exact" if w[0] == 0 else f"{w[0]:.1e} (NOT EXACT)"
    text = "0 (bitwise)" if w[0] == 0 else f"{w[0]:.1e}"
    if 200 in w:
        text += "; " + ("0" if w[200] == 0 else f"{w[200]:.1e}") + " at 200"
    return text


def ratio_text(entry):
    if entry is None:
        return "-"
    return f"{entry[0]:.2f} ({entry[1]:.2f})"


def defaults_text(params):
    return ", ".join(p.replace("=", " ") for p in params.split(",")) if params else "none"


def table(functions, kernels, worst, bench):
    rows = ["| TA-Lib | group | kernel | inputs | outputs | defaults | accuracy vs TA-Lib "
            "0.8.1 | talib/apo1 1e4 | talib/apo1 1e6 |",
            "|---|---|---|---|---|---|---|---|---|"]
    slower, slower_kernels = [], []
    named = set()
    for fn in functions:
        kernel = fn["name"].lower()
        k = kernels.get(kernel)
        if k is None:
            rows.append(f"| {fn['name']} | {fn['group']} | not yet | | | "
                        f"{defaults_text(fn['params'])} | - | - | - |")
            continue
        named.add(kernel)
        integer = fn["outputs"] == "integer" or "idx" in fn["outputs"]
        small = bench.get(10000, {}).get(kernel)
        large = bench.get(1000000, {}).get(kernel)
        rows.append(f"| {fn['name']} | {fn['group']} | {kernel} | {k['inputs']} | "
                    f"{k['outputs']} | {defaults_text(fn['params'])} | "
                    f"{accuracy_text(kernel, worst, integer)} | {ratio_text(small)} | "
                    f"{ratio_text(large)} |")
        # Judged on CPU time: on a loaded machine the wall clock stretches whichever call the
        # scheduler interrupts.
        below = [(s, e) for s, e in (("1e4", small), ("1e6", large)) if e and e[1] < 1]
        if below:
            slower.append(f"{kernel} (" + ", ".join(f"{e[1]:.2f} at {s}" for s, e in below)
                          + ")")
            slower_kernels.append(kernel)
    for kernel, k in kernels.items():
        if kernel not in named:
            rows.append(f"| - | (apportion's own) | {kernel} | {k['inputs']} | {k['outputs']} "
                        f"| {defaults_text(','.join(k['params']))} | - | - | - |")
    return rows, slower, slower_kernels


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--functions", default="tests/data/talib_functions.tsv")
    ap.add_argument("--apportion", required=True)
    ap.add_argument("--accuracy", required=True)
    ap.add_argument("--bench", required=True, action="append")
    ap.add_argument("--median", action="store_true",
                    help="each figure the median over the --bench files that have it, not the last's")
    ap.add_argument("--write")
    ap.add_argument("--causes", help="the file whose section \"Why these kernels are slower "
                    "than TA-Lib\" is checked (default: --write's, else docs/kernels/talib.md)")
    args = ap.parse_args()
    runs = {}
    for path in args.bench:
        for cols, kernels in read_bench(path).items():
            for kernel, figures in kernels.items():
                runs.setdefault(cols, {}).setdefault(kernel, []).append(figures)
    bench = {cols: {kernel: median_figures(figures) if args.median else figures[-1]
                    for kernel, figures in kernels.items()} for cols, kernels in runs.items()}
    rows, slower, slower_kernels = table(read_functions(args.functions), read_kernels(args.apportion),
                         read_accuracy(args.accuracy), bench)
    text = "\n".join(rows) + "\n\nSlower than TA-Lib 0.8.1 on one thread (talib/apo1 of CPU " \
        "times below 1): " + ("; ".join(slower) if slower else "none") + ". macd and " \
        "bollinger are timed in apo-bench-peers' tables of their own (docs/PERF.md, " \
        "\"bollinger and macd against TA-Lib and Tulip Indicators\").\n"
    causes_path = args.causes or args.write or "docs/kernels/talib.md"
    causes = read_causes(causes_path) if os.path.exists(causes_path) else None
    missing = check_causes(slower_kernels, causes, causes_path)
    if missing:
        message = (f"talib-kernels-table.py: slower than TA-Lib with no row in {causes_path}'s "
                   f"\"{CAUSES_HEADING[4:]}\": " + ", ".join(missing))
        if args.write:
            sys.exit(message + " (nothing written)")
        print("warning: " + message, file=sys.stderr)
    if not args.write:
        sys.stdout.write(text)
        return
    with open(args.write) as f:
        doc = f.read()
    if BEGIN not in doc or END not in doc:
        sys.exit(f"talib-kernels-table.py: {args.write} has no {BEGIN} ... {END}")
    head, rest = doc.split(BEGIN, 1)
    _, tail = rest.split(END, 1)
    with open(args.write, "w") as f:
        f.write(head + BEGIN + "\n" + text + END + tail)


if __name__ == "__main__":
    main()
