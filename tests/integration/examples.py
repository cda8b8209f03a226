#!/usr/bin/env python3
"""examples.py DIR FILE.md...: extract the fenced examples of the documentation into DIR, one
file per block (N.sh, N.python, N.yaml), and print one line per block:
N<TAB>LANG<TAB>FILE:LINE<TAB>SKIP-REASON (empty when the block is to be run).
A block is skipped only with a reason, on the line just before its fence:
<!-- example: skip REASON -->. Blocks of other languages (output, synopses) are not examples."""
import os
import re
import sys

MARK = re.compile(r'<!--\s*example:\s*skip\s*(.*?)\s*-->')


def blocks(path):
    lines = open(path, encoding='utf-8').read().split('\n')
    i = 0
    while i < len(lines):
        m = re.match(r'^```(\w*)\s*$', lines[i])
        if not m:
            i += 1
            continue
        lang, start = m.group(1), i
        j = i + 1
        while j < len(lines) and not lines[j].startswith('```'):
            j += 1
        prev = lines[start - 1] if start > 0 else ''
        mark = MARK.search(prev)
        if lang in ('sh', 'python', 'yaml'):
            reason = mark.group(1) if mark else ''
            if mark and not reason:
                reason = '(no reason given)'
            yield lang, start + 1, '\n'.join(lines[start + 1:j]) + '\n', reason
        i = j + 1


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    n = 0
    for path in sys.argv[2:]:
        for lang, line, text, reason in blocks(path):
            n += 1
            with open(os.path.join(out, '%d.%s' % (n, lang)), 'w', encoding='utf-8') as f:
                f.write(text)
            print('%d\t%s\t%s:%d\t%s' % (n, lang, path, line, reason))


main()
