#!/usr/bin/env python3
"""The loops of a SASS listing, with what each executes per trip.

    scripts/sass-loops.py LISTING [--kernel SUBSTRING]
    scripts/sass-loops.py --self-test

LISTING is the text of `cuobjdump -sass` or `nvdisasm -c` (both write one instruction a line
as `/*ADDR*/ OPCODE ... ;` and branch targets as `.L_x_N:` labels). A loop is a backward
branch: the instructions from its target label to the branch. For each, in each kernel whose
mangled name contains SUBSTRING, it prints the address range, the instruction count and
the counts of FP64 arithmetic (DADD, DMUL, DFMA), MUFU, shared loads and stores (LDS, STS),
asynchronous copies (LDGSTS), global stores (STG, ST.E), branches (BRA) and 64-bit integer
halves (the .X and .EX forms). docs/cuda.md ("The staged kernels' steps") quotes its counts
of a tile body's step: a static count of the machine code, which says what one trip issues,
not how long it takes.
"""
import argparse
import re
import sys

INSTRUCTION = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
LABEL = re.compile(r"^(\.L_x_\d+):")
# A kernel's first line: nvdisasm's section header, or cuobjdump's "Function : NAME".
KERNEL = re.compile(r"(?:^|\s)\.text\.([^\s:,\"]+)|Function : (\S+)")
BRANCH = re.compile(r"\bBRA\b.*`\((\.L_x_\d+)\)")

COUNTS = (
    ("fp64", re.compile(r"\bD(ADD|MUL|FMA)\b")),
    ("mufu", re.compile(r"\bMUFU\b")),
    ("lds", re.compile(r"\bLDS\b")),
    ("sts", re.compile(r"\bSTS\b")),
    ("ldgsts", re.compile(r"\bLDGSTS\b")),
    ("stg", re.compile(r"\b(STG|ST\.E)\b")),
    ("bra", re.compile(r"\bBRA\b")),
    ("x64", re.compile(r"\.(X|EX)\b")),
)


def kernels_of(text):
    """[(kernel name, [(address, instruction)], {label: index})] in the listing's order."""
    out = []
    for line in text.splitlines():
        header = KERNEL.search(line)
        if header and ("//---" in line or "Function" in line or line.startswith(".text.")):
            name = header.group(1) or header.group(2)
            if not out or out[-1][0] != name:
                out.append((name, [], {}))
            continue
        if not out:
            continue
        label = LABEL.match(line.strip())
        if label:
            out[-1][2][label.group(1)] = len(out[-1][1])
            continue
        instruction = INSTRUCTION.search(line)
        if instruction:
            out[-1][1].append((int(instruction.group(1), 16), instruction.group(2)))
    return out


def loops_of(instructions, labels):
    """Each backward branch's loop: (first address, branch address, counts)."""
    loops = []
    for i, (address, text) in enumerate(instructions):
        branch = BRANCH.search(text)
        if not branch or labels.get(branch.group(1), i + 1) > i:
            continue
        start = labels[branch.group(1)]
        body = [t for _, t in instructions[start : i + 1]]
        counts = {"n": len(body)}
        for name, pattern in COUNTS:
            counts[name] = sum(1 for t in body if pattern.search(t))
        loops.append((instructions[start][0], address, counts))
    return loops


def report(text, kernel):
    lines = []
    for name, instructions, labels in kernels_of(text):
        if kernel and kernel not in name:
            continue
        lines.append(f"{name}: {len(instructions)} instructions")
        for first, last, counts in loops_of(instructions, labels):
            fields = " ".join(f"{k}={v}" for k, v in counts.items())
            lines.append(f"  loop {first:#06x}-{last:#06x} {fields}")
    return lines


SAMPLE = """
//--------------------- .text._Z6kernelv --------------------------
.text._Z6kernelv:
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_1:
        /*0010*/                   LDS.64 R2, [R4] ;
        /*0020*/                   DADD R6, R2, R6 ;
        /*0030*/                   IADD3 R4, P0, R4, 0x8, RZ ;
        /*0040*/                   IMAD.X R5, RZ, RZ, R5, P0 ;
        /*0050*/              @P1 BRA `(.L_x_1) ;
        /*0060*/                   BRA `(.L_x_2) ;
.L_x_2:
        /*0070*/                   EXIT ;
//--------------------- .text._Z5otherv --------------------------
.text._Z5otherv:
        /*0000*/                   EXIT ;
"""

# cuobjdump -sass's form of a kernel's header.
SAMPLE_CUOBJDUMP = """
        Function : _Z6kernelv
        /*0000*/                   MOV R1, c[0x0][0x28] ;
.L_x_1:
        /*0010*/                   DMUL R2, R2, R2 ;
        /*0020*/              @P1 BRA `(.L_x_1) ;
"""


# (listing, kernel filter, the report expected)
SELF_TEST_CASES = (
    (
        SAMPLE,
        "kernel",
        [
            "_Z6kernelv: 8 instructions",
            "  loop 0x0010-0x0050 n=5 fp64=1 mufu=0 lds=1 sts=0 ldgsts=0 stg=0 bra=1 x64=1",
        ],
    ),
    (
        SAMPLE_CUOBJDUMP,
        "",
        [
            "_Z6kernelv: 3 instructions",
            "  loop 0x0010-0x0020 n=2 fp64=1 mufu=0 lds=0 sts=0 ldgsts=0 stg=0 bra=1 x64=0",
        ],
    ),
    (SAMPLE, "missing", []),
)


def self_test():
    for listing, kernel, want in SELF_TEST_CASES:
        got = report(listing, kernel)
        if got != want:
            print(f"sass-loops self-test failed (filter '{kernel}'):", *got, sep="\n",
                  file=sys.stderr)
            return 1
    print("sass-loops self-test: ok")
    return 0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("listing", nargs="?")
    parser.add_argument("--kernel", default="", help="only kernels whose name contains this")
    parser.add_argument("--self-test", action="store_true")
    args = parser.parse_args()
    if args.self_test:
        return self_test()
    if args.listing is None:
        parser.error("a listing is needed")
    with open(args.listing, encoding="utf-8", errors="replace") as f:
        lines = report(f.read(), args.kernel)
    if not lines:
        print(f"sass-loops: no kernel matching '{args.kernel}' in {args.listing}", file=sys.stderr)
        return 1
    print("\n".join(lines))
    return 0


if __name__ == "__main__":
    sys.exit(main())
