"""The Python peers' virtual environments (bench/README.md, "The Python peers"): each a folder
of the peers' cache outside the repository, made on first use by the system's Python from a
pinned requirements file beside this one, and never touched again while its pins stay the same.

The cache is `--cache DIR`, else `$XDG_CACHE_HOME/apportion-peers`, else
`~/.cache/apportion-peers` (bench/peers.c's folder: the C peers live beside these). A peer runs
in its own process with its environment's Python; the bench itself never imports it. Only the
standard library is imported here, so that any Python can run this module."""

import glob
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))

# name: (requirements file beside this module, the least Python its pins install on). The
# frames' pandas-ta 0.4 needs Python 3.12; vectorbt 1.2 takes 3.11, but its pins were
# resolved on 3.12 (numpy 2.5 and the rest as their wheels for 3.12). The two cannot share
# one environment: pandas-ta pins numba 0.61.2, which stops at numpy 2.2, and vectorbt 1.2
# needs numpy 2.4.
ENVS = {
    "vectorbt": ("peers-vectorbt.txt", (3, 12)),
    "frames": ("peers-frames.txt", (3, 12)),
}


class Skip(Exception):
    """A peer that cannot be had on this machine (no network, no suitable Python): the
    bench says so and exits 77, meson's "skipped"."""


def cache_dir(option=None):
    """The peers' cache folder, as bench/peers.c picks it."""
    if option:
        return os.path.abspath(option)
    xdg = os.environ.get("XDG_CACHE_HOME", "")
    if xdg.startswith("/"):
        return os.path.join(xdg, "apportion-peers")
    home = os.environ.get("HOME", "")
    if not home.startswith("/"):
        raise Skip("neither XDG_CACHE_HOME nor HOME is an absolute path: no cache folder for the peers")
    return os.path.join(home, ".cache", "apportion-peers")


def _version(python):
    """(major, minor) of a Python that can make a virtual environment, else None."""
    try:
        out = subprocess.run(
            [python, "-c", "import sys, venv, ensurepip; print(*sys.version_info[:2])"],
            capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if out.returncode != 0:
        return None
    major, minor = out.stdout.split()
    return int(major), int(minor)


def _pyenv_pythons():
    """The Pythons that pyenv installed, if it is there: its shims run only the version it has
    selected, so a python3.12 beside a selected 3.11 is found in its folder."""
    if shutil.which("pyenv") is None:
        return []
    try:
        root = subprocess.run(["pyenv", "root"], capture_output=True, text=True, timeout=30).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return []
    return sorted(glob.glob(os.path.join(root, "versions", "3.*", "bin", "python3")))


def find_python(least, option=None):
    """The first Python at least `least` (major, minor) that has venv and ensurepip:
    `option`, then python3.12, python3.13 and python3 on PATH, pyenv's, then this process's
    own base interpreter. Raises Skip naming the ones tried."""
    candidates = [option] if option else []
    candidates += [shutil.which(n) for n in ("python3.12", "python3.13", "python3")]
    candidates += _pyenv_pythons()
    candidates.append(getattr(sys, "_base_executable", sys.executable))
    tried = []
    for python in candidates:
        if not python or python in tried:
            continue
        tried.append(python)
        version = _version(python)
        if version is not None and version >= least:
            return python
    raise Skip(f"no Python >= {least[0]}.{least[1]} with venv and ensurepip among {tried} "
               f"(give one with --peers-python)")


def _pip_env(cache):
    """pip's environment: no pip cache, no version check, nothing in HOME."""
    env = dict(os.environ)
    env.update(PIP_NO_CACHE_DIR="1", PIP_DISABLE_PIP_VERSION_CHECK="1", PYTHONNOUSERSITE="1")
    env["HOME"] = os.path.join(cache, "home")  # anything pip would still write lands here
    os.makedirs(env["HOME"], exist_ok=True)
    return env


def ensure(name, cache, python_option=None, log=sys.stderr):
    """The Python of peer environment `name`, made first if its folder lacks it or was made
    from other pins. The environment is `<cache>/py-<name>`; its stamp, the requirements'
    lines, is written last, so an install cut short is redone. Raises Skip with pip's last
    lines when the install fails (typically: PyPI out of reach)."""
    req_file, least = ENVS[name]
    with open(os.path.join(HERE, req_file)) as f:  # the pins, without the comments
        pins = "".join(line for line in f if line.strip() and not line.startswith("#"))
    folder = os.path.join(cache, f"py-{name}")
    python = os.path.join(folder, "bin", "python")
    stamp = os.path.join(folder, "apportion-pins.txt")
    if os.path.exists(stamp) and open(stamp).read() == pins and os.access(python, os.X_OK):
        return python
    base = find_python(least, python_option)
    print(f"# making the {name} peers' environment in {folder} with {base} (once; minutes)", file=log, flush=True)
    shutil.rmtree(folder, ignore_errors=True)
    os.makedirs(cache, exist_ok=True)
    env = _pip_env(cache)
    steps = [[base, "-m", "venv", folder],
             [python, "-m", "pip", "install", "-q", "-r", os.path.join(HERE, req_file)]]
    for step in steps:
        try:
            out = subprocess.run(step, capture_output=True, text=True, env=env, timeout=1800)
        except subprocess.TimeoutExpired:
            raise Skip(f"`{' '.join(step)}` took over 30 minutes")
        if out.returncode != 0:
            tail = "\n".join((out.stdout + out.stderr).strip().splitlines()[-6:])
            raise Skip(f"`{' '.join(step[:4])} ...` failed (PyPI out of reach?):\n{tail}")
    with open(stamp, "w") as f:
        f.write(pins)
    return python


def worker_env(cache):
    """The environment of a peer's process: numba's cache and matplotlib's settings in the
    peers' cache, so that nothing lands in HOME."""
    env = dict(os.environ)
    env.update(NUMBA_CACHE_DIR=os.path.join(cache, "numba-cache"),
               MPLCONFIGDIR=os.path.join(cache, "mplconfig"), PYTHONNOUSERSITE="1")
    return env


def add_options(ap):
    """The options of a bench that runs a Python peer, to its argparse parser: the peers'
    cache folder and the Python that makes the peer's environment."""
    ap.add_argument("--cache", help="the peers' cache folder (default $XDG_CACHE_HOME/apportion-peers)")
    ap.add_argument("--peers-python", help="the Python to make the peers' environment with")


def ready(name, args):
    """(the cache folder, the Python of peer environment `name`) from the options of
    add_options(); None, after printing why, where the peer cannot be had: the bench then
    exits 77."""
    try:
        cache = cache_dir(args.cache)
        return cache, ensure(name, cache, args.peers_python)
    except Skip as why:
        print(f"# skipped: {why}")
        return None
