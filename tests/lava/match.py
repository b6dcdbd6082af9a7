#!/usr/bin/env python3
"""Does a variant's run under LAVA match its local run? (make lava-check)

usage: tests/lava/match.py LOCAL_RUN_DIR LAVA_RUN_DIR VARIANT

Both are run directories as collect writes them (results/runs/ID). They
match when:
  - the case sets are the same: every (path, transfer, behaviour, caller
    mode, timeout, int passed, length, delay) with the same repetitions;
  - every case has the same model window on both sides (the same kernel,
    HZ and model; for libusb, less the cancel time each guest measured)
    and the same expected status;
  - the KTAP results are the same, test by test, ok or not ok;
  - the cases' verdicts agree but for at most MAX_DIFF_PERCENT of the
    cases (at least 2). A case differs when one side has a sample inside
    its window and the other none: two boots of one guest differ by a late
    sample here and there, whatever ran them (0.5 % of samples, so a case
    of 2 samples with one late is noise, listed but not counted; both
    late on one side only is about one case in 40000 by chance).
Prints what it compared; exit 0 match, 1 mismatch, 2 unreadable input.
"""
import json
import re
import sys

MAX_DIFF_PERCENT = 2
KEY = ('path', 'transfer', 'behaviour', 'mode', 'timeout_ms', 'timeout_arg',
       'length', 'delay_us')
KTAP = re.compile(r'^(not ok|ok) [0-9]+ (\S+)')


def load(run_dir, variant):
    cases = {}
    try:
        with open(f'{run_dir}/samples.jsonl', encoding='utf-8') as f:
            for n, line in enumerate(f, 1):
                s = json.loads(line)
                if s.get('variant') != variant:
                    continue
                c = cases.setdefault(tuple(s.get(k) for k in KEY), {
                    'reps': 0, 'inside': 0, 'window': None, 'expected': None})
                c['reps'] += 1
                c['inside'] += s['verdict'] == 'inside'
                # libusb's windows end with the cancel its guest measured
                # (docs/model.md §11): the model's part is the rest
                hi = s['window_hi_ns']
                if hi is not None:
                    hi -= s.get('cancel_ns') or 0
                # a call whose jiffies were behind the tick grid is judged
                # against a window moved by the lag (docs/model.md section
                # 10): a per-call figure, not the case's model
                if (s.get('jiffies_lag') or 0) <= 0:
                    c['window'] = (s['window_lo_ns'], hi)
                c['expected'] = s['expected_status']
        ktap = []
        with open(f'{run_dir}/{variant}/console.log', encoding='utf-8',
                  errors='replace') as f:
            for line in f:
                m = KTAP.match(line.rstrip('\r\n'))
                if m:
                    ktap.append((m.group(2), m.group(1)))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f'lava-match: {run_dir}: {exc}', file=sys.stderr)
        sys.exit(2)
    if not cases:
        print(f'lava-match: {run_dir}: no samples of {variant}', file=sys.stderr)
        sys.exit(2)
    return cases, ktap


def name(key):
    return ' '.join(str(k) for k in key if k is not None)


def main(argv):
    if len(argv) != 4:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        return 2
    local, lcon = load(argv[1], argv[3])
    lava, vcon = load(argv[2], argv[3])
    bad = []
    only_local = sorted(set(local) - set(lava), key=str)
    only_lava = sorted(set(lava) - set(local), key=str)
    bad += [f'only in the local run: {name(k)}' for k in only_local]
    bad += [f'only in the LAVA run: {name(k)}' for k in only_lava]
    differ, noisy = [], []
    for k in sorted(set(local) & set(lava), key=str):
        a, b = local[k], lava[k]
        if a['reps'] != b['reps']:
            bad.append(f'{name(k)}: {a["reps"]} repetitions here, {b["reps"]} under LAVA')
        # None: every call of the case on that side lagged
        if (a['window'] is not None and b['window'] is not None and
                a['window'] != b['window']) or a['expected'] != b['expected']:
            bad.append(f'{name(k)}: window or expected status differ: {a} vs {b}')
        if (a['inside'] == a['reps']) == (b['inside'] == b['reps']):
            continue
        text = (f'{name(k)}: inside {a["inside"]}/{a["reps"]} here, '
                f'{b["inside"]}/{b["reps"]} under LAVA')
        if (a['inside'] == 0) != (b['inside'] == 0):
            differ.append(text)
        else:
            noisy.append(text)
    if lcon != vcon:
        for i, (x, y) in enumerate(zip(lcon, vcon)):
            if x != y:
                bad.append(f'KTAP result {i + 1}: {x} here, {y} under LAVA')
                break
        if len(lcon) != len(vcon):
            bad.append(f'KTAP: {len(lcon)} results here, {len(vcon)} under LAVA')
    allowed = max(2, len(local) * MAX_DIFF_PERCENT // 100)
    print(f'lava-match: {len(local)} cases here, {len(lava)} under LAVA; '
          f'{len(lcon)} KTAP results each side; verdicts differ in '
          f'{len(differ)} cases (at most {allowed} allowed), a sample more '
          f'or less inside in {len(noisy)}')
    for d in differ:
        print(f'lava-match:   differs: {d}')
    for d in noisy:
        print(f'lava-match:   noise: {d}')
    if len(differ) > allowed:
        bad.append(f'{len(differ)} cases with different verdicts, more than {allowed}')
    for b in bad:
        print(f'lava-match: MISMATCH: {b}')
    print('lava-match: ' + ('the LAVA run matches the local run' if not bad else
                            'the runs do not match'))
    return 1 if bad else 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
