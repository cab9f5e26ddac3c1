#!/usr/bin/env python3
"""Fails when a structural claim of the READMEs and docs/ no longer matches the tree.

Prose about the tree's structure goes stale unseen unless a test reads it: an audit found
11 of 18 such claims wrong, every one of them prose that nothing read. Each claim below is
read here and compared with what the tree holds; a claim a check cannot read is written
out of the prose instead. One mode per kind of claim, each a test of the unit suite:

  includes  the "Includes" sentence of each runtime/ room README names exactly the rooms
            (and kernels/ headers) that the room's files include; the "May include"
            sentence of each kernels/ room README names exactly the rooms before it; the
            room tables of docs/design.md, runtime/README.md and kernels/README.md list
            every room of scripts/check-rooms.py, in its order, and none "empty" that holds
            files
  names     every apo_, apo__ or APO_ name in docs/ (every page, except the logs: PERF.md
            and perf-log/) and in every README names something the code has: a function,
            macro, type, enum constant, setting or variable that appears in a C, CUDA,
            Python, shell or meson file outside its comments
  counts    the counts the prose states: every fuzz target (tests/fuzz/fuzz_*.c) has its
            row in docs/robustness.md's table of targets and no row names a target that is
            not there; "catalog of N kernels" in the docs is the number of the rows of the
            catalog's table (kernels/common/catalog_table.h); every catalog kernel is named in its
            room's row of kernels/README.md
  version   meson.build's project version is the one pyproject.toml and the header's
            APO_VERSION_* macros give (apo_version(), the CLI's --version and the Python
            package's __version__ return the header's string)
  env       the library reads its environment in runtime/base/env.c only (docs/env.md,
            runtime/base/README.md): no other file of runtime/ or kernels/ calls getenv

Usage:
  check-claims.py MODE SOURCE_ROOT     # one mode on the tree
  check-claims.py --self-test          # each mode on small trees, good and broken
"""
import importlib.util
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def load_rooms():
    """The room orders of scripts/check-rooms.py, the one place they are written."""
    spec = importlib.util.spec_from_file_location("check_rooms",
                                                  os.path.join(HERE, "check-rooms.py"))
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


ROOMS_MOD = load_rooms()
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8") as f:
        return f.read()


def walk(root, top, suffixes=None):
    """Files under root/top as paths relative to root, sorted; build folders skipped."""
    out = []
    for dirpath, dirs, names in os.walk(os.path.join(root, top)):
        dirs[:] = sorted(d for d in dirs if not d.startswith((".", "build")))
        for name in sorted(names):
            if suffixes is None or name.endswith(suffixes):
                out.append(os.path.relpath(os.path.join(dirpath, name), root).replace(os.sep, "/"))
    return out


def sentence(text, start):
    """The sentence of `text` that begins with the words `start` (a regex, any case), as one
    line; None when there is none. A sentence ends at a period followed by a space or a line
    end, so file names with dots stay whole."""
    flat = " ".join(text.split())
    m = re.search(r"(?:^|(?<=[.:] ))(" + start + r"\b.*?\.)(?= |$)", flat, re.I)
    return m.group(1) if m else None


# --- includes -------------------------------------------------------------------------------

ROOM_WORD = re.compile(r"`?((?:[a-z_]+/)+)`?")
KERNEL_FILE = re.compile(r"\b([a-z0-9_]+\.h)\b")


def runtime_includes(root):
    """{room: (set of other runtime rooms, set of kernels/ header names)} from #include."""
    rooms = ROOMS_MOD.ROOMS
    kernel_names = {os.path.basename(p) for p in walk(root, "kernels", (".h",))}
    found = {}
    for rel in walk(root, "runtime", ROOMS_MOD.SOURCES):
        room = ROOMS_MOD.room_of(rel[len("runtime/"):], rooms)
        if room is None:
            continue
        other, kern = found.setdefault(room, (set(), set()))
        for inc in INCLUDE.findall(read(root, rel)):
            if os.path.exists(os.path.join(root, "runtime", inc)):
                target = ROOMS_MOD.room_of(inc, rooms)
                if target and target != room:
                    other.add(target)
            elif inc in kernel_names:
                kern.add(inc)
    return found


def kernel_includes(root):
    """{room: set of other kernels/ rooms its files include}."""
    rooms = ROOMS_MOD.KERNEL_ROOMS
    files = walk(root, "kernels", ROOMS_MOD.SOURCES)
    where = {}
    for rel in files:
        where.setdefault(os.path.basename(rel), rel[len("kernels/"):])
    found = {}
    for rel in files:
        room = ROOMS_MOD.room_of(rel[len("kernels/"):], rooms)
        if room is None:
            continue
        for inc in INCLUDE.findall(read(root, rel)):
            target = ROOMS_MOD.room_of(where.get(os.path.basename(inc), ""), rooms)
            if target and target != room:
                found.setdefault(room, set()).add(target)
    return found


def claimed_rooms(text, rooms):
    """The rooms of `rooms` and the other folders a sentence names ("base/", "devices/cuda/")."""
    named, other = set(), set()
    for m in ROOM_WORD.finditer(text):
        word = m.group(1).rstrip("/")
        if word in rooms:
            named.add(word)
        else:
            other.add(word)
    return named, other


def check_runtime_readmes(root, problems):
    rooms = ROOMS_MOD.ROOMS
    actual = runtime_includes(root)
    for room in rooms:
        rel = f"runtime/{room}/README.md"
        if not os.path.exists(os.path.join(root, rel)):
            continue
        claim = sentence(read(root, rel), "Includes")
        if claim is None:
            problems.append(f"{rel}: no sentence starting \"Includes\" says which rooms the "
                            f"room's files include")
            continue
        if re.search(r"\bevery\b|\ball\b|\bbut\b", claim):
            problems.append(f"{rel}: \"{claim}\": name the rooms one by one (\"every\", \"all\" "
                            f"and \"but\" are not read)")
            continue
        named, other = claimed_rooms(claim, rooms)
        named.discard(room)
        rooms_in, kernels_in = actual.get(room, (set(), set()))
        if named != rooms_in:
            extra, missing = sorted(named - rooms_in), sorted(rooms_in - named)
            problems.append(f"{rel}: \"{claim}\" but the room's files include "
                            f"{fmt_rooms(rooms_in)}" +
                            (f" (not {fmt_rooms(extra)})" if extra else "") +
                            (f" (also {fmt_rooms(missing)})" if missing else ""))
        names_kernels = any(o == "kernels" or o.startswith("kernels/") for o in other)
        files = set(KERNEL_FILE.findall(claim)) - {"apportion.h", "apportion_cuda.h"}
        if kernels_in and not names_kernels:
            problems.append(f"{rel}: \"{claim}\" names no kernels/ but the room includes "
                            f"{', '.join(sorted(kernels_in))}")
        elif not kernels_in and names_kernels:
            problems.append(f"{rel}: \"{claim}\" names kernels/ but the room includes none of it")
        elif files and files != kernels_in:
            problems.append(f"{rel}: \"{claim}\" names the kernels/ headers "
                            f"{', '.join(sorted(files))} but the room includes "
                            f"{', '.join(sorted(kernels_in))}")


def fmt_rooms(rooms):
    return ", ".join(r + "/" for r in sorted(rooms)) or "no other room"


def check_kernel_readmes(root, problems):
    rooms = ROOMS_MOD.KERNEL_ROOMS
    actual = kernel_includes(root)
    for room, rank in rooms.items():
        rel = f"kernels/{room}/README.md"
        if not os.path.exists(os.path.join(root, rel)):
            problems.append(f"{rel}: missing (every room has a README saying what it may include)")
            continue
        text = read(root, rel)
        claim = sentence(text, r"(?:The top room: )?May include") or sentence(text, "Includes only")
        if claim is None:
            problems.append(f"{rel}: no sentence starting \"May include\" says which rooms it "
                            f"may include")
            continue
        before = {r for r, k in rooms.items() if k < rank}
        named, _ = claimed_rooms(claim, rooms)
        named.discard(room)
        if re.search(r"every (?:room|family) before it|every other room", claim):
            allowed = before | named
        else:
            allowed = named
        if allowed != before:
            problems.append(f"{rel}: \"{claim}\" but the rooms before {room}/ "
                            f"(scripts/check-rooms.py) are {fmt_rooms(before)}")
        used = actual.get(room, set())
        if not used <= allowed:
            problems.append(f"{rel}: \"{claim}\" but its files include "
                            f"{fmt_rooms(used - allowed)}")


def room_tables(root):
    """(file, tree, [rooms of each row, in order], {room: row text}) for each room table."""
    tables = []
    specs = [("runtime/README.md", None), ("kernels/README.md", None), ("docs/design.md", None)]
    for rel, _ in specs:
        if not os.path.exists(os.path.join(root, rel)):
            continue
        heading = ""
        rows = None
        for line in read(root, rel).splitlines() + [""]:
            if line.startswith("#"):
                heading = line
            if line.startswith("| room |"):
                rows = []
                continue
            if rows is not None:
                if not line.startswith("|"):
                    tree = "kernels" if ("kernels" in heading or rel.startswith("kernels/")) \
                        else "runtime"
                    tables.append((rel, tree, rows))
                    rows = None
                elif not line.startswith("|---"):
                    first, rest = line.split("|")[1], "|".join(line.split("|")[2:])
                    rows.append(([w.rstrip("/") for w in re.findall(r"`([^`]+/)`", first)], rest))
    return tables


def check_room_tables(root, problems):
    for rel, tree, rows in room_tables(root):
        rooms = ROOMS_MOD.KERNEL_ROOMS if tree == "kernels" else ROOMS_MOD.ROOMS
        seen = []
        for names, rest in rows:
            for name in names:
                if name not in rooms:
                    problems.append(f"{rel}: the {tree}/ room table names {name}/, which is no "
                                    f"room of scripts/check-rooms.py")
                    continue
                seen.append(name)
                if re.search(r"\bempty\b", rest) and walk(root, f"{tree}/{name}",
                                                          ROOMS_MOD.SOURCES):
                    problems.append(f"{rel}: the {tree}/ room table says {name}/ is empty, but "
                                    f"it holds {len(walk(root, f'{tree}/{name}', ROOMS_MOD.SOURCES))}"
                                    f" files")
        ranks = [rooms[n] for n in seen]
        if ranks != sorted(ranks):
            problems.append(f"{rel}: the {tree}/ room table's order {', '.join(seen)} is not "
                            f"the rooms' order in scripts/check-rooms.py")
        missing = [r for r in rooms if "/" not in r and r not in seen]
        if missing:
            problems.append(f"{rel}: the {tree}/ room table lacks {fmt_rooms(missing)}")


def mode_includes(root):
    problems = []
    check_runtime_readmes(root, problems)
    check_kernel_readmes(root, problems)
    check_room_tables(root, problems)
    return problems


# --- names ----------------------------------------------------------------------------------

NAME = re.compile(r"\b(?:apo_|APO_)\w*")
CODE_SUFFIXES = (".c", ".h", ".cu", ".cuh", ".py", ".sh", ".build", ".txt", ".toml")


def doc_pages(root):
    """docs/**/*.md but the logs (PERF.md, perf-log/), and every README.md of the tree."""
    pages = []
    for rel in walk(root, "docs", (".md",)):
        if rel == "docs/PERF.md" or "/perf-log/" in rel:
            continue
        pages.append(rel)
    pages += [r for r in walk(root, ".", ("README.md",)) if os.path.basename(r) == "README.md"
              and not r.startswith("docs/")]
    return sorted(set(p[2:] if p.startswith("./") else p for p in pages))


def strip_comments(rel, text):
    if rel.endswith((".c", ".h", ".cu", ".cuh")):
        return re.sub(r"/\*.*?\*/|//[^\n]*", " ", text, flags=re.S)
    return re.sub(r"(?m)^\s*#.*$", "", text)


def code_names(root):
    names = set()
    for top in sorted(os.listdir(root)):
        if top.startswith((".", "build")):
            continue
        paths = walk(root, top, CODE_SUFFIXES) if os.path.isdir(os.path.join(root, top)) \
            else ([top] if top.endswith(CODE_SUFFIXES) or top == "meson.build" else [])
        for rel in paths:
            if rel == "scripts/check-claims.py":
                continue  # its self-test's strings name stale names on purpose
            try:
                text = read(root, rel)
            except (OSError, UnicodeDecodeError):
                continue
            names.update(NAME.findall(strip_comments(rel, text)))
    return names


def mode_names(root):
    known = code_names(root)
    problems = []
    for rel in doc_pages(root):
        text = read(root, rel)
        for m in NAME.finditer(text):
            name, after = m.group(0), text[m.end():m.end() + 1]
            line = text.count("\n", 0, m.start()) + 1
            if after in ("<", "*") or name.endswith("_"):
                # A template or a prefix (apo__cpu_<name>_tiles, apo_stream_*, apo__): some
                # name of the code must begin with it.
                if not any(k.startswith(name) for k in known):
                    problems.append(f"{rel}:{line}: {name}{after}... begins no name of the code")
            elif name not in known:
                problems.append(f"{rel}:{line}: {name} names nothing in the code")
    return problems


# --- counts ---------------------------------------------------------------------------------

def catalog_ids(root):
    """[(name, room)] of the rows of kernels/common/catalog_table.h's APO_CATALOG, in order."""
    text = read(root, "kernels/common/catalog_table.h")
    body = re.search(r"#define APO_CATALOG\(X\)(.*?)(?:\n\n|\n#endif)", text, re.S).group(1)
    return [(m.group(1), m.group(2))
            for m in re.finditer(r"\bX\(\w+,\s*(\w+),\s*(\w+),", body)]


def mode_counts(root):
    problems = []
    # Fuzz targets against docs/robustness.md's table of them.
    targets = {os.path.basename(p)[:-2] for p in walk(root, "tests/fuzz", (".c",))
               if os.path.basename(p).startswith("fuzz_")}
    rows = set()
    table = None
    for line in read(root, "docs/robustness.md").splitlines():
        if line.startswith("| target | parser"):
            table = True
            continue
        if table:
            if not line.startswith("|"):
                break
            m = re.match(r"\| `(fuzz_\w+)`", line)
            if m:
                rows.add(m.group(1))
    for t in sorted(targets - rows):
        problems.append(f"docs/robustness.md: the table of fuzz targets has no row for {t} "
                        f"(tests/fuzz/{t}.c)")
    for t in sorted(rows - targets):
        problems.append(f"docs/robustness.md: the table of fuzz targets has a row for {t}, "
                        f"which tests/fuzz/ lacks")
    # The catalog's size, wherever a page states it.
    ids = catalog_ids(root)
    for rel in doc_pages(root):
        if not os.path.exists(os.path.join(root, rel)):
            continue
        text = read(root, rel)
        for m in re.finditer(r"catalog of (\d+) kernels", " ".join(text.split())):
            if int(m.group(1)) != len(ids):
                problems.append(f"{rel}: \"{m.group(0)}\" but kernels/common/catalog_table.h has "
                                f"{len(ids)} rows")
    # Each catalog kernel in its room's row of kernels/README.md.
    row_of = {}
    for rel, tree, rows in room_tables(root):
        if rel == "kernels/README.md":
            for names, rest in rows:
                for n in names:
                    row_of[n] = rest
    for kernel, room in ids:
        if room not in row_of:
            problems.append(f"kernels/README.md: no row for the room {room}/ of catalog kernel "
                            f"{kernel}")
        elif not re.search(r"\b" + kernel + r"\b", row_of[room]):
            problems.append(f"kernels/README.md: the row of {room}/ does not name {kernel}, a "
                            f"catalog kernel of that room (kernels/common/catalog_table.h)")
    return problems


# --- version --------------------------------------------------------------------------------

def mode_version(root):
    problems = []
    meson = re.search(r"project\([^)]*?version\s*:\s*'([^']+)'", read(root, "meson.build"), re.S)
    if not meson:
        return ["meson.build: no project version"]
    version = meson.group(1)
    parts = version.split(".")
    py = re.search(r'(?m)^version\s*=\s*"([^"]+)"', read(root, "pyproject.toml"))
    if py and py.group(1) != version:
        problems.append(f"pyproject.toml: version {py.group(1)}, meson.build's project is "
                        f"{version}")
    elif not py and "dynamic" not in read(root, "pyproject.toml"):
        problems.append("pyproject.toml: neither a version nor a dynamic one")
    header = read(root, "include/apportion.h")
    for i, part in enumerate(("MAJOR", "MINOR", "PATCH")):
        m = re.search(r"#define APO_VERSION_" + part + r"\s+(\d+)", header)
        want = parts[i] if i < len(parts) else None
        if not m or m.group(1) != want:
            problems.append(f"include/apportion.h: APO_VERSION_{part} is "
                            f"{m.group(1) if m else 'missing'}, meson.build's project version "
                            f"{version} says {want}")
    m = re.search(r'#define APO_VERSION_STRING\s+"([^"]+)"', header)
    if not m or m.group(1) != version:
        problems.append(f"include/apportion.h: APO_VERSION_STRING is "
                        f"{m.group(1) if m else 'missing'}, meson.build's project is {version}")
    # What returns the version must return the header's string, not a copy of its own.
    for rel, pattern in (("runtime/base/status.c", r"return APO_VERSION_STRING;"),
                         ("cli/main.c", r"APO_VERSION_STRING, apo_version\(\)"),
                         ("python/src/module.c", r"apo_version\(\)"),
                         ("python/apportion/__init__.py", r"__version__ = _core\.version\(\)")):
        if not os.path.exists(os.path.join(root, rel)) or not re.search(pattern, read(root, rel)):
            problems.append(f"{rel}: the version no longer comes from the header "
                            f"(expected {pattern!r})")
    return problems


# --- env ------------------------------------------------------------------------------------

def mode_env(root):
    problems = []
    for top in ("runtime", "kernels"):
        for rel in walk(root, top, ROOMS_MOD.SOURCES):
            if rel == "runtime/base/env.c":
                continue
            code = strip_comments(rel, read(root, rel))
            if re.search(r"\b(?:secure_)?getenv\s*\(|\benviron\b", code):
                problems.append(f"{rel}: reads the environment; only runtime/base/env.c may "
                                f"(docs/env.md)")
    return problems


MODES = {"includes": mode_includes, "names": mode_names, "counts": mode_counts,
         "version": mode_version, "env": mode_env}


# --- self-test ------------------------------------------------------------------------------

def good_tree():
    """A small tree whose every claim holds, for the self-test."""
    cat = ("#define APO_CATALOG(X) \\\n    X(SMA, sma, averages, (1, \"close\")) \\\n"
           "    X(RSI, rsi, oscillators, (1, \"close\"))\n\n")
    kernel_rows = "".join(f"| `{r}/` | {'sma' if r == 'averages' else 'rsi' if r == 'oscillators' else 'x'} |\n"
                          for r in ROOMS_MOD.KERNEL_ROOMS)
    runtime_rows = "".join(f"| `{r}/` | x |\n" for r in ROOMS_MOD.ROOMS)
    tree = {
        "meson.build": "project('apportion', 'c',\n  version : '1.2.3')\n",
        "pyproject.toml": '[project]\nversion = "1.2.3"\n',
        "include/apportion.h": "#define APO_VERSION_MAJOR 1\n#define APO_VERSION_MINOR 2\n"
                               "#define APO_VERSION_PATCH 3\n#define APO_VERSION_STRING \"1.2.3\"\n"
                               "const char *apo_version(void);\n#define APO_OK 0\n",
        "runtime/base/status.c": "const char *apo_version(void) { return APO_VERSION_STRING; }\n",
        "cli/main.c": 'printf("%s %s", APO_VERSION_STRING, apo_version());\n',
        "python/src/module.c": "f(apo_version());\n",
        "python/apportion/__init__.py": "__version__ = _core.version()\n",
        "runtime/README.md": "| room | what |\n|---|---|\n" + runtime_rows,
        "runtime/base/README.md": "What all lean on. Includes no other room: libc only.\n",
        "runtime/base/env.c": "const char *v = getenv(name);\n",
        "runtime/base/error.h": "int apo__fail(void);\n",
        "runtime/catalog/README.md": "Kernels. Includes base/ and kernels/.\n",
        "runtime/catalog/registry.c": '#include "base/error.h"\n#include "sma_tile.h"\n',
        "runtime/core/README.md": "The runtime. Includes catalog/ and base/, and kernels/common/"
                                  "random_walk.h for profiling.\n",
        "runtime/core/runtime.c": '#include "catalog/registry.h"\n#include "base/error.h"\n'
                                  '#include "random_walk.h"\n',
        "runtime/catalog/registry.h": "",
        "kernels/common/random_walk.h": "",
        "kernels/common/catalog_table.h": cat,
        "kernels/averages/sma_tile.h": '#include "random_walk.h"\n',
        "kernels/README.md": "| room | what |\n|---|---|\n" + kernel_rows,
        "docs/design.md": "# Design\n\nThe catalog of 2 kernels; `apo_version()`, `APO_OK`, "
                          "`apo__fail` and `apo_version*`.\n",
        "docs/PERF.md": "`apo_gone_from_the_log` is a log's word.\n",
        "docs/perf-log/2026.md": "`apo_gone_too`\n",
        "docs/robustness.md": "| target | parser |\n|---|---|\n| `fuzz_csv` | csv |\n\nAfter.\n",
        "tests/fuzz/fuzz_csv.c": "",
    }
    for room, rank in ROOMS_MOD.KERNEL_ROOMS.items():
        tree[f"kernels/{room}/README.md"] = ("Shared. Includes only itself.\n" if rank == 0 else
                                             "The room. May include every room before it.\n")
    return tree


def self_test():
    broken = {
        "includes": [
            ("a runtime room includes a room its README does not name",
             {"runtime/catalog/registry.c": '#include "core/runtime.h"\n#include "sma_tile.h"\n'
                                            '#include "base/error.h"\n',
              "runtime/core/runtime.h": ""}, "also core/"),
            ("a runtime README names a room its files do not include",
             {"runtime/catalog/README.md": "Kernels. Includes base/, core/ and kernels/.\n"},
             "not core/"),
            ("a runtime README names a kernels/ header its room does not include",
             {"runtime/core/README.md": "Includes catalog/ and base/, and kernels/common/"
                                        "splitmix64.h.\n"}, "kernels/ headers"),
            ("a runtime README says \"every room\"",
             {"runtime/core/README.md": "Includes every other room.\n"}, "one by one"),
            ("a kernels README names a room after its own",
             {"kernels/averages/README.md": "May include `common/` and `cuda/`.\n"},
             "the rooms before averages/"),
            ("a room table calls a room with files empty",
             {"kernels/README.md": "| room | what |\n|---|---|\n" + "".join(
                 f"| `{r}/` | {'empty for now' if r == 'averages' else 'x'} |\n"
                 for r in ROOMS_MOD.KERNEL_ROOMS)}, "is empty"),
            ("a room table out of order",
             {"runtime/README.md": "| room | what |\n|---|---|\n| `core/` | x |\n" + "".join(
                 f"| `{r}/` | x |\n" for r in ROOMS_MOD.ROOMS if r != "core")}, "order"),
        ],
        "names": [
            ("a doc names a function that does not exist",
             {"docs/design.md": "`apo__macd` runs.\n"}, "apo__macd names nothing"),
            ("a README names a macro only a comment mentions",
             {"runtime/base/README.md": "Includes no other room. `APO_GONE`.\n",
              "runtime/base/error.h": "/* APO_GONE */ int apo__fail(void);\n"}, "APO_GONE"),
            ("a split page of docs/ names a stale prefix",
             {"docs/cli/run.md": "`apo_nothing_*`\n"}, "begins no name"),
        ],
        "counts": [
            ("a fuzz target without its row",
             {"tests/fuzz/fuzz_numbers.c": ""}, "no row for fuzz_numbers"),
            ("a row for a fuzz target that is gone",
             {"docs/robustness.md": "| target | parser |\n|---|---|\n| `fuzz_csv` | csv |\n"
                                    "| `fuzz_gone` | x |\n"}, "which tests/fuzz/ lacks"),
            ("a stated catalog size that is wrong",
             {"docs/design.md": "The catalog of 35 kernels.\n"}, "rows"),
            ("a catalog kernel missing from its room's row",
             {"kernels/README.md": "| room | what |\n|---|---|\n" + "".join(
                 f"| `{r}/` | x |\n" for r in ROOMS_MOD.KERNEL_ROOMS)}, "does not name sma"),
        ],
        "version": [
            ("pyproject.toml behind meson.build",
             {"pyproject.toml": '[project]\nversion = "1.2.2"\n'}, "pyproject.toml"),
            ("a header macro behind meson.build",
             {"meson.build": "project('apportion', 'c',\n  version : '1.3.3')\n",
              "pyproject.toml": '[project]\nversion = "1.3.3"\n'}, "APO_VERSION_MINOR"),
            ("the Python package's own copy of the version",
             {"python/apportion/__init__.py": '__version__ = "1.2.3"\n'}, "__init__.py"),
        ],
        "env": [
            ("a second file of the library reads the environment",
             {"runtime/devices/cuda/cuda_device.c": 'if (getenv("CUDA_VISIBLE_DEVICES"))\n'},
             "cuda_device.c: reads the environment"),
        ],
    }
    failed = 0
    for mode, cases in broken.items():
        with tempfile.TemporaryDirectory() as root:
            write_tree(root, good_tree())
            found = MODES[mode](root)
            ok = not found
            print(f"check-claims self-test {mode} on a good tree: {'ok' if ok else 'WRONG'} "
                  f"{found}")
            failed += not ok
        for name, change, expected in cases:
            with tempfile.TemporaryDirectory() as root:
                write_tree(root, good_tree())
                write_tree(root, change)
                found = MODES[mode](root)
                ok = any(expected in p for p in found)
                print(f"check-claims self-test {mode}, {name}: {'ok' if ok else 'WRONG'} {found}")
                failed += not ok
    return 1 if failed else 0


def write_tree(root, files):
    for rel, text in files.items():
        path = os.path.join(root, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 3 or sys.argv[1] not in MODES:
        print(__doc__, file=sys.stderr)
        return 2
    mode, root = sys.argv[1], sys.argv[2]
    problems = MODES[mode](root)
    for p in problems:
        print(f"check-claims {mode}: {p}")
    if problems:
        print(f"check-claims {mode}: {len(problems)} claim(s) the tree contradicts: fix the "
              f"prose (or the tree), or take the claim out of the prose")
        return 1
    print(f"check-claims {mode}: every claim holds")
    return 0


if __name__ == "__main__":
    sys.exit(main())
