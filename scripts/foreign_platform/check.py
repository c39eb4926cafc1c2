"""Check that the foreign-platform stage is in force (run with this folder on PYTHONPATH): in this
process and in a subprocess (as a notebook kernel or ``python -m posenc.measure`` starts), ``import
resource`` fails and so does every way of reading ``/proc``; other files still read."""

import subprocess
import sys

PROBE = r"""
import os, pathlib
assert os.environ.get("POSENC_FOREIGN_PLATFORM") == "1", "sitecustomize not loaded"
try:
    import resource
except ModuleNotFoundError:
    pass
else:
    raise SystemExit("resource is importable")
for read in (lambda: open("/proc/self/status").read(), lambda: pathlib.Path("/proc/cpuinfo").read_text(),
             lambda: os.listdir("/proc/self"), lambda: os.open("/proc/self/statm", os.O_RDONLY),
             lambda: open(b"/proc/self/stat", "rb")):
    try:
        read()
    except FileNotFoundError:
        continue
    raise SystemExit("a /proc read succeeded")
assert not os.path.exists("/proc/self/status")
assert pathlib.Path(__file__ if "__file__" in dir() else os.devnull).exists()
"""

exec(PROBE)
subprocess.run([sys.executable, "-c", PROBE], check=True)
print("foreign platform in force: no `resource`, no /proc (this process and its subprocesses)")
