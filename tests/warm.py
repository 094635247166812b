"""The `delve` command for the tests without its start-up cost.

Most of the CPU a `delve` subprocess spends in a test is spent before it reads its
arguments: the interpreter and the libraries a command imports (numpy, pandas, scipy,
matplotlib, click and the package: one to two CPU seconds, against a few hundredths for a
small command's own work), and the suite runs a few hundred of them. So each pytest worker
keeps one server process (this file run as a script) that has imported all of that once,
and every command is a child forked from it that becomes ``python -m delve_bench ARGS`` in
the command's own working directory and environment, with its own standard streams
(files, at the descriptor level, so what the processes it starts print is caught as a
pipe would catch it) and its own exit status. Each command is a fresh process: nothing it
remembers (caches, its jobs' forkserver, signal handlers) outlives it, so a file tampered
with between two commands is seen as a second real process would see it.

Where a child differs from a process started afresh:

* its interpreter started with the server's environment, so a command whose environment
  differs from the server's in anything but what is read only while a command runs
  (:data:`LATE`; ``PYTHONPATH`` the child puts on its module path as the interpreter
  would) runs as a real subprocess, as does a command started while another is running
  in the same pytest worker (from a thread), and every command when
  ``DELVE_TEST_COLD=1``;
* every module of the package but its methods, and the libraries they import, are
  imported before the command starts: a command that used a submodule it never imported
  (``import scipy`` then ``scipy.stats``) would pass here; a test about which modules a
  command loads starts its own process (tests/test_imports.py);
* matplotlib was imported in the server's working directory, so a ``matplotlibrc`` in the
  command's own would not be read;
* it ends as the interpreter ends (non-daemon threads joined, ``atexit`` functions run,
  the standard streams flushed, an uncaught exception printed with exit status 1) but
  without tearing its modules down: that would write to every page of memory it shares
  with the server (a tenth of a CPU second per command). Data left in an unclosed file's
  buffer, which teardown would have flushed, is lost: a test fails rather than passes.
"""

from __future__ import annotations

import atexit
import json
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
from pathlib import Path

#: environment variables read only while a command runs, never when a module the server
#: preloads is imported, so a child may have another value than the server started with:
#: the package's own, the module path (applied by the child), the one pytest changes for
#: every test, and the two that importing scikit-learn sets for the OpenMP runtime, which
#: the server does not load (HOME and XDG_* are not among them: matplotlib reads them)
LATE = ("PYTHONPATH", "PYTEST_CURRENT_TEST", "KMP_INIT_AT_FORK", "KMP_DUPLICATE_LIB_OK")
#: libraries the commands import, besides the package's own modules
LIBRARIES = ("numpy", "pandas", "scipy.linalg", "scipy.stats", "click", "matplotlib.figure")


def _late(key: str) -> bool:
    return key.startswith("DELVE_") or key in LATE


class Server:
    """One server process and the protocol to it: a JSON line per request on its stdin;
    it answers the child's pid, then the child's exit status, a JSON line each."""

    def __init__(self) -> None:
        self.env = dict(os.environ, PYTHONUNBUFFERED="1")
        self.streams = Path(tempfile.mkdtemp(prefix="delve-warm-"))
        self.proc = subprocess.Popen(
            [sys.executable, __file__],
            bufsize=0,  # unbuffered, so select() sees every answer not yet read
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            env=self.env,
            cwd=self.streams,
        )
        self.busy = threading.Lock()
        atexit.register(self.close)

    def close(self) -> None:
        """End the server (its stdin closed) and remove its folder."""
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        try:
            self.proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
        shutil.rmtree(self.streams, ignore_errors=True)

    def alive(self) -> bool:
        return self.proc.poll() is None

    def takes(self, env: dict[str, str]) -> bool:
        """Whether a command with environment ``env`` can be a child of this server."""
        keys = set(env) | set(self.env)
        return all(_late(k) or env.get(k) == self.env.get(k) for k in keys)

    def _answer(self, timeout: float) -> dict:
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        if not ready:
            raise TimeoutError
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("the tests' warm delve server ended")
        return json.loads(line)

    def run(self, args, env, cwd, timeout) -> subprocess.CompletedProcess:
        out, err = self.streams / "stdout", self.streams / "stderr"
        request = {
            "args": list(args),
            "env": env,
            "cwd": str(cwd),
            "stdout": str(out),
            "stderr": str(err),
            "path": env.get("PYTHONPATH", ""),
            "server_path": self.env.get("PYTHONPATH", ""),
        }
        assert self.proc.stdin is not None
        self.proc.stdin.write(json.dumps(request).encode() + b"\n")
        pid = self._answer(300)["pid"]  # the first waits for the server's imports
        try:
            code, expired = self._answer(timeout)["code"], False
        except TimeoutError:  # as subprocess.run: the command killed, then raised
            os.kill(pid, signal.SIGKILL)
            code, expired = self._answer(60)["code"], True
        try:
            stdout = out.read_bytes().decode(errors="replace")
            stderr = err.read_bytes().decode(errors="replace")
        finally:
            out.unlink(missing_ok=True)
            err.unlink(missing_ok=True)
        cmd = [sys.executable, "-m", "delve_bench", *args]
        if expired:
            raise subprocess.TimeoutExpired(cmd, timeout, stdout, stderr)
        return subprocess.CompletedProcess(cmd, code, stdout, stderr)


_SERVER: list[Server] = []
_START = threading.Lock()


def _server() -> Server | None:
    if os.environ.get("DELVE_TEST_COLD") == "1":
        return None
    with _START:
        if not _SERVER or not _SERVER[0].alive():
            _SERVER[:] = [Server()]
        return _SERVER[0]


def run(args, env: dict[str, str], cwd, timeout: float) -> subprocess.CompletedProcess:
    """``subprocess.run([python, -m, delve_bench, *args], capture_output=True, text=True,
    env=env, cwd=cwd, timeout=timeout)``, forked from the warm server where it can be."""
    server = _server()
    if server is not None and server.takes(env) and server.busy.acquire(blocking=False):
        try:
            return server.run(args, env, cwd, timeout)
        finally:
            server.busy.release()
    return cold(args, env, cwd, timeout)


def cold(args, env: dict[str, str], cwd, timeout: float) -> subprocess.CompletedProcess:
    """The command as a fresh subprocess: what :func:`run` does where it cannot fork."""
    return subprocess.run(
        [sys.executable, "-m", "delve_bench", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=str(cwd),
        timeout=timeout,
    )


# -- the server (this file run as a script) ----------------------------------------------


def _preload() -> None:
    """Import what the commands import: the libraries and every module of the package but
    its methods (whose libraries, scikit-learn's OpenMP among them, stay out of the
    server), with OpenBLAS pinned first, as the entry point pins it. A module that needs
    an optional library not installed is left for the command that imports it."""
    import importlib
    import pkgutil

    from delve_bench.blas import pin_openblas

    pin_openblas()
    import delve_bench

    names = [*LIBRARIES]
    for m in pkgutil.walk_packages(delve_bench.__path__, "delve_bench."):
        if not m.name.startswith(("delve_bench.methods.", "delve_bench.__main__")):
            names.append(m.name)
    for name in names:
        try:
            importlib.import_module(name)
        except ImportError:  # an optional library missing: a command needing it finds out
            pass


def _serve(inp, out) -> dict | None:
    """Answer requests until stdin ends; in a forked child, return its request."""
    for line in inp:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            return request
        out.write(json.dumps({"pid": pid}).encode() + b"\n")
        out.flush()
        _, status = os.waitpid(pid, 0)
        out.write(json.dumps({"code": os.waitstatus_to_exitcode(status)}).encode() + b"\n")
        out.flush()
    return None


def _become(request: dict) -> None:
    """Make this forked child ``python -m delve_bench ARGS`` as started with the request's
    environment, working directory and standard streams (stdin empty, as the tests'
    subprocesses had it)."""
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    for fd, name in ((1, "stdout"), (2, "stderr")):
        f = os.open(request[name], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        os.dup2(f, fd)
        os.close(f)
    os.environ.clear()
    os.environ.update(request["env"])
    os.chdir(request["cwd"])
    # `python -m` puts the working directory first, then PYTHONPATH, then the rest
    server = {os.path.abspath(p) for p in request["server_path"].split(os.pathsep) if p}
    rest = [p for p in sys.path if os.path.abspath(p) not in server]
    added = [os.path.abspath(p) for p in request["path"].split(os.pathsep) if p]
    sys.path[:] = [os.getcwd(), *added, *rest]
    sys.argv[:] = ["-m", *request["args"]]


def _main() -> int:
    """Run ``delve_bench`` as ``python -m`` would and return the exit status the
    interpreter would end with (after what it does before its modules' teardown)."""
    import runpy

    code = 0
    try:
        runpy.run_module("delve_bench", run_name="__main__", alter_sys=True)
    except SystemExit as e:
        if e.code is None or isinstance(e.code, int):
            code = e.code or 0
        else:
            print(e.code, file=sys.stderr)
            code = 1
    except KeyboardInterrupt:  # the interpreter ends by SIGINT, once it has cleaned up
        sys.excepthook(*sys.exc_info())
        code = -signal.SIGINT
    except BaseException:
        sys.excepthook(*sys.exc_info())
        code = 1
    threading._shutdown()  # type: ignore[attr-defined]  # joins non-daemon threads
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    return code


if __name__ == "__main__":
    del sys.path[0]  # this file's folder, which `python -m` would not have put there
    _preload()
    import gc

    # the imported objects out of the collector's sight: a child that collected them
    # would write to every page of memory it shares with the server (0.5 CPU s a command)
    gc.freeze()
    inp = os.fdopen(os.dup(0), "rb")
    out = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_WRONLY), 1)
    request = _serve(inp, out)
    inp.close()
    out.close()
    if request is not None:
        _become(request)
        status = _main()
        if status == -signal.SIGINT:
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        os._exit(status)
