"""Offline stand-in for the get-pip script that ansible-test downloads.

ansible-test bootstraps pip into its sanity-test virtual environments with a get-pip script fetched
from the internet. This shim is installed (by ``make``) under the name ansible-test looks for in
~/.ansible/test/cache/ and installs pip from a wheel stored beside it, which ``make`` downloads from
PyPI. The arguments are those ansible-test passes to get-pip (requirement specifiers and pip options).
"""
import glob
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
GET_PIP_ONLY = {'--no-setuptools', '--no-wheel'}


def main():
    wheels = sorted(glob.glob(os.path.join(HERE, 'pip-*-py3-none-any.whl')))
    if not wheels:
        sys.stderr.write('get-pip shim: no pip wheel in %s\n' % HERE)
        return 1
    sys.path.insert(0, wheels[-1])
    from pip._internal.cli.main import main as pip_main  # pylint: disable=import-outside-toplevel

    args = [a for a in sys.argv[1:] if a not in GET_PIP_ONLY]
    return pip_main(['install', '--upgrade', '--force-reinstall'] + args)


if __name__ == '__main__':
    sys.exit(main())
