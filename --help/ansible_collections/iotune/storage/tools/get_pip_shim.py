"""Offline stand-in for the get-pip script that ansible-test downloads.

ansible-test bootstraps pip into its sanity-test virtual environments with a get-pip script fetched
from the internet. This shim is installed (by ``make``) under the name ansible-test looks for in
~/.ansible/test/cache/ and installs pip from a wheel stored beside it, which ``make`` downloads from
PyPI. The arguments are those ansible-test passes to get-pip (requirement specifiers and pip options).
"""
import glob
import os
import re
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GET_PIP_ONLY = {'--no-setuptools', '--no-wheel'}


def wanted_wheels():
    """The pip wheel of the version this shim is named for (get_pip_25_2.py -> pip-25.2), else any."""
    match = re.match(r'get_pip_(\d+)_(\d+)\.py$', os.path.basename(__file__))
    if match:
        own = glob.glob(os.path.join(HERE, 'pip-%s.%s-py3-none-any.whl' % match.groups()))
        if own:
            return own
    return sorted(glob.glob(os.path.join(HERE, 'pip-*-py3-none-any.whl')))


def main():
    wheels = wanted_wheels()
    if not wheels:
        sys.stderr.write('get-pip shim: no pip wheel in %s\n' % HERE)
        return 1
    sys.path.insert(0, wheels[-1])
    from pip._internal.cli.main import main as pip_main  # pylint: disable=import-outside-toplevel

    args = [a for a in sys.argv[1:] if a not in GET_PIP_ONLY]
    return pip_main(['install', '--upgrade', '--force-reinstall'] + args)


if __name__ == '__main__':
    sys.exit(main())
