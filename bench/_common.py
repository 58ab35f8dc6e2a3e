"""What the bench scripts share."""

from __future__ import annotations

import http.client
import socket
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
PACKAGES = ("asz_core", "asz_adapters_claude", "asz_adapters_kiro", "asz_adapters_langchain")


def compile_packages() -> None:
    """Write the bytecode of asz's packages, so a timed process does not compile them (an installed package has it).

    A machine may set PYTHONDONTWRITEBYTECODE, which makes every process
    compile every module it imports from source; ``compileall`` writes the
    ``__pycache__`` files regardless, and processes read them.
    """
    pkgs = [str(REPO / d) for d in PACKAGES if (REPO / d).is_dir()]
    subprocess.run([sys.executable, "-m", "compileall", "-q", *pkgs], check=False, stdout=subprocess.DEVNULL)


def free_port() -> int:
    """A free TCP port on 127.0.0.1 (bound, read, released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def http_get(port: int, path: str, timeout: float = 120) -> tuple[int, bytes, float]:
    """GET ``path`` from 127.0.0.1:``port``: (status, body, milliseconds)."""
    t = time.perf_counter()
    c = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    c.request("GET", path)
    r = c.getresponse()
    body = r.read()
    c.close()
    return r.status, body, (time.perf_counter() - t) * 1000
