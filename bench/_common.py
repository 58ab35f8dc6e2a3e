"""What the bench scripts share."""

from __future__ import annotations

import subprocess
import sys
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
