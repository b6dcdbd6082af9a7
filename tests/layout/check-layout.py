#!/usr/bin/env python3
"""check-layout.py [TOP]: the rules docs/architecture.md states, checked.

1. rig/ is laid out by stage of the data flow. A file may include headers
   of its own stage and of stages before it, never after it: an include
   against the flow is an error naming both files. Every rig include names
   its stage folder ("model/model.h"), so the rule can be read off it.
2. No function in the C sources (rig/, gadget/, initramfs/runner/,
   host-driver/) is longer than MAX_LINES lines unless the comment right
   above it says why, in a sentence that starts "Long:"; a "Long:" on a
   function that is not is out of date. A signature may run over any
   number of lines. The guest's runner (initramfs/runner/) includes only
   its own headers, include/hzrig/, gadget/ and rig/'s lib, plan, model.
   A self-test runs the rules on made-up files first.
3. The host tool reads and writes a user's files only through rig/lib/io.c
   (regular, size-bounded inputs; outputs that never replace a device or a
   link): any other fopen(), open(), opendir() or json-c file call in rig/
   is an error unless IO_OWN lists it, with why it is safe.

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
    'sweep': 4,  # the driver sweep: guest batches judged by the model
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


def check_runner_includes(d=None):
    """The guest's runner sits before collect in the flow: it may include
    its own headers, include/hzrig/, the gadget's device format and the
    pure stages of rig/ (lib, plan, model), nothing after them."""
    global passes
    d = d or os.path.join(TOP, 'initramfs', 'runner')
    for f in sorted(os.listdir(d)):
        if not f.endswith(('.c', '.h')):
            continue
        for n, line in enumerate(open(os.path.join(d, f)), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m:
                continue
            inc = m.group(1)
            if ('/' not in inc and (os.path.exists(os.path.join(d, inc)) or
                                    os.path.exists(os.path.join(TOP, 'gadget', inc)))) \
                    or inc.startswith('hzrig/') \
                    or STAGES.get(stage_of(inc), 99) <= 1:
                passes += 1
                continue
            failures.append(f'initramfs/runner/{f}:{n}: #include "{inc}":'
                            ' the runner may include its own headers,'
                            ' include/hzrig/, gadget/ and rig/ lib, plan and'
                            ' model only')


def functions(path):
    """(name, first line, length, comment above) of each function."""
    with open(path) as fh:
        lines = fh.read().split('\n')
    out = []
    i = 0
    while i < len(lines):
        # A definition: a line at column 0 with '(' whose body opens with
        # '{' at column 0 (kernel style), possibly after more signature.
        # The signature may run over any number of indented lines.
        if (re.match(r'[A-Za-z_].*\(', lines[i]) and
                not lines[i].rstrip().endswith(';') and
                not lines[i].startswith(('#', 'typedef'))):
            j = i + 1
            while (j < len(lines) and lines[j] != '{' and
                   lines[j][:1] in (' ', '\t') and
                   not lines[j - 1].rstrip().endswith(';')):
                j += 1
            if j < len(lines) and lines[j - 1].rstrip().endswith(';'):
                j = len(lines)
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


def length_findings(path, rel):
    """What the length rule says of each function in @path."""
    out = []
    for name, line, n, comment in functions(path):
        long_said = 'Long:' in comment
        if n > MAX_LINES and not long_said:
            out.append(f'{rel}:{line}: {name}() is {n} lines, over'
                       f' {MAX_LINES}, and the comment above it gives no'
                       ' "Long:" reason')
        elif n <= MAX_LINES and long_said:
            out.append(f'{rel}:{line}: {name}() is {n} lines, not over'
                       f' {MAX_LINES}: its "Long:" comment is out of date')
        else:
            out.append(None)
    return out


def self_test():
    """The checks find what they are for, on made-up files."""
    import tempfile
    global passes
    with tempfile.TemporaryDirectory() as d:
        # 101 lines of body, the '{' 12 lines below the name
        sig = ['static int f(int a,'] + [f'\t\t int a{i},' for i in range(10)] + ['\t\t int z)']
        body = ['{'] + ['\tz++;'] * 101 + ['}']
        c = os.path.join(d, 'x.c')
        with open(c, 'w') as fh:
            fh.write('\n'.join(sig + body +
                               ['', '/* Long: not really. */', 'static void g(void)', '{', '\treturn;', '}', '']))
        found = length_findings(c, 'x.c')
        want = ['f() is 101 lines, over', 'g() is 1 lines, not over']
        for w in want:
            if any(x and w in x for x in found):
                passes += 1
            else:
                failures.append(f'self-test: the length rule missed "{w}" ({found})')
        os.mkdir(os.path.join(d, 'runner'))
        with open(os.path.join(d, 'runner', 'r.c'), 'w') as fh:
            fh.write('#include "collect/collect.h"\n#include "plan/plan.h"\n')
        before = len(failures)
        check_runner_includes(os.path.join(d, 'runner'))
        caught = failures[before:]
        del failures[before:]
        if len(caught) == 1 and 'collect/collect.h' in caught[0]:
            passes += 1
        else:
            failures.append(f'self-test: the runner include rule gave {caught}')


def check_lengths():
    global passes
    for d in ('rig', 'gadget', 'initramfs/runner', 'host-driver'):
        for root, _, files in os.walk(os.path.join(TOP, d)):
            for f in sorted(files):
                if not f.endswith('.c'):
                    continue
                path = os.path.join(root, f)
                rel = os.path.relpath(path, TOP)
                for x in length_findings(path, rel):
                    if x:
                        failures.append(x)
                    else:
                        passes += 1


# Calls that open files the tool made itself, or that check for
# themselves, by file and the call's text.
IO_OWN = {
    ('rig/boot/cmd_boot.c', 'open("/dev/null"'): 'the null device',
    ('rig/boot/cmd_boot.c', 'fopen(g->console_path'):
        'the console log, written through as QEMU runs (a device or link is'
        ' written, never replaced)',
    ('rig/lava/log.c', 'json_object_to_file_ext(path'): 'its own .part directory',
    ('rig/lava/log.c', 'fopen(samples'): 'the capture it wrote itself',
    ('rig/lava/log.c', 'fopen(p, "w")'): 'its own .part directory',
    ('rig/collect/collect.c', 'open(tmp'): 'O_EXCL temporary files of its own',
    ('rig/output/kcidb/kcidb.c', 'open(path, O_RDONLY | O_NONBLOCK'):
        'sha256_file(): regular and size-bounded itself',
    ('rig/checker/report.c', 'opendir(dir)'): 'a directory of the tree',
    ('rig/checker/cmd_check_tree.c', 'opendir(path)'): 'a directory of the tree',
    ('rig/runs/load.c', 'opendir(real)'): 'the run directory',
}
IO_CALL = re.compile(r'(?<![\w.])(fopen|open|opendir|json_object_from_file|'
                     r'json_object_to_file(?:_ext)?)\(')


def check_io():
    global passes
    for root, _, files in os.walk(os.path.join(TOP, 'rig')):
        for f in sorted(files):
            path = os.path.join(root, f)
            rel = os.path.relpath(path, TOP)
            if not f.endswith('.c') or rel == 'rig/lib/io.c':
                continue
            for n, line in enumerate(open(path, encoding='utf-8'), 1):
                if not IO_CALL.search(line) or line.lstrip().startswith(('*', '/*')):
                    continue
                if any(r == rel and text in line for r, text in IO_OWN):
                    passes += 1
                    continue
                failures.append(f'{rel}:{n}: {line.strip()}: a file opened'
                                ' past rig/lib/io.h (hzrig_in_open,'
                                ' hzrig_out_open); list it in IO_OWN only'
                                ' if it is the tool\'s own file')


self_test()
check_includes()
check_runner_includes()
check_lengths()
check_io()
for f in failures:
    print(f'not ok - {f}')
print(f'layout: {passes} passed, {len(failures)} failed')
sys.exit(1 if failures else 0)
