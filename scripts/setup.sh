#!/usr/bin/env bash
# Install everything jupyter_codecomplete needs into ./.venv: Python deps (with the embedded
# model's llama-cpp-python, built once and then reused from pip's wheel cache), the JavaScript
# toolchain, and the built JupyterLab extension, linked for development.
set -euo pipefail
cd "$(dirname "$0")/.."

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
python -m pip install -q -U pip

# llama.cpp is compiled from source by llama-cpp-python: portable flags, pip's wheel cache reused.
export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
python -m pip install -q "jupyterlab>=4.6,<5" "notebook>=7.6,<8" "jupyter-builder>=1.2,<2" \
  "hatchling>=1.5" "hatch-jupyter-builder>=0.5" "hatch-nodejs-version>=0.3.2" editables
python -m pip install -q "llama-cpp-python[server]>=0.3.9"
python -m pip install -q --no-build-isolation -e ".[test,local,docs]"
jupyter labextension develop . --overwrite >/dev/null 2>&1 || jupyter-builder develop . --overwrite
jupyter server extension enable jupyter_codecomplete --sys-prefix >/dev/null
