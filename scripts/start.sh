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
# Say where JupyterLab is as soon as the server is up (its own log says it too, among many lines).
# The server writes its runtime file when it listens; `exec` keeps this shell's process id, so the
# file's name is known before the server starts. The watcher ends with the server.
RUNTIME_DIR=$(jupyter --runtime-dir)
SERVER_PID=$$
announce() {
  local info="$RUNTIME_DIR/jpserver-$SERVER_PID.json" i
  for i in $(seq 2400); do  # 10 minutes at most
    if [ -f "$info" ]; then
      sleep 0.2  # the file is written in one go; give it a moment to be complete
      python - "$info" "$APP" <<'PY' >&2 || true
import json, sys
with open(sys.argv[1], encoding="utf-8") as f:
    info = json.load(f)
page = "tree" if sys.argv[2] == "notebook" else "lab"
url = info["url"].rstrip("/") + "/" + page
token = info.get("token")
print(f"start.sh: {'Jupyter Notebook' if page == 'tree' else 'JupyterLab'} is up: {url}" + (f"?token={token}" if token else ""))
PY
      return 0
    fi
    kill -0 "$SERVER_PID" 2>/dev/null || return 0
    sleep 0.25
  done
}
announce &
exec jupyter "$APP" "${ARGS[@]}" "$@"
