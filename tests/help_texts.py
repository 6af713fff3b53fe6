"""The ``--help`` text of several programs, each run as ``python ARGV`` would run it, in this one interpreter.

Usage: ``python help_texts.py OUT`` with a JSON list of argument lists on stdin, each what follows
``python`` on a command line (``["-m", "lean_gym.cli", "eval", "--help"]``, ``["benchmarks/b.py", "--help"]``);
writes to the file ``OUT`` a JSON list of ``[exit status, stdout, stderr]``, one per argument list, in order.

tests/test_doc_figures.py reads the help of every program the pages name (33 of them) through this: an
interpreter per program starts Python and imports the program's libraries 33 times (torch twice, for the
agents' ``dpo`` and ``grpo-toy``), here once. Each program runs under ``runpy`` as ``__main__``, with
``sys.argv`` and ``sys.path[0]`` set as the interpreter sets them; between programs this puts back
``sys.path``, ``sys.argv``, the environment and drops the modules loaded from the program's own folder, so
that what one program set up or imported never makes another one work that would fail on its own. Its
stdout and stderr are read from ``sys.stdout``/``sys.stderr``; the answer goes to a file, so that nothing a
program writes elsewhere can garble it.
"""

from __future__ import annotations

import io
import json
import os
import runpy
import sys
import traceback
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path


def _exit_status(code: object) -> int:
    """The process exit status ``sys.exit(code)`` gives (``None`` is 0, a message is 1)."""
    if code is None:
        return 0
    return code if isinstance(code, int) else 1


def run(argv: list[str]) -> tuple[int, str, str]:
    """Run ``python *argv`` in this interpreter: (exit status, stdout, stderr)."""
    saved_path, saved_argv, saved_env = list(sys.path), list(sys.argv), dict(os.environ)
    saved_modules = set(sys.modules)
    if argv[0] == "-m":
        own_folder = None
        sys.path[0] = os.getcwd()  # `python -m` puts the working directory first
    else:
        own_folder = Path(argv[0]).resolve().parent
        sys.path[0] = str(own_folder)  # `python script.py` puts the script's folder first
    out, err = io.StringIO(), io.StringIO()
    status = 0
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                if argv[0] == "-m":
                    # as in a fresh interpreter, the module is not imported yet when it runs as __main__
                    sys.modules.pop(argv[1], None)
                    sys.argv = [argv[1], *argv[2:]]  # run_module sets argv[0] to the module's file
                    runpy.run_module(argv[1], run_name="__main__", alter_sys=True)
                else:
                    sys.argv = list(argv)
                    runpy.run_path(argv[0], run_name="__main__")
            except SystemExit as e:
                status = _exit_status(e.code)
                if isinstance(e.code, str):
                    print(e.code, file=sys.stderr)
            except BaseException:  # what an uncaught exception does to a process: status 1, the traceback
                status = 1
                traceback.print_exc()
    finally:
        sys.path[:], sys.argv = saved_path, saved_argv
        os.environ.clear()
        os.environ.update(saved_env)
        if own_folder is not None:
            for name in set(sys.modules) - saved_modules:
                where = getattr(sys.modules[name], "__file__", None)
                if where and Path(where).resolve().is_relative_to(own_folder):
                    del sys.modules[name]
    return status, out.getvalue(), err.getvalue()


def main() -> int:
    """Read the argument lists from stdin, write the answers to ``sys.argv[1]``."""
    answers = [run(argv) for argv in json.load(sys.stdin)]
    Path(sys.argv[1]).write_text(json.dumps(answers), encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
