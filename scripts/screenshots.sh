#!/usr/bin/env bash
# Take the documentation's screenshots (docs/screenshots/*.png) from a JupyterLab with nothing
# configured, as a new user first sees it: the bundled demo model (or a local model server found on
# its default port), the real status item. The tests never write there; this command does.
set -euo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh
# shellcheck disable=SC1091
. .venv/bin/activate
if ! command -v chromium >/dev/null 2>&1; then
  echo "screenshots.sh: needs Debian's chromium (apt-get install chromium)" >&2
  exit 1
fi
cd ui-tests
jlpm install >/dev/null
npx playwright test -c screenshots.config.js "$@"
echo "screenshots written to docs/screenshots/"
