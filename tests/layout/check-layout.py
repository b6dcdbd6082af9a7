#!/usr/bin/env python3
"""check-layout.py [TOP]: the rules docs/architecture.md states, checked.

1. rig/ is laid out by stage of the data flow. A file may include headers
   of its own stage and of stages before it, never after it: an include
   against the flow is an error naming both files. Every rig include names
   its stage folder ("model/model.h"), so the rule can be read off it.
2. No function in the C sources (rig/, gadget/, initramfs/runner/,
   host-driver/) is longer than MAX_LINES lines unless the comment right
   above it says why, in a sentence that starts "Long:".

Prints one line per finding and "layout: N passed, N failed".
"""
import os
import re
import sys

TOP = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else
                      os.path.join(os.path.dirname(__file__), '..', '..'))
MAX_LINES = 100

# The stages in the order data flows through them (docs/architecture.md).
# Stages of the same rank may not include each other.
STAGES = {
    'lib': 0,
    'plan': 1, 'model': 1,
    'boot': 2, 'checker': 2,
    'collect': 3,
    'runs': 4, 'lava': 4,  # lava: a lab's logs into captures (collect)
    'history': 5,
    'output': 6,
    '': 7,          # rig/hzrig.c: the dispatcher, on top
}

failures = []
passes = 0


def stage_of(rel):
    """The stage of a path relative to rig/."""
    parts = rel.split('/')
    return parts[0] if len(parts) > 1 else ''


def check_includes():
    global passes
    rig = os.path.join(TOP, 'rig')
    for root, _, files in os.walk(rig):
        for f in sorted(files):
            if not f.endswith(('.c', '.h')):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, rig)
            own = stage_of(rel)
            if own not in STAGES:
                failures.append(f'rig/{rel}: folder {own}/ is not a stage'
                                ' (add it to docs/architecture.md and here)')
                continue
            with open(path) as fh:
                for n, line in enumerate(fh, 1):
                    m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
                    if not m:
                        continue
                    inc = m.group(1)
                    if '/' not in inc:
                        failures.append(f'rig/{rel}:{n}: #include "{inc}" does'
                                        ' not name its stage folder')
                        continue
                    target = stage_of(inc)
                    if target not in STAGES:
                        failures.append(f'rig/{rel}:{n}: #include "{inc}": no'
                                        f' stage {target}/')
                    elif target != own and STAGES[target] >= STAGES[own]:
                        failures.append(
                            f'rig/{rel}:{n}: #include "{inc}" points up the'
                            f' flow ({own or "dispatcher"} may include only'
                            ' stages before it)')
                    else:
                        passes += 1


def functions(path):
    """(name, first line, length, comment above) of each function."""
    with open(path) as fh:
        lines = fh.read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        # A definition: a line at column 0 with '(' whose body opens with
        # '{' at column 0 (kernel style), possibly after more signature.
        if (re.match(r'[A-Za-z_].*\(', lines[i]) and
                not lines[i].rstrip().endswith(';') and
                not lines[i].startswith(('#', 'typedef'))):
            j = i
            while j < len(lines) and j < i + 8 and lines[j] != '{':
                if lines[j].rstrip().endswith(';'):
                    break
                j += 1
            if j < len(lines) and lines[j] == '{':
                k = j + 1
                while k < len(lines) and lines[k] != '}':
                    k += 1
                name = re.search(r'(\w+)\s*\(', lines[i]).group(1)
                c = i - 1
                comment = []
                if c >= 0 and lines[c].rstrip().endswith('*/'):
                    while c >= 0:
                        comment.insert(0, lines[c])
                        if lines[c].lstrip().startswith('/*'):
                            break
                        c -= 1
                out.append((name, i + 1, k - j - 1, ' '.join(comment)))
                i = k
        i += 1
    return out


def check_lengths():
    global passes
    for d in ('rig', 'gadget', 'initramfs/runner', 'host-driver'):
        for root, _, files in os.walk(os.path.join(TOP, d)):
            for f in sorted(files):
                if not f.endswith('.c'):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, TOP)
                for name, line, n, comment in functions(path):
                    if n <= MAX_LINES or 'Long:' in comment:
                        passes += 1
                        continue
                    failures.append(f'{rel}:{line}: {name}() is {n} lines,'
                                    f' over {MAX_LINES}, and the comment'
                                    ' above it gives no "Long:" reason')


check_includes()
check_lengths()
for f in failures:
    print(f'not ok - {f}')
print(f'layout: {passes} passed, {len(failures)} failed')
sys.exit(1 if failures else 0)
