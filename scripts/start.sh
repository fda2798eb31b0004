#!/usr/bin/env bash
# Set everything up (first run: a few minutes; later runs skip what is already installed) and start
# JupyterLab with inline completions. With no model configured, a local model server is used when
# one answers on its default port, otherwise the bundled demo model serves completions in-process.
#
#   ./scripts/start.sh                      JupyterLab
#   ./scripts/start.sh notebook             Jupyter Notebook 7
#   ./scripts/start.sh --no-browser --port 8899     (arguments go to `jupyter lab`)
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# shellcheck disable=SC1091
. .venv/bin/activate

APP=lab
if [ "${1:-}" = "notebook" ] || [ "${1:-}" = "lab" ]; then
  APP=$1
  shift
fi
ARGS=()
if [ "$(id -u)" = 0 ]; then
  echo "start.sh: running as root, so passing --allow-root to jupyter $APP" >&2
  ARGS+=(--allow-root)
fi
exec jupyter "$APP" "${ARGS[@]}" "$@"
