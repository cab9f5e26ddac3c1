"""The heatmap of a scored sweep (docs/python.md, "Scores"): one score, the aggregate over
the series of each set (the mean, or rank()'s aggregates), over two swept parameters, drawn by gnuplot as the command line's
`apportion run --score ... --plot FILE.png` draws it (docs/cli.md)."""

import os
import shutil
import subprocess
import tempfile

import numpy as np

from .ranking import aggregates, parse_agg, smaller_first
from .scores import SCORES


def _axes(frame, x, y):
    levels = [n for n in frame.index.names if n != "series"]
    if "series" not in frame.index.names or not levels:
        raise ValueError("plot_scores() takes the frame of a sweep from apportion.score()")
    if x is None and y is None:
        if len(levels) != 2:
            raise ValueError(
                f"plot_scores() draws two swept parameters and this sweep has {len(levels)} "
                f"({', '.join(levels)}): name them with x= and y="
            )
        return levels[1], levels[0]
    if x not in levels or y not in levels or x == y:
        raise ValueError(f"x={x!r} and y={y!r} must be two of the sweep's parameters: {', '.join(levels)}")
    return x, y


def plot_scores(frame, path, score="sharpe", x=None, y=None, agg="mean", min_trades=0):
    """Draws ``score`` of a sweep from ``apportion.score()`` as a heatmap into ``path`` (a
    .png): the aggregate over the series of each set that ``rank()`` takes (``agg``: the
    mean, the median or a quantile; a score that is not finite and a series of fewer than
    ``min_trades`` trades left out, as the command line's ``--by SCORE:AGG --min-trades``), the
    first swept parameter on the vertical axis and the second on the horizontal (or ``y=``
    and ``x=`` by name, when the sweep has more parameters that follow them), the best set
    circled (the largest aggregate; the smallest for ``sd`` and ``max_drawdown``). Each cell must
    be one set: a third parameter swept across the two is refused. The picture is written
    under a temporary name and renamed into place once whole. Returns the aggregates as a
    DataFrame, y's values down and x's across. Needs gnuplot on PATH (scripts/deps.sh
    installs gnuplot-nox)."""
    import pandas as pd

    if score not in SCORES:
        raise ValueError(f"score={score!r}: one of {', '.join(SCORES)}")
    path = os.fspath(path)
    if not path.endswith(".png") or len(path) < 5:
        raise ValueError(f"plot_scores() writes a PNG file, FILE.png, not {path!r}")
    x, y = _axes(frame, x, y)
    n_series = frame.index.get_level_values("series").nunique()
    cells = frame.groupby(level=[y, x], sort=False).size()
    if (cells != n_series).any():
        raise ValueError(
            f"plot_scores(): a cell of {y} x {x} holds several sets (a third parameter is swept across "
            "them): average over it first, or draw a slice"
        )
    values, _, labels = aggregates(frame, score, agg, min_trades)
    at_y, at_x = labels.get_level_values(y), labels.get_level_values(x)
    means = {(vy, vx): m for vy, vx, m in zip(at_y, at_x, values)}
    ys = list(frame.index.get_level_values(y).unique())
    xs = list(frame.index.get_level_values(x).unique())
    grid = pd.DataFrame(np.nan, index=pd.Index(ys, name=y), columns=pd.Index(xs, name=x))
    for (vy, vx), m in means.items():  # each cell is one set (checked above)
        grid.loc[vy, vx] = m
    gnuplot = shutil.which("gnuplot")
    if gnuplot is None:
        raise RuntimeError("plot_scores() needs gnuplot, which is not on PATH (scripts/deps.sh installs gnuplot-nox)")
    if '"' in path:
        raise ValueError(f"plot_scores(): a name with a double quote cannot be given to gnuplot: {path!r}")
    means_grid = grid.to_numpy()
    best = None
    if np.isfinite(means_grid).any():
        smaller = smaller_first(frame, score)
        flat = np.where(np.isfinite(means_grid), means_grid, np.inf if smaller else -np.inf)
        best = np.unravel_index(np.argmin(flat) if smaller else np.argmax(flat), flat.shape)
    partial = f"{path}.{os.getpid()}.tmp"
    try:
        with tempfile.TemporaryDirectory(prefix="apportion-plot-") as folder:
            data = os.path.join(folder, "grid.dat")
            script = os.path.join(folder, "grid.gp")
            with open(data, "w") as f:
                for i, row in enumerate(means_grid):
                    for j, m in enumerate(row):
                        f.write(f"{j} {i} {m!r}\n" if np.isfinite(m) else f"{j} {i} NaN\n")
                    f.write("\n")
            with open(script, "w") as f:
                f.write(_script(data, partial, score, parse_agg(agg)[2], n_series, x, xs, y, ys, best))
            done = subprocess.run([gnuplot, script], capture_output=True, text=True)
            if done.returncode != 0:
                raise RuntimeError(f"plot_scores(): gnuplot failed (exit status {done.returncode}): {done.stderr.strip()}")
            if not os.path.exists(partial) or os.path.getsize(partial) == 0:
                raise RuntimeError("plot_scores(): gnuplot wrote no picture")
            os.replace(partial, path)
    finally:
        if os.path.exists(partial):
            os.unlink(partial)
    return grid


def _tics(axis, values):
    """gnuplot's tic labels of an axis of cells, at most about 12 shown."""
    step = (len(values) + 11) // 12 if len(values) > 12 else 1
    return f"set {axis}tics (" + ", ".join(f'"{values[i]:g}" {i}' for i in range(0, len(values), step)) + ")\n"


def _script(data, picture, score, agg, n_series, x, xs, y, ys, best):
    title = f"{score} ({agg} over {n_series} series)" + ("; the best set is circled" if best is not None else "")
    lines = [
        'set terminal pngcairo noenhanced size 900,650 font "sans,10"\n',
        f'set output "{picture}"\n',
        f'set title "{title}"\n',
        f'set xlabel "{x}"\nset ylabel "{y}"\n',
        _tics("x", xs),
        _tics("y", ys),
        f"set xrange [-0.5:{len(xs) - 0.5}]\nset yrange [-0.5:{len(ys) - 0.5}]\n",
        f'set cblabel "{score}"\nset palette rgb 33,13,10\nunset key\n',
    ]
    if best is not None:
        lines.append(
            f'plot "{data}" using 1:2:3 with image, "-" using 1:2 with points pt 6 ps 3 lw 2 lc rgb "black"\n'
            f"{best[1]} {best[0]}\ne\n"
        )
    else:
        lines.append(f'plot "{data}" using 1:2:3 with image\n')
    return "".join(lines)
