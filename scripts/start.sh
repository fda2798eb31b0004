#!/usr/bin/env bash
# Set everything up (first run: a few minutes) and start JupyterLab with inline completions.
# With no model configured, the bundled demo model serves completions in-process.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# shellcheck disable=SC1091
. .venv/bin/activate
exec jupyter lab "$@"
