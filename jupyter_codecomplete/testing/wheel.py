"""The package's wheel, built as a release is: from the checkout's tracked files and its prebuilt
JupyterLab extension, in a temporary copy (so nothing is written into the checkout), with the
build tools of the running environment (no build isolation: no download, no compiler).

Used by the wheel test (``tests/test_wheel_install.py``) and the coexistence benchmark.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path


def clean_env() -> dict[str, str]:
    """This process's environment without its virtual environment, path and Jupyter folders."""
    return {k: v for k, v in os.environ.items() if not k.startswith(("VIRTUAL_ENV", "PYTHONPATH", "JUPYTER"))}


def copy_checkout(checkout: Path, dest: Path) -> None:
    """The tracked files and the built extension: what a release is built from."""
    names = subprocess.run(
        ["git", "ls-files", "-z"], cwd=checkout, capture_output=True, check=True
    ).stdout.split(b"\0")
    for name in filter(None, names):
        path = checkout / os.fsdecode(name)
        if path.is_file():
            target = dest / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    labextension = Path("jupyter_codecomplete") / "labextension"
    shutil.copytree(checkout / labextension, dest / labextension)


def build_wheel(checkout: Path, work: Path, env: dict[str, str] | None = None, timeout: float = 600) -> Path:
    """Build the wheel of ``checkout`` under ``work`` (``work/src`` the copy, ``work/dist`` the
    wheel); its path. A failed build raises ``RuntimeError`` with pip's output."""
    src, dist = work / "src", work / "dist"
    copy_checkout(checkout, src)
    cmd = [
        sys.executable,
        "-m",
        "pip",
        "wheel",
        "--no-deps",
        "--no-build-isolation",
        "-q",
        "-w",
        str(dist),
        ".",
    ]
    done = subprocess.run(
        cmd,
        env=env if env is not None else clean_env(),
        cwd=src,
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if done.returncode != 0:
        raise RuntimeError(
            f"pip wheel failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
        )
    [wheel] = dist.glob("jupyter_codecomplete-*.whl")
    return wheel
