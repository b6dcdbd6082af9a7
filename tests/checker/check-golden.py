#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""check-golden.py HZRIG KSRC [--write]: the checker on a whole kernel tree,
held against the reviewed list of its sites (tests/checker/golden-<x.y>.json).

Every site in the golden file was read in the source and judged a true
HZ- or jiffies-based timeout (its "review" says why); the test fails on a
site that appears, disappears or changes value, and when the generated
patch does not apply to the tree (patch -p1 --dry-run). A tree of another
release than the golden file's is skipped (exit 77). --write regenerates
the file from the current output, keeping the reviews of known sites;
new sites get "review": "TODO", which the test refuses.
"""
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))

# What a site is compared on: not the tree's path, not the run time.
FIELDS = ('site', 'function', 'call', 'killable', 'expr', 'meant_ms',
          'reads_jiffies', 'mixed_units')


def key(s):
    via = s.get('via') or {}
    o = s['origin']
    k = {f: s[f] for f in FIELDS}
    k['via'] = via.get('function')
    k['origin'] = {f: o.get(f) for f in ('kind', 'name', 'expr', 'file',
                                         'line')}
    k['timeout_arg'] = {hz: v['timeout_arg'] for hz, v in s['hz'].items()}
    return k


def main():
    args = [a for a in sys.argv[1:] if a != '--write']
    write = '--write' in sys.argv[1:]
    if len(args) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    hzrig, ksrc = args
    with tempfile.TemporaryDirectory(prefix='hzrig-golden-') as tmp:
        patch = os.path.join(tmp, 'fix.patch')
        r = subprocess.run([hzrig, 'check-tree', '--format', 'json',
                            '--patch', patch, ksrc],
                           capture_output=True, text=True)
        if r.returncode not in (0, 1):
            print(f'check-golden: FAIL: check-tree exit {r.returncode}\n'
                  f'{r.stderr}')
            return 1
        doc = json.loads(r.stdout)
        release = doc['release'] or 'unknown'
        golden = os.path.join(HERE, 'golden-%s.json' %
                              '.'.join(release.split('.')[:2]))
        print(f'check-golden: {len(doc["sites"])} sites in Linux {release}, '
              f'{doc["scanned"]} of {doc["c_files"]} C files through spatch '
              f'in {doc["seconds"]:.1f} s')
        if write:
            old = {}
            if os.path.exists(golden):
                with open(golden) as fh:
                    old = {s['site']: s.get('review', 'TODO')
                           for s in json.load(fh)['sites']}
            sites = []
            for s in doc['sites']:
                k = key(s)
                k['review'] = old.get(s['site'], 'TODO')
                sites.append(k)
            with open(golden, 'w') as fh:
                json.dump({'release': release, 'sites': sites}, fh,
                          indent=1, sort_keys=True)
                fh.write('\n')
            print(f'check-golden: wrote {golden}')
            return 0
        if not os.path.exists(golden):
            print(f'check-golden: SKIP: no golden file for Linux {release}')
            return 77
        with open(golden) as fh:
            want = json.load(fh)
        if want['release'] != release:
            print(f'check-golden: SKIP: the golden file is for '
                  f'{want["release"]}, the tree is {release}')
            return 77
        fails = []
        for s in want['sites']:
            if not s.get('review') or s['review'] == 'TODO':
                fails.append(f'{s["site"]}: not reviewed')
        want_sites = {s['site'] + ' ' + s['origin']['expr']: s
                      for s in want['sites']}
        got_sites = {s['site'] + ' ' + s['origin']['expr']: key(s)
                     for s in doc['sites']}
        for k in sorted(set(want_sites) | set(got_sites)):
            w, g = want_sites.get(k), got_sites.get(k)
            if w is None:
                fails.append(f'new site {k}: review it, then --write')
            elif g is None:
                fails.append(f'site {k} is no longer found')
            else:
                w = dict(w)
                w.pop('review', None)
                if w != g:
                    fails.append(f'site {k} changed: {g} (golden: {w})')
        p = subprocess.run(['patch', '-p1', '--dry-run', '-s', '-i', patch],
                           cwd=ksrc, capture_output=True, text=True)
        if p.returncode:
            fails.append(f'the patch does not apply: {p.stdout}{p.stderr}')
        # the drivers-fixed variants' patch is the checker's, for its files
        fixed = os.path.join(HERE, '..', '..', 'kernel', 'patches',
                             '0004-usb-ipheth-orinoco_usb-timeouts-in-'
                             'milliseconds.patch')
        text = ''
        if os.path.exists(fixed):
            with open(fixed) as fh:
                text = fh.read()
        body = text[text.index('--- a/'):] if text else ''
        files = [ln[6:] for ln in body.splitlines() if ln.startswith('--- a/')]
        # only on a tree that has its files (6.12 has no orinoco_usb)
        if files and all(os.path.exists(os.path.join(ksrc, f))
                         for f in files):
            one = os.path.join(tmp, 'one.patch')
            r = subprocess.run([hzrig, 'check-tree', '--patch', one, ksrc,
                                *files], capture_output=True, text=True)
            with open(one) as fh:
                if r.returncode != 1 or fh.read() != body:
                    fails.append(f'{os.path.basename(fixed)} is not what '
                                 f'check-tree --patch writes for {files}')
        for f in fails:
            print(f'check-golden: FAIL: {f}')
        print(f'check-golden: {len(want["sites"])} reviewed sites, '
              f'{len(fails)} problems; the patch '
              f'{"applies" if not p.returncode else "does NOT apply"}')
        return 1 if fails else 0


if __name__ == '__main__':
    sys.exit(main())
