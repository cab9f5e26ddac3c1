#!/usr/bin/env python3
"""Fails when a function of the C sources is over 150 lines (issue 57's target): a function
that long does more than one thing, and a newcomer reads it in pieces anyway, so the pieces
should be helpers with names.

The folders read are the library (runtime/, kernels/, include/), the command-line tool (cli/),
the benchmarks (bench/), the Python binding's C (python/src/) and the tests (tests/); the files
are .c, .h, .cu and .cuh. A function is a brace block at the top level of a file whose header
ends in a parameter list: a definition, a definition whose name is a macro (the lanes headers'
APO_LANES_NAME(...)), and a Criterion case (Test(area, name, ...) { ... }), whose body is a
function too. Its length counts the lines from its name to its closing brace, as ctags's
`end:` field does, so `ctags --fields=+ne` agrees with it.

Comments, string and character literals and preprocessor lines are blanked before braces are
counted, so a brace in any of them is not one. A brace block that an `#if` opens twice (once per
branch) would unbalance the count: the check then names the file and fails rather than guess.

Usage:
  check-function-length.py SOURCE_ROOT            # check the tree
  check-function-length.py SOURCE_ROOT --top N    # list the N longest functions
  check-function-length.py --self-test            # shows that a long function is caught
"""
import bisect
import os
import re
import sys
import tempfile

LIMIT = 150
FOLDERS = ["runtime", "kernels", "include", "cli", "bench", os.path.join("python", "src"),
           "tests"]
SUFFIXES = (".c", ".h", ".cu", ".cuh")
# No function is allowed over the limit today; an entry would be "path:name" with the reason
# beside it in a comment.
ALLOWED = {}

# What may follow a parameter list before the body: attributes and qualifiers, one word each.
TRAILER = re.compile(r"(?:\s+|__attribute__\s*\(\([^;{}]*\)\)|\b\w+)$")
NAME = re.compile(r"([A-Za-z_]\w*)\s*\($")


# What blank() replaces, in the order a reader meets them: a preprocessor line (a `#` first on
# its line after blanks, running on over every line a backslash continues), a line comment, a
# block comment (to the file's end when unclosed), a string or character literal (to its
# closing quote or the line's end; a backslash takes the next character, a newline too).
BLANKED = re.compile(r"""(?P<directive>^[ \t]*\#(?:\\\n|[^\n])*)"""
                     r"""|//[^\n]*"""
                     r"""|/\*.*?(?:\*/|\Z)"""
                     r"""|(?P<literal>(?P<quote>["'])(?:\\.|\\\n|(?!(?P=quote))[^\n\\])*(?P=quote)?)""",
                     re.S | re.M)


def _blanked(m):
    text = m.group(0)
    if m.group("directive") is not None:
        # The blanks before the `#` stay as they were; the rest turns to spaces, newlines kept.
        hash_at = text.index("#")
        return text[:hash_at] + re.sub(r"[^\n]", " ", text[hash_at:])
    if m.group("literal") is not None:
        quote = m.group("quote")
        closed = len(text) > 1 and text.endswith(quote) and not _escaped_end(text)
        inner = len(text) - 1 - (1 if closed else 0)
        return quote + " " * inner + (quote if closed else "")
    return re.sub(r"[^\n]", " ", text)


def _escaped_end(text):
    """Whether a literal's last character is a backslash's escape rather than its closing
    quote."""
    i, n = 1, len(text)
    while i < n - 1:
        i += 2 if text[i] == "\\" else 1
    return i != n - 1


def blank(text):
    """The text with comments, literals and preprocessor lines replaced by spaces, newlines
    kept, so that line numbers still hold."""
    return BLANKED.sub(_blanked, text)


def function_name(header):
    """The name a top-level brace block is defined under, or None when the block is no
    function (a struct, an initialiser, an extern "C" block)."""
    # Runs of blanks (a blanked comment is hundreds) as one space: the patterns below, anchored
    # at the end, would otherwise try every blank of a run, a run's length squared.
    header = re.sub(r"\s+", " ", header).rstrip()
    while not header.endswith(")"):
        m = TRAILER.search(header)
        if m is None or m.start() == len(header):
            return None
        header = header[:m.start()].rstrip()
    depth = 0
    for pos, c in enumerate(header):
        if c == "(":
            if depth == 0:
                m = NAME.search(header[:pos + 1])
                if m is None:
                    return None
                if m.group(1) in ("Test", "ParameterizedTest", "Theory"):
                    args = header[pos + 1:header.rfind(")")].split(",")
                    return "%s(%s)" % (m.group(1), ",".join(a.strip() for a in args[:2]))
                return m.group(1)
            depth += 1
        elif c == ")":
            depth -= 1
        elif c == "=" and depth == 0:
            return None
    return None


def functions(path):
    """(name, first line, length) of every function of one file; raises ValueError when the
    braces do not balance."""
    text = blank(open(path, encoding="utf-8", errors="replace").read())
    newlines = [m.start() for m in re.finditer("\n", text)]

    def line_of(pos):
        return bisect.bisect_left(newlines, pos) + 1

    found = []
    depth = 0
    header_start = 0
    current = None
    for brace in re.finditer(r"[{};]", text):
        pos, c = brace.start(), brace.group(0)
        if c == "{":
            if depth == 0:
                header = text[header_start:pos]
                name = function_name(header)
                if name is not None:
                    m = re.search(r"[A-Za-z_]\w*\s*\(", header)
                    name_pos = header_start + (m.start() if m else 0)
                    current = (name, line_of(name_pos))
                elif re.fullmatch(r"\s*extern\s*\"\s*\"\s*", header):
                    header_start = pos + 1
                    continue  # extern "C" { ... }: its contents stay at the top level
            depth += 1
        elif c == "}":
            if depth == 0:
                header_start = pos + 1  # the end of an extern "C" block
                continue
            depth -= 1
            if depth == 0:
                if current is not None:
                    name, first = current
                    last = line_of(pos)
                    found.append((name, first, last - first + 1))
                    current = None
                header_start = pos + 1
        elif c == ";" and depth == 0:
            header_start = pos + 1
    if depth != 0:
        raise ValueError("unbalanced braces (an #if that opens a block in each branch?)")
    return found


def measure(root):
    """(length, path, line, name) of every function under the folders read, and the files
    whose braces could not be counted."""
    rows, bad = [], []
    for folder in FOLDERS:
        for dirpath, dirnames, filenames in os.walk(os.path.join(root, folder)):
            dirnames.sort()
            for f in sorted(filenames):
                if not f.endswith(SUFFIXES):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                try:
                    for name, line, length in functions(path):
                        rows.append((length, rel, line, name))
                except ValueError as e:
                    bad.append("%s: %s" % (rel, e))
    return rows, bad


def check(root):
    rows, bad = measure(root)
    over = [r for r in rows if r[0] > LIMIT and "%s:%s" % (r[1], r[3]) not in ALLOWED]
    for length, rel, line, name in sorted(over, reverse=True):
        print("check-function-length: %s:%d: %s is %d lines, over %d: split it into helpers "
              "whose names say what they do" % (rel, line, name, length, LIMIT))
    for b in bad:
        print("check-function-length: " + b)
    if not over and not bad:
        print("check-function-length: %d functions, none over %d lines (the longest: %d)"
              % (len(rows), LIMIT, max(r[0] for r in rows) if rows else 0))
    return 1 if over or bad else 0


def top(root, count):
    rows, bad = measure(root)
    for length, rel, line, name in sorted(rows, reverse=True)[:count]:
        print("%5d  %s:%d  %s" % (length, rel, line, name))
    print("%d functions, %d over %d lines" % (len(rows), sum(r[0] > LIMIT for r in rows), LIMIT))
    for b in bad:
        print("unreadable: " + b)
    return 0


def self_test():
    """A function of 151 lines fails and one of 150 passes; so does a Criterion case; braces in
    comments, strings and directives do not count; a function inside extern "C" is still
    seen; an unbalanced file fails."""
    def body(lines):
        return "\n".join("    x += %d;" % i for i in range(lines))

    def run_on(text):
        with tempfile.TemporaryDirectory(prefix="function-length-") as d:
            os.makedirs(os.path.join(d, "runtime"))
            with open(os.path.join(d, "runtime", "a.c"), "w") as f:
                f.write(text)
            return check(d)
    # A function of n lines: its name line, n - 2 body lines, its closing brace.
    fn = lambda n: "static int\nf(int x)\n{\n%s\n}\n" % body(n - 3)
    cases = [
        ("a function of 150 lines", "int y;\n" + fn(150), 0),
        ("a function of 151 lines", fn(151), 1),
        ("a Criterion case of 151 lines", "Test(a, b, .timeout = 60) {\n%s\n}\n" % body(149), 1),
        ("braces in comments, strings and directives",
         "/* { */\n#define OPEN {\nconst char *s = \"{\";\nchar c = '{';\n" + fn(150), 0),
        ("a long function inside extern \"C\"", "extern \"C\" {\n" + fn(151) + "}\n", 1),
        ("a long initialiser is no function",
         "static const int t[] = {\n%s\n};\n" % "\n".join("1," for _ in range(200)), 0),
        ("unbalanced braces", "#if A\nvoid f(void) {\n#else\nvoid f(int x) {\n#endif\n}\n", 1),
    ]
    failed = 0
    for what, text, want in cases:
        got = run_on(text)
        if got != want:
            print("self-test: %s: exit %d, wanted %d" % (what, got, want))
            failed = 1
    print("self-test: " + ("failed" if failed else "passed"))
    return failed


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) == 2:
        return check(argv[1])
    if len(argv) == 4 and argv[2] == "--top":
        return top(argv[1], int(argv[3]))
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv))
