#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-corpus.py HZRIG: the checker's precision test (docs/checker.md).

1. `HZRIG check-tree --format json` on a copy of tests/checker/corpus/:
   the reported sites must be exactly the lines marked "expect: N" (N the
   value at HZ=1000, "?" for none; "mixed" when jiffies reach the call on
   one path only), with that value; every other line is a trap that must
   not be reported. The value at the other HZ must be what a kernel with
   that HZ computes (checked on the marked literal cases below).
2. `--patch`: the patch applies with patch -p1, and the patched corpus
   has no site left but the mixed ones (which the patch refuses to touch).
3. Bad input: a missing tree and a bad --jobs are clear errors (exit 2).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = os.path.join(HERE, 'corpus')
EXPECT = re.compile(r'expect:\s*(\?|\d+)(\s+mixed)?')

fails = 0
passes = 0


def check(ok, what):
    global fails, passes
    if ok:
        passes += 1
    else:
        fails += 1
        print(f'FAIL: {what}')


def marked(tree):
    """{(file, line): (value or None, mixed)} from the corpus comments."""
    out = {}
    for root, _, files in os.walk(tree):
        for f in sorted(files):
            if not f.endswith('.c'):
                continue
            path = os.path.join(root, f)
            rel = os.path.relpath(path, tree)
            with open(path) as fh:
                for n, line in enumerate(fh, 1):
                    m = EXPECT.search(line)
                    if m:
                        v = None if m.group(1) == '?' else int(m.group(1))
                        out[(rel, n)] = (v, bool(m.group(2)))
    return out


def run(hzrig, *args):
    return subprocess.run([hzrig, 'check-tree', *args], capture_output=True,
                          text=True)


def sites_of(hzrig, tree):
    r = run(hzrig, '--format', 'json', tree)
    check(r.returncode in (0, 1), f'check-tree exit {r.returncode}: {r.stderr}')
    if r.returncode not in (0, 1):
        return None, r
    return json.loads(r.stdout), r


def main():
    if len(sys.argv) != 2:
        print('usage: check-corpus.py HZRIG', file=sys.stderr)
        return 2
    hzrig = sys.argv[1]
    if not shutil.which('spatch'):
        print('checker: FAIL: spatch (coccinelle) is not installed')
        return 1
    tmp = tempfile.mkdtemp(prefix='hzrig-corpus-')
    try:
        tree = os.path.join(tmp, 'corpus')
        shutil.copytree(CORPUS, tree)
        want = marked(tree)
        check(len(want) >= 20, f'corpus has {len(want)} marked sites')
        doc, r = sites_of(hzrig, tree)
        if doc is None:
            return 1
        check(r.returncode == 1, 'exit status 1 when sites are found')
        got = {}
        for s in doc['sites']:
            got[(s['file'], s['line'])] = (s['meant_ms'], s['mixed_units'])
        for k, v in sorted(want.items()):
            check(k in got, f'{k[0]}:{k[1]}: not reported (expect {v})')
            if k in got:
                check(got[k] == v, f'{k[0]}:{k[1]}: reported {got[k]}, '
                      f'expected {v}')
        for k in sorted(set(got) - set(want)):
            check(False, f'{k[0]}:{k[1]}: reported, but it is a trap')
        # every HZ, by the kernel's own arithmetic, on literal cases
        by_site = {(s['file'], s['line']): s for s in doc['sites']}
        hz_cases = {
            ('direct.c', 15): {100: 500, 250: 1250, 300: 1500, 1000: 5000},
            ('direct.c', 17): {100: 50, 250: 125, 300: 150, 1000: 500},
            # msecs_to_jiffies(250): ceil(250 / (1000 / HZ)); HZ=300:
            # ceil(3 * 250 / 10) = 75 (jiffies.h, timeconst.bc)
            ('direct.c', 18): {100: 25, 250: 63, 300: 75, 1000: 250},
            ('locals.c', 22): {100: 25, 250: 62, 300: 75, 1000: 250},
        }
        for k, per_hz in hz_cases.items():
            s = by_site.get(k)
            check(s is not None, f'{k}: no site for the per-HZ check')
            if s:
                for hz, v in per_hz.items():
                    check(s['hz'][str(hz)]['timeout_arg'] == v,
                          f'{k} HZ={hz}: {s["hz"][str(hz)]} != {v}')
                    check(s['hz'][str(hz)].get('lo_ns', -1) >= 0,
                          f'{k} HZ={hz}: no window')
        for s in doc['sites']:
            if s['reads_jiffies']:
                check(s['meant_ms'] is None,
                      f'{s["site"]}: a value for a jiffies read')
        # the patch: applies, and leaves only what it refuses to fix
        patch = os.path.join(tmp, 'fix.patch')
        r = run(hzrig, '--patch', patch, tree)
        check(r.returncode == 1, f'--patch run exit {r.returncode}: {r.stderr}')
        mixed = sorted(k for k, v in want.items() if v[1])
        for k in mixed:
            check(f'{k[0]}:{k[1]}: not patched' in r.stderr,
                  f'{k}: the mixed site is not named as unpatched')
        with open(patch) as fh:
            text = fh.read()
        check('+#define TIMEOUT\t\t5000' in text or
              '+#define TIMEOUT\t5000' in text,
              'TIMEOUT (5 * HZ) becomes 5000 where it is defined')
        check('jiffies_to_msecs(end - jiffies)' in text,
              'a jiffies read is wrapped in jiffies_to_msecs()')
        p = subprocess.run(['patch', '-p1', '-s', '-i', patch], cwd=tree,
                           capture_output=True, text=True)
        check(p.returncode == 0, f'patch -p1 failed: {p.stdout}{p.stderr}')
        doc, r = sites_of(hzrig, tree)
        left = sorted((s['file'], s['line']) for s in doc['sites']) if doc \
            else None
        check(left == mixed, f'after the patch: {left}, expected {mixed}')
        # bad input
        r = run(hzrig, os.path.join(tmp, 'no-such-tree'))
        check(r.returncode == 2 and 'is not a directory' in r.stderr,
              f'a missing tree: exit {r.returncode}, {r.stderr!r}')
        r = run(hzrig, '--jobs', '0', tree)
        check(r.returncode == 2 and '--jobs' in r.stderr,
              f'--jobs 0: exit {r.returncode}, {r.stderr!r}')
        r = run(hzrig, tree, 'no/such/path.c')
        check(r.returncode == 2 and 'no such path' in r.stderr,
              f'a missing PATH: exit {r.returncode}, {r.stderr!r}')
    finally:
        shutil.rmtree(tmp)
    print(f'checker corpus: {passes} checks passed, {fails} failed')
    return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
