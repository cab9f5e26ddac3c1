#!/usr/bin/env python3
"""Fails when an #include in runtime/ or kernels/ breaks the rooms' dependency order
(docs/design.md, "Rooms"), when two pieces of a tree include each other, directly or
round a circle, or when a header declares a function that a file of another room defines
(a header declares what its own room implements: a lower room's header declaring a higher
room's function is a call up the house that no include shows).

A room may include only itself and the rooms before it in its tree's table (ROOMS for
runtime/, KERNEL_ROOMS for kernels/); devices/cuda and devices/rank sit above devices/ and
beside each other. A piece is a file name without its extension (x.c, x.h and x.cu
together), so "x.c includes y.h while y.c includes x.h" is a circle.

runtime/ includes its own files by their path from runtime/ ("base/error.h"); a quoted
include that names no file there is a public header or a kernels/ header, which runtime/
may use. kernels/ includes its own files by their bare names (every room is an include
directory, kernels/meson.build), so there a name must be unique across the rooms, and a
quoted include that names no file of kernels/ fails: kernels/ depends on libc and libm
only, never on runtime/ or include/.

    scripts/check-rooms.py [DIR]              # default: runtime/ beside this script; a DIR
                                              # named kernels is checked as kernels/
    scripts/check-rooms.py --self-test        # shows that the check catches what it must
"""
import os
import re
import sys

# Rank of each room: a file may include a file of the same or a lower rank; equal ranks
# of different rooms (devices/cuda, devices/rank) may not include each other.
ROOMS = {
    "base": 0,
    "catalog": 1,
    "streaming": 2,
    "devices": 3,
    "devices/cuda": 4,
    "devices/rank": 4,
    "profiles": 5,
    "balance": 6,
    "cluster": 7,
    "core": 8,
}
# kernels/ (kernels/README.md): the shared pieces, then the families in a line (a family
# may use the ones before it, an oscillator an average), then the rules and scores that
# read any family's outputs, then the per-ISA dispatch of the
# families' lane kernels with the facade kernels.h, then the staged CUDA kernels, which
# run every family's tile body.
KERNEL_ROOMS = {
    "common": 0,
    "averages": 1,
    "oscillators": 2,
    "trend": 3,
    "volume": 4,
    "statistics": 5,
    "cycles": 6,
    "reductions": 7,
    "scores": 8,
    "dispatch": 9,
    "cuda": 10,
}
SOURCES = (".c", ".h", ".cu")
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# A function defined at the top of a .c or .cu file (not static), and one declared at the
# top of a header (not static, not a macro): a return type from the line's start, the name,
# the parameters (one level of parentheses inside), then a body or a semicolon.
_PARAMS = r"\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)"
DEFINITION = re.compile(r'^(?:extern "C" )?(?!static\b|typedef\b|extern\b|return\b)'
                        r"[A-Za-z_][\w \t*]*?\b(\w+)\s*" + _PARAMS + r"\s*\{", re.M)
DECLARATION = re.compile(r"^(?!static\b|typedef\b|return\b)[A-Za-z_][\w \t*]*?\b(\w+)\s*"
                         + _PARAMS + r"\s*;", re.M)
# Headers that still declare functions of another room, each with why, until they move:
# the per-ISA group functions that dispatch/lanes_dispatch.c defines are declared with their
# family (macd.c calls its split, a call up to dispatch/), and the CUDA view's header in
# common/ declares the launchers of the built-ins' .cu files and of cuda/. The catalog's
# header (common/catalog.h) was the first such header to move (issue 52).
DECLARES_ELSEWHERE = {
    "averages/bollinger.h": "apo__cpu_bollinger_tiles: dispatch/lanes_dispatch.c",
    "averages/bollinger_pass.h": "apo__cpu_bollinger_pass_tiles: dispatch/lanes_dispatch.c",
    "oscillators/macd.h": "the macd group and split functions: dispatch/lanes_dispatch.c",
    "reductions/reductions.h": "apo__cpu_returns_stats_tiles: dispatch/lanes_dispatch.c",
    "scores/score_sets.h": "the scored sets' group functions: dispatch/lanes_dispatch.c",
    "common/kernels_cuda.h": "the built-ins' CUDA launchers: averages/, oscillators/, "
                             "reductions/, cuda/",
}


def room_of(rel, rooms=ROOMS):
    parts = rel.split("/")
    for depth in (2, 1):
        room = "/".join(parts[:depth])
        if len(parts) > depth and room in rooms:
            return room
    return None


def sources(root):
    """Every C, header and CUDA file under `root`, as paths relative to it."""
    found = []
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if name.endswith(SOURCES):
                found.append(os.path.relpath(os.path.join(dirpath, name), root)
                             .replace(os.sep, "/"))
    return sorted(found)


def _code(text):
    """The text without its comments, lines kept."""
    text = re.sub(r"/\*.*?\*/", lambda m: "\n" * m.group(0).count("\n"), text, flags=re.S)
    return re.sub(r"//[^\n]*", "", text)


def foreign_declarations(root, files, rooms, allowed=None):
    """A line for each function a header declares that only files of other rooms define."""
    allowed = DECLARES_ELSEWHERE if allowed is None else allowed
    defined = {}
    for rel in files:
        if rel.endswith((".c", ".cu")):
            with open(os.path.join(root, rel), encoding="utf-8") as f:
                for name in DEFINITION.findall(_code(f.read())):
                    defined.setdefault(name, set()).add(room_of(rel, rooms))
    problems = []
    for rel in files:
        if not rel.endswith(".h") or rel in allowed:
            continue
        room = room_of(rel, rooms)
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            names = DECLARATION.findall(_code(f.read()))
        for name in names:
            where = defined.get(name)
            if room is not None and where and room not in where:
                problems.append(f"{rel} ({room}) declares {name}, which "
                                f"{', '.join(sorted(str(w) for w in where))} defines: a header "
                                f"declares what its own room implements")
    return problems


def check(root, rooms=ROOMS, bare_names=False, allowed=None):
    """The problems found in the tree at `root`, one line each. With bare_names (kernels/),
    includes name files by their base name, which must then be unique in the tree, and an
    include of a file outside the tree is a problem."""
    problems = []
    edges = {}
    files = sources(root)
    by_name = {}
    for rel in files:
        by_name.setdefault(rel.rsplit("/", 1)[-1], []).append(rel)
    if bare_names:
        for name, places in sorted(by_name.items()):
            if len(places) > 1:
                problems.append(f"{name}: in {len(places)} places ({', '.join(places)}); "
                                f"a bare name must name one file")

    def resolve(target):
        if os.path.exists(os.path.join(root, target)):
            return target
        if bare_names:
            places = by_name.get(target.rsplit("/", 1)[-1], [])
            return places[0] if len(places) == 1 else None
        return None

    for rel in files:
        room = room_of(rel, rooms)
        if room is None:
            problems.append(f"{rel}: not in any room of {sorted(rooms)}")
            continue
        piece = rel.rsplit(".", 1)[0]
        with open(os.path.join(root, rel), encoding="utf-8") as f:
            text = f.read()
        for included in INCLUDE.findall(text):
            target = resolve(included)
            if target is None:
                if bare_names:
                    problems.append(f"{rel}: includes {included}, which is not a file of "
                                    f"this tree (it may use libc and libm only)")
                continue  # runtime/: public headers and kernels/
            target_room = room_of(target, rooms)
            if target_room is None:
                problems.append(f"{rel}: includes {target}, which is in no room")
                continue
            if target_room != room and rooms[target_room] >= rooms[room]:
                problems.append(f"{rel} ({room}) includes {target} ({target_room}): "
                                f"an arrow that points up or sideways")
            target_piece = target.rsplit(".", 1)[0]
            if target_piece != piece:
                edges.setdefault(piece, set()).add(target_piece)

    # Circles among pieces: depth-first search, reporting each circle once.
    state = {}
    stack = []

    def visit(p):
        state[p] = 1
        stack.append(p)
        for q in sorted(edges.get(p, ())):
            if state.get(q) == 1:
                circle = stack[stack.index(q):] + [q]
                problems.append("circle: " + " -> ".join(circle))
            elif q not in state:
                visit(q)
        stack.pop()
        state[p] = 2

    for p in sorted(edges):
        if p not in state:
            visit(p)

    return problems + foreign_declarations(root, files, rooms, allowed)


def self_test():
    """Builds small trees with each kind of fault, and a clean one, and checks the verdicts,
    so that a check that has silently stopped finding anything fails the suite."""
    import tempfile

    cases = {
        "clean": ({"base/a.h": "", "core/b.c": '#include "base/a.h"\n'}, []),
        "upward": ({"base/a.c": '#include "core/b.h"\n', "core/b.h": ""}, ["points up"]),
        "sideways": ({"devices/cuda/a.c": '#include "devices/rank/b.h"\n',
                      "devices/rank/b.h": ""}, ["points up or sideways"]),
        "circle": ({"base/a.c": '#include "base/b.h"\n', "base/a.h": "",
                    "base/b.c": '#include "base/a.h"\n', "base/b.h": ""}, ["circle"]),
        "roomless": ({"misc.c": ""}, ["not in any room"]),
        "declared below": ({"base/a.h": "int apo__b(int x);\n",
                            "core/b.c": "int apo__b(int x) { return x; }\n"},
                           ["declares apo__b"]),
        "declared in its room": ({"core/b.h": "int apo__b(int x);\n",
                                  "core/b.c": "int apo__b(int x) { return x; }\n"}, []),
    }
    kernel_cases = {
        "kernels clean": ({"common/apo_hd.h": "", "averages/sma.c": '#include "apo_hd.h"\n',
                           "oscillators/rsi.cu": '#include "sma.h"\n',
                           "averages/sma.h": ""}, []),
        "kernels upward": ({"common/lanes.h": '#include "sma_tile.h"\n',
                            "averages/sma_tile.h": ""}, ["points up"]),
        "kernels cuda upward": ({"reductions/moments.cu": '#include "stage.h"\n',
                                 "cuda/stage.h": ""}, ["points up"]),
        "kernels circle": ({"trend/atr.c": '#include "adx.h"\n', "trend/atr.h": "",
                            "trend/adx.c": '#include "atr.h"\n', "trend/adx.h": ""},
                           ["circle"]),
        "kernels include runtime": ({"common/a.c": '#include "base/error.h"\n'},
                                    ["not a file of this tree"]),
        "kernels one name twice": ({"averages/ema.h": "", "oscillators/ema.h": ""},
                                   ["a bare name must name one file"]),
        "kernels roomless": ({"misc.c": ""}, ["not in any room"]),
        "kernels declared below": ({"common/catalog.h": "size_t apo__halo(int id);\n",
                                    "dispatch/catalog.c": "size_t apo__halo(int id) {\n"
                                                          "    return 0;\n}\n"},
                                   ["declares apo__halo"]),
    }
    failed = 0
    runs = [(n, f, e, ROOMS, False) for n, (f, e) in cases.items()]
    runs += [(n, f, e, KERNEL_ROOMS, True) for n, (f, e) in kernel_cases.items()]
    for name, files, expected, rooms, bare in runs:
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.write(text)
            found = check(root, rooms, bare, allowed={})
        ok = (not expected and not found) or (
            expected and all(any(e in line for line in found) for e in expected))
        print(f"check-rooms self-test {name}: {'ok' if ok else 'WRONG'} {found}")
        failed += not ok
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "runtime")
    if os.path.basename(os.path.normpath(root)) == "kernels":
        problems = check(root, KERNEL_ROOMS, bare_names=True)
    else:
        problems = check(root)
    for line in problems:
        print(f"check-rooms: {line}")
    if problems:
        print(f"check-rooms: {len(problems)} problem(s); the order is in docs/design.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
