#!/usr/bin/env python3
"""Fails when an #include in runtime/ breaks the rooms' dependency order (docs/design.md,
"Rooms"), or when two pieces of runtime/ include each other, directly or round a circle.

A room may include only itself and the rooms before it in ROOMS; devices/cuda and
devices/rank sit above devices/ and beside each other. A piece is a file name without its
extension (x.c and x.h together), so "x.c includes y.h while y.c includes x.h" is a circle.

    scripts/check-rooms.py [RUNTIME_DIR]      # default: runtime/ beside this script
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
    "devices": 2,
    "devices/cuda": 3,
    "devices/rank": 3,
    "profiles": 4,
    "balance": 5,
    "cluster": 6,
    "core": 7,
}
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)


def room_of(rel):
    parts = rel.split("/")
    for depth in (2, 1):
        room = "/".join(parts[:depth])
        if len(parts) > depth and room in ROOMS:
            return room
    return None


def check(root):
    """The problems found in the tree at `root`, one line each."""
    problems = []
    edges = {}
    for dirpath, _, names in os.walk(root):
        for name in sorted(names):
            if not name.endswith((".c", ".h")):
                continue
            path = os.path.join(dirpath, name)
            rel = os.path.relpath(path, root).replace(os.sep, "/")
            room = room_of(rel)
            if room is None:
                problems.append(f"{rel}: not in any room of {sorted(ROOMS)}")
                continue
            piece = rel.rsplit(".", 1)[0]
            with open(path, encoding="utf-8") as f:
                text = f.read()
            for target in INCLUDE.findall(text):
                if not os.path.exists(os.path.join(root, target)):
                    continue  # public headers, kernels/, system headers
                target_room = room_of(target)
                if target_room is None:
                    problems.append(f"{rel}: includes {target}, which is in no room")
                    continue
                if target_room != room and ROOMS[target_room] >= ROOMS[room]:
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

    return problems


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
    }
    failed = 0
    for name, (files, expected) in cases.items():
        with tempfile.TemporaryDirectory() as root:
            for rel, text in files.items():
                os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
                with open(os.path.join(root, rel), "w", encoding="utf-8") as f:
                    f.write(text)
            found = check(root)
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
    problems = check(root)
    for line in problems:
        print(f"check-rooms: {line}")
    if problems:
        print(f"check-rooms: {len(problems)} problem(s); the order is in docs/design.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
