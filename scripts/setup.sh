#!/usr/bin/env bash
# Install everything jupyter_codecomplete needs into ./.venv: Python deps (wheels only: the embedded
# demo model runs on the built-in numpy engine, no compiler needed), the JavaScript toolchain, and
# the built JupyterLab extension, linked for development.
#
#   ./scripts/setup.sh            the default: no C compiler, no llama.cpp
#   ./scripts/setup.sh --local    also llama-cpp-python[server] (the `local` extra's engine, for GGUF
#                                 models the numpy engine does not run, and llama_cpp.server); it
#                                 compiles llama.cpp once (about 15 minutes on 2 cores), then pip's
#                                 wheel cache is reused
#   ./scripts/setup.sh --force    redo every step
#
# Safe to run any number of times, as root or not. Each step records a fingerprint of its inputs
# under .venv/.codecomplete/ and is skipped while they are unchanged, so a second run (and so a
# second `start.sh`) takes a second or two.
set -euo pipefail
cd "$(dirname "$0")/.."

FORCE=0
LOCAL=0
for arg in "$@"; do
  case "$arg" in
    --force) FORCE=1 ;;
    --local) LOCAL=1 ;;
    *) echo "setup.sh: unknown option $arg (known: --local, --force)" >&2; exit 2 ;;
  esac
done

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
# shellcheck disable=SC1091
. .venv/bin/activate
STAMPS=.venv/.codecomplete
mkdir -p "$STAMPS"

# The fingerprint of some files and folders (content of tracked and untracked files, not mtimes).
fingerprint() {
  { python --version; find "$@" -type f ! -path '*/node_modules/*' -print0 2>/dev/null \
      | sort -z | xargs -0 sha256sum; } | sha256sum | cut -d' ' -f1
}
# Run a step unless its fingerprint is unchanged since it last succeeded.
step() {
  local name=$1 sum=$2; shift 2
  if [ $FORCE = 0 ] && [ -f "$STAMPS/$name" ] && [ "$(cat "$STAMPS/$name")" = "$sum" ]; then
    return 0
  fi
  echo "setup: $name" >&2
  PART_START=0
  "$@"
  echo "$sum" >"$STAMPS/$name"
}

LABEXT_LINK=.venv/share/jupyter/labextensions/jupyter-codecomplete

# One line per part of a step, with the seconds the part before took (a first run takes minutes).
PART_START=0
part() {
  local now
  now=$(date +%s)
  if [ "$PART_START" != 0 ]; then echo "setup:   (done in $((now - PART_START)) s)" >&2; fi
  PART_START=$now
  [ -n "${1:-}" ] && echo "setup:   $1" >&2
  return 0
}

python_deps() {
  part "pip"
  python -m pip install -q -U pip
  part "JupyterLab, Notebook 7 and the build tools"
  python -m pip install -q "jupyterlab>=4.6,<5" "notebook>=7.6,<8" "jupyter-builder>=1.2,<2" \
    "hatchling>=1.5" "hatch-jupyter-builder>=0.5" "hatch-nodejs-version>=0.3.2" editables
  # The development link (below) points the installed labextension folder at the package's
  # build folder. pip must not write through it: it would put install.json into the package
  # (and the next wheel would hold it twice) and uninstall the build outputs. Unlink first.
  if [ -L "$LABEXT_LINK" ]; then rm "$LABEXT_LINK"; fi
  rm -f jupyter_codecomplete/labextension/install.json
  part "jupyter_codecomplete (editable, with its test and docs tools; builds the JupyterLab extension)"
  python -m pip install -q --no-build-isolation -e ".[test,docs]"
  jupyter server extension enable jupyter_codecomplete --sys-prefix >/dev/null
  part ""
  PYTHON_STEP_RAN=1  # the editable install has just built the extension
}

# llama-cpp-python, only with --local: llama.cpp is compiled from source (portable flags), once;
# pip's wheel cache is reused by later setups and other checkouts.
local_engine() {
  if python -c "import importlib.util as u, sys; sys.exit(not (u.find_spec('llama_cpp') and u.find_spec('uvicorn')))" \
      >/dev/null 2>&1; then
    return 0  # installed already (a second run takes no time)
  fi
  echo "setup: local (llama-cpp-python)" >&2
  PART_START=0
  export CMAKE_ARGS="${CMAKE_ARGS:--DGGML_NATIVE=OFF}"
  if python -m pip cache list "llama_cpp_python*" 2>/dev/null | grep -q "llama_cpp_python"; then
    part "llama-cpp-python (from pip's wheel cache)"
  else
    part "llama-cpp-python: compiling llama.cpp from source, once (about 10-15 minutes on 2 cores;
setup:   later setups reuse the wheel from pip's cache)"
  fi
  python -m pip install -q "llama-cpp-python[server]>=0.3.9"
  part ""
}

PYTHON_STEP_RAN=0
frontend() {
  if [ $PYTHON_STEP_RAN = 1 ] && [ -f jupyter_codecomplete/labextension/package.json ]; then
    return 0
  fi
  part "JavaScript packages (jlpm install)"
  jlpm install --immutable >/dev/null 2>&1 || jlpm install
  part "the JupyterLab extension (jlpm build)"
  jlpm build
  part ""
}

link_labextension() {
  # A link, so `jlpm build` (or `jlpm watch`) is seen by the next page load; never a copy.
  if [ ! -L "$LABEXT_LINK" ]; then
    rm -rf "$LABEXT_LINK"
    jupyter labextension develop . --overwrite >/dev/null 2>&1 || jupyter-builder develop . --overwrite
  fi
}

# A build folder removed by hand (`jlpm clean`) is rebuilt whatever the fingerprint says.
[ -f jupyter_codecomplete/labextension/package.json ] || rm -f "$STAMPS/frontend"
step python "$(fingerprint pyproject.toml package.json scripts/setup.sh)" python_deps
if [ $LOCAL = 1 ]; then local_engine; fi
step frontend "$(fingerprint package.json yarn.lock tsconfig.json src schema style)" frontend
link_labextension
