#!/usr/bin/env python3
"""Fails when an #include in runtime/ breaks the rooms' dependency order (docs/design.md,
"Rooms"), or when two pieces of runtime/ include each other, directly or round a circle.

A room may include only itself and the rooms before it in ROOMS; devices/cuda and
devices/rank sit above devices/ and beside each other. A piece is a file name without its
extension (x.c and x.h together), so "x.c includes y.h while y.c includes x.h" is a circle.

    scripts/check-rooms.py [RUNTIME_DIR]      # default: runtime/ beside this script
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


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "runtime")
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

    for line in problems:
        print(f"check-rooms: {line}")
    if problems:
        print(f"check-rooms: {len(problems)} problem(s); the order is in docs/design.md")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
