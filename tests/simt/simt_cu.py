#!/usr/bin/env python3
"""simt_cu.py: turns a CUDA source (.cu) into C++ that the host compiler builds against the
SIMT layer (tests/simt/simt.h, docs/simt.md).

Usage: simt_cu.py SOURCE OUTPUT  (a .cu file in, a .cc file out; or a header whose macros
launch kernels, such as kernels/common/catalog_launch.h, in and a header of the same name out)

The kernel bodies pass through unchanged. Three pieces of CUDA-only syntax that no header
can give a host compiler are lowered, and nothing else is touched:

  1. a launch `kernel<<<grid, block, shared, stream>>>(args)` becomes
     `simt::launch(kernel, grid, block, shared, stream)(args)`;
  2. a file-scope `extern __shared__ T name[];` (dynamic shared memory, whose size the launch
     gives) becomes `#define name` for the running block's dynamic shared memory;
  3. every other `__shared__` declaration is kept (simt.h makes it a static in a section of
     its own, poisoned before each block) and its size is registered for the kernel whose
     body holds it, or for every kernel of the file when it is outside a kernel, so that the
     launch can enforce the device's limit on static plus dynamic shared memory.

Line numbers are kept (`#line` and a one-for-one rewrite), so the compiler's messages point
at the .cu file.
"""
import os
import re
import sys


def strip_comments(text):
    """The text with comments and string literals blanked (same length), for searching."""
    out = []
    i, n = 0, len(text)
    while i < n:
        if text.startswith('//', i):
            j = text.find('\n', i)
            j = n if j < 0 else j
            out.append(' ' * (j - i))
            i = j
        elif text.startswith('/*', i):
            j = text.find('*/', i + 2)
            j = n if j < 0 else j + 2
            out.append(''.join(c if c == '\n' else ' ' for c in text[i:j]))
            i = j
        elif text[i] in '"\'':
            q = text[i]
            j = i + 1
            while j < n and text[j] != q:
                j += 2 if text[j] == '\\' else 1
            j = min(j + 1, n)
            out.append(q + ' ' * (j - i - 2) + q if j - i >= 2 else text[i:j])
            i = j
        else:
            out.append(text[i])
            i += 1
    return ''.join(out)


def matching_brace(code, open_at):
    depth = 0
    for j in range(open_at, len(code)):
        if code[j] == '{':
            depth += 1
        elif code[j] == '}':
            depth -= 1
            if depth == 0:
                return j
    raise SystemExit('simt_cu.py: unbalanced braces')


def kernels(code):
    """(name, body_start, body_end) of every __global__ function definition."""
    found = []
    for m in re.finditer(r'__global__[^;{()]*?\b(\w+)\s*\(', code):
        depth, j = 1, m.end()
        while depth:
            depth += {'(': 1, ')': -1}.get(code[j], 0)
            j += 1
        k = j
        while k < len(code) and code[k].isspace():
            k += 1
        if k < len(code) and code[k] == '{':
            found.append((m.group(1), k, matching_brace(code, k)))
    return found


def main():
    if len(sys.argv) not in (3, 4):
        raise SystemExit('usage: simt_cu.py INPUT.cu OUTPUT.cc [DEPFILE]')
    src_path, out_path = sys.argv[1], sys.argv[2]
    if len(sys.argv) == 4:
        # The output depends on this script too: a changed lowering regenerates every file.
        with open(sys.argv[3], 'w', encoding='utf-8') as f:
            f.write('%s: %s %s\n' % (out_path, os.path.abspath(__file__), src_path))
    with open(src_path, encoding='utf-8') as f:
        text = f.read()
    code = strip_comments(text)
    edits = []  # (start, end, replacement), applied back to front

    # 1. Launches: NAME<<<config>>>(  ->  simt::launch(NAME, config)(. NAME may be pasted
    # together in a macro (`apo__##family##_kernel`, kernels/common/catalog_launch.h).
    # (One character class, no nested repetition: the search must stay linear in the file.)
    for m in re.finditer(r'\b([A-Za-z_][\w#]*)\s*<<<', code):
        end = code.find('>>>', m.end())
        if end < 0:
            raise SystemExit('%s: a launch without its closing >>>' % src_path)
        config = text[m.end():end]
        repl = 'simt::launch(%s, %s)' % (m.group(1), config)
        # Keep the line count: the config may span lines.
        edits.append((m.start(), end + 3, repl))

    # 2. Dynamic shared memory.
    for m in re.finditer(r'\bextern\s+__shared__\s+([A-Za-z_][\w\s]*?)\s+(\w+)\s*\[\s*\]\s*;',
                         code):
        if m.start() > 0 and code[m.start() - 1] != '\n':
            raise SystemExit('%s: extern __shared__ must begin its line' % src_path)
        repl = '#define %s (static_cast<%s *>(simt::dynamic_shared()))' % (m.group(2),
                                                                       m.group(1))
        repl += '\n' * text[m.start():m.end()].count('\n')
        edits.append((m.start(), m.end(), repl))
    dynamic_spans = [(s, e) for s, e, r in edits if r.startswith('#define')]

    # 3. Static shared memory, attributed to kernels.
    ks = kernels(code)
    registrations = []
    for m in re.finditer(r'__shared__\s+([A-Za-z_][\w\s:<>,*]*?)\s+(\w+)\s*((?:\[[^\]]*\])*)\s*;',
                         code):
        if any(s <= m.start() < e for s, e in dynamic_spans):
            continue
        size = 'sizeof(%s%s)' % (text[m.start(1):m.end(1)],
                                 text[m.start(3):m.end(3)])
        owners = [k for k in ks if k[1] <= m.start() <= k[2]] or ks
        for k in owners:
            registrations.append((k[0], size, m.group(2)))

    for start, end, repl in sorted(edits, reverse=True):
        text = text[:start] + repl + text[end:]

    with open(out_path, 'w', encoding='utf-8') as f:
        f.write('#include "simt.h"\n')
        f.write('#line 1 "%s"\n' % src_path)
        f.write(text)
        if not text.endswith('\n'):
            f.write('\n')
        f.write('\n/* simt_cu.py: static shared memory of each kernel of this file. */\n')
        for i, (kernel, size, var) in enumerate(registrations):
            f.write('static const simt::static_shared simt_static_shared_%d_(\n'
                    '    reinterpret_cast<const void *>(&%s), %s); /* %s */\n'
                    % (i, kernel, size, var))


if __name__ == '__main__':
    main()
