#!/usr/bin/env bash
# Take the documentation's screenshots (docs/screenshots/*.png) from a JupyterLab with nothing
# configured, as a new user first sees it: the bundled demo model (or a local model server found on
# its default port), the real status item. The tests never write there; this command does. The
# screenshot of the kernel's candidates needs a model that answers predictably: it uses the UI-test
# server's scripted model instead.
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
# What needs a scripted model (the kernel's candidates in a prompt) runs against the UI-test server.
npx playwright test -c playwright.screenshots.config.js
echo "screenshots written to docs/screenshots/"
