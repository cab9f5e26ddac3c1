#!/usr/bin/env bash
# The Python suite (meson test "python", run by scripts/test.sh): builds a virtual
# environment in the build folder over the system's packages, installs the package into it
# the documented way (pip install --no-build-isolation, offline), and runs pytest. Prints a
# Criterion-style "Synthesis:" line so that scripts/count-results.py counts each pytest
# case, as it counts the C suites' cases. Exits 77 (meson: skipped), saying why, only when
# the Python packages it needs are missing (scripts/deps.sh installs them).
#
#   python/tests/run.sh PYTHON SOURCE_DIR BUILD_DIR
#   python/tests/run.sh --skip REASON      # meson's stand-in when the package is not built
set -uo pipefail
skip() {
    echo "python suite skipped: $*"
    exit 77
}
hint="scripts/deps.sh installs it"
[ "$1" = --skip ] && skip "$2"
python=$1
source_dir=$2
build_dir=$3

"$python" -c 'import venv, ensurepip' 2>/dev/null || skip "$python has no venv/ensurepip (python3-venv); $hint"
for module in numpy mesonpy pytest; do
    "$python" -c "import $module" 2>/dev/null || skip "$python cannot import $module; $hint"
done

venv=$build_dir/python-venv
# Nothing may land in HOME (scripts/test.sh checks): no pip cache, no version check, no
# pytest cache, no bytecode outside the venv.
export PIP_NO_CACHE_DIR=1 PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_NO_INDEX=1 PYTHONDONTWRITEBYTECODE=1
# Making the venv (ensurepip runs pip) and building the wheel (meson, run by pip, asks the
# compilers it finds for their versions) both start a rustup proxy where one is on PATH,
# and it writes its settings into HOME: both get a HOME of their own in the build folder.
mkdir -p "$build_dir/python-home"
if [ ! -x "$venv/bin/python" ]; then
    HOME=$build_dir/python-home "$python" -m venv --system-site-packages "$venv" || exit 1
fi
# The Arrow producers the tests use (tests/test_arrow.py) are no Debian 12 packages: the venv
# gets pyarrow and polars from PyPI (pyproject.toml's optional set test-arrow), once, when
# they are missing and the index answers; never into the system's Python, never through
# HOME. numpy stays the system's, which the extension is built against: pyarrow is held to
# the releases that load with a numpy 1.x. APPORTION_TEST_ARROW=off skips the download;
# without the packages test_arrow.py skips, saying why (docs/python.md, "Arrow and polars").
if [ "${APPORTION_TEST_ARROW:-on}" != off ] && ! "$venv/bin/python" -c 'import pyarrow, polars' 2>/dev/null; then
    numpy_version=$("$venv/bin/python" -c 'import numpy; print(numpy.__version__)')
    pyarrow_spec='pyarrow>=14'
    case $numpy_version in 1.*) pyarrow_spec='pyarrow>=14,<21' ;; esac
    if ! HOME=$build_dir/python-home env -u PIP_NO_INDEX timeout 600 "$venv/bin/pip" install -q \
        "$pyarrow_spec" 'polars>=1.0' "numpy==$numpy_version" >"$build_dir/python-arrow-pip.log" 2>&1; then
        echo "python suite: pyarrow and polars could not be installed from PyPI" \
            "($build_dir/python-arrow-pip.log); the Arrow tests skip"
    fi
fi

# The wheel's own build folder stays in the build folder, so a second run rebuilds only
# what changed. meson-python 0.12 (Debian 12) asks meson to reconfigure that folder whenever
# its native file in the source tree (.mesonpy-native-file.ini) is already there from an
# earlier build, even into a folder that was never configured (a fresh build folder, a
# second build type), and that fails: without a configured folder, the file goes first.
if [ ! -f "$build_dir/python-wheel/meson-private/coredata.dat" ]; then
    rm -f "$source_dir/.mesonpy-native-file.ini"
else
    # A folder configured before pyproject.toml asked for -O3 kept meson-python's -O2 when pip
    # reconfigured it (meson-python 0.12, here): set the level once, so that the suite, and
    # the benches run on this venv, use the kernels as the library builds them.
    level=$(meson introspect --buildoptions "$build_dir/python-wheel" 2>/dev/null | "$python" -c '
import json, sys
print(next((o["value"] for o in json.load(sys.stdin) if o["name"] == "optimization"), "?"))' 2>/dev/null)
    if [ "$level" != 3 ]; then
        meson configure "$build_dir/python-wheel" -Doptimization=3 >/dev/null 2>&1 || true
    fi
fi
# On a machine without a GPU the wheel is built without the CUDA backend: nothing here could
# run it, the C suites build and test it already (tests/README.md), and its kernels took nvcc
# minutes a build (the catalog's 160 kernels, each family's switch compiled for every arch).
# Nor with the CPU kernels' avx2 and avx512 paths (meson_options.txt, vector_paths): the C
# suites run every path, what this suite tests is the same on each, and those files are the
# costliest C compiles of this second build of the library. The options go in a machine file
# of project options, since pip 23.0 (Debian 12's) keeps one value of a --config-settings key.
# With a GPU (nvidia-smi lists one) the wheel is the one users get, CUDA and every path included.
wheel_args=()
if ! nvidia-smi -L >/dev/null 2>&1; then
    options_file=$(realpath "$build_dir")/python-wheel-options.ini
    printf '[project options]\ncuda = %s\nvector_paths = %s\n' "'disabled'" "'sse2'" >"$options_file"
    wheel_args+=(--config-settings=setup-args=--native-file="$options_file")
fi
if ! (cd "$source_dir" && HOME=$build_dir/python-home "$venv/bin/pip" install --no-build-isolation -q \
    --config-settings=builddir="$build_dir/python-wheel" "${wheel_args[@]}" .) \
    >"$build_dir/python-pip.log" 2>&1; then
    tail -n 40 "$build_dir/python-pip.log"
    echo "pip install of the package failed (log: $build_dir/python-pip.log)"
    echo "Synthesis: Tested: 1 | Passing: 0 | Failing: 1 | Crashing: 0"
    exit 1
fi

# From a folder outside the source tree, so that `import apportion` is the installed one.
# pytest's tmp_path folders go to a folder of this run, removed after it: by default pytest
# keeps the last three runs' under TMPDIR/pytest-of-USER, which no one removes.
cd "$build_dir" || exit 1
basetemp=$(mktemp -d "${TMPDIR:-/tmp}/apportion-pytest-tmp.XXXXXX") || exit 1
out=$("$venv/bin/python" -m pytest -p no:cacheprovider -q -rs --basetemp "$basetemp" \
    "$source_dir/python/tests" 2>&1)
rc=$?
rm -rf "$basetemp"
echo "$out"
# pytest's summary: "3 failed, 40 passed, 2 skipped in 1.2s" (any order, some absent).
summary=$(echo "$out" | grep -E '^=*.*(passed|failed|error).* in [0-9.]+s' | tail -n 1)
count() { echo "$summary" | grep -oE "[0-9]+ $1" | grep -oE '^[0-9]+' || echo 0; }
passed=$(count passed)
failed=$(($(count failed) + $(count error)))
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
    failed=1 # pytest failed before or outside its tests (collection, usage)
fi
echo "Synthesis: Tested: $((passed + failed)) | Passing: $passed | Failing: $failed | Crashing: 0"
exit $rc
