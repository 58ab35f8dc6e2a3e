"""Inputs for the compiled scans of ``asz_core.verify.jsonscan``: run over inputs that end where an unreadable page
begins (their memory-safety tests), and bytes changed (test_verify_jsonscan.py, test_verify_round_scan.py)."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

#: Run in a child process (a read past the end is a SIGSEGV there, a failed test here): ``@CALL@`` (an expression of
#: ``view``, the input's bytes, and ``cut``, its length) over each input of argv's file (repr() of bytes, one a
#: line), placed so that its last byte is the last readable byte before a page mprotect()ed PROT_NONE, once for every
#: length it can be cut to. Prints the answers as a Python list.
_CHILD = r"""
import ast, ctypes, mmap, sys
from asz_core.verify import jsonscan
page, pages = mmap.PAGESIZE, @PAGES@
buf = mmap.mmap(-1, page * (pages + 1))
libc = ctypes.CDLL(None, use_errno=True)
libc.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
if libc.mprotect(ctypes.addressof(ctypes.c_char.from_buffer(buf)) + page * pages, page, 0) != 0:
    sys.exit(3)
lim, out = page * pages, []
for text in open(sys.argv[1]).read().splitlines():
    line = ast.literal_eval(text)
    for cut in range(len(line) + 1):
        buf[lim - cut:lim] = line[:cut]
        view = memoryview(buf)[lim - cut:lim]
        out.append(@CALL@)
print(out)
"""


def guarded(inputs: list[bytes], call: str, folder: Path, pages: int = 4) -> list:
    """The answers of ``call`` (see :data:`_CHILD`) over every cut of every input, each held against a guard page in
    a child process; asserts the child exited 0 (no read past the end) and that every input fits in ``pages``."""
    assert max(map(len, inputs)) < pages * 4096
    src = folder / "inputs.txt"
    src.write_text("\n".join(repr(x) for x in inputs) + "\n")
    code = _CHILD.replace("@PAGES@", str(pages)).replace("@CALL@", call)
    got = subprocess.run([sys.executable, "-c", code, str(src)], capture_output=True, text=True, timeout=300)
    assert got.returncode == 0, (got.returncode, got.stderr[-2000:])
    return ast.literal_eval(got.stdout)


def mutated(data: bytes, changes: list[tuple[int, int, bytes]]) -> bytes:
    """``data`` with each ``(at, how, what)`` of ``changes`` applied in turn (``at`` taken modulo the length + 1):
    ``what`` inserted at ``at`` (how 0), written over the bytes there (1), or as many bytes deleted there (2)."""
    out = bytearray(data)
    for at, how, what in changes:
        at %= len(out) + 1
        if how == 0:
            out[at:at] = what
        elif how == 1:
            out[at:at + len(what)] = what
        else:
            del out[at:at + len(what)]
    return bytes(out)
