#!/usr/bin/python3
"""Validate LAVA job definitions and device dictionaries against LAVA's own
schemas (Debian's lava-common: lava_common.schemas), as a LAVA server does
on submission: strict, so a key LAVA does not know is an error too.

usage: tests/lava/validate.py [--device FILE] JOB.yaml...

Debian's /usr/bin/python3 on purpose: lava-common lives in its
dist-packages, which another python3 first on PATH may not see.
"""
import sys

import yaml
from lava_common.schemas import validate as validate_job
from lava_common.schemas.device import validate as validate_device
from voluptuous import Invalid


def check(path, validator):
    try:
        with open(path, encoding='utf-8') as f:
            data = yaml.safe_load(f)
        validator(data)
    except (OSError, yaml.YAMLError) as exc:
        print(f'lava-validate: {path}: {exc}')
        return False
    except Invalid as exc:
        where = '.'.join(str(p) for p in exc.path) or '(top)'
        print(f'lava-validate: {path}: {where}: {exc.msg}')
        return False
    print(f'lava-validate: {path}: valid')
    return True


def main(argv):
    ok = True
    args = argv[1:]
    if len(args) >= 2 and args[0] == '--device':
        ok = check(args[1], validate_device)
        args = args[2:]
    if not args:
        print('usage: tests/lava/validate.py [--device FILE] JOB.yaml...',
              file=sys.stderr)
        return 2
    for path in args:
        ok = check(path, lambda d: validate_job(d, strict=True)) and ok
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main(sys.argv))
