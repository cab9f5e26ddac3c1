#!/usr/bin/env python3
"""Fails when a kernel's name does not lead to its tests: every kernel must be named in a
test file of tests/kernels/<family>/, the folder named as the room of kernels/ that holds it
(tests/README.md, "Where a new test goes").

The catalog's kernels and their rooms are read from the code, not from a list kept here:
the rows of the table APO_CATALOG in kernels/common/catalog_table.h, whose first three
columns are the id, the name and the room ("X(PLUS_DI, plus_di, trend, ..."); APO_CAT_PLUS_DI
is plus_di. (The four built-in kernels
are tested in tests/kernels/test_kernels.c and test_kernels_bootstrap.c, not yet by family.)
A test file names a kernel when the name stands alone as a word ("plus_di", not
"plus_dix"), or as its catalog id (APO_CAT_PLUS_DI). A case that checks every kernel of a
table lives in tests/kernels/common/; the family's file names the kernel then, and says
where that case is.

Usage:
  check-test-families.py SOURCE_ROOT      # check the tree
  check-test-families.py --self-test      # shows that an unnamed kernel is caught
"""
import os
import re
import sys
import tempfile

TABLE = re.compile(r"#define APO_CATALOG\(X\)(.*?)(?:\n\n|\n#endif)", re.S)
ROW = re.compile(r"\bX\((\w+),\s*(\w+),\s*(\w+),")


def catalog_kernels(root):
    """(name, room) of every catalog kernel, in the table's order."""
    text = open(os.path.join(root, "kernels", "common", "catalog_table.h")).read()
    body = TABLE.search(text)
    if body is None:
        raise SystemExit("check-test-families: no table APO_CATALOG in "
                         "kernels/common/catalog_table.h")
    return [(name, room) for _, name, room in ROW.findall(body.group(1))]


def named_in(name, texts):
    word = re.compile(r"(?<![A-Za-z0-9_])(?:%s|APO_CAT_%s)(?![A-Za-z0-9_])"
                      % (re.escape(name), re.escape(name.upper())))
    return any(word.search(t) for t in texts)


def check(root):
    missing = []
    kernels = catalog_kernels(root)
    for name, room in kernels:
        folder = os.path.join(root, "tests", "kernels", room)
        texts = []
        if os.path.isdir(folder):
            for f in sorted(os.listdir(folder)):
                if f.startswith("test_") and f.endswith(".c"):
                    texts.append(open(os.path.join(folder, f)).read())
        if not named_in(name, texts):
            missing.append(f"{name} (kernels/{room}/): no test file of tests/kernels/{room}/ "
                           f"names it")
    for m in missing:
        print("check-test-families: " + m)
    if not missing:
        print(f"check-test-families: {len(kernels)} kernels, each named in its family's tests")
    return 1 if missing else 0


def self_test():
    """A tree whose trend folder names atr but not aroon must fail; naming aroon by its id
    must pass; a kernel named only in another family's folder must fail."""
    def run_on(files):
        with tempfile.TemporaryDirectory(prefix="families-") as d:
            for path, text in files.items():
                full = os.path.join(d, path)
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "w") as f:
                    f.write(text)
            return check(d)
    header = ("#define APO_CATALOG(X) \\\n    X(ATR, atr, trend, (3, \"high\"), (1, \"atr\")) \\\n"
              "    X(AROON, aroon, trend, (2, \"high\"), (2, \"aroondown\"))\n\n")
    cases = [
        ("an unnamed kernel", {"tests/kernels/trend/test_trend.c": "/* atr */"}, 1),
        ("a kernel named by its id", {"tests/kernels/trend/test_trend.c":
                                      "/* atr */ int x = APO_CAT_AROON;"}, 0),
        ("a name inside a longer word", {"tests/kernels/trend/test_trend.c":
                                         "/* atr aroondown */"}, 1),
        ("a kernel named in another family's folder",
         {"tests/kernels/trend/test_trend.c": "/* atr */",
          "tests/kernels/volume/test_volume.c": "/* aroon */"}, 1),
    ]
    failed = 0
    for what, files, want in cases:
        files = dict(files)
        files["kernels/common/catalog_table.h"] = header
        got = run_on(files)
        ok = got == want
        failed += not ok
        print(f"check-test-families self-test, {what}: {'ok' if ok else 'WRONG'}")
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    if len(sys.argv) != 2:
        print(__doc__)
        return 2
    return check(sys.argv[1])


if __name__ == "__main__":
    sys.exit(main())
