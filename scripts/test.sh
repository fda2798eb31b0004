#!/usr/bin/env bash
# Set everything up and run the whole test suite: lint (ruff; ESLint and Prettier on src/), the
# import layers (import-linter), Python tests (through a running server, a scripted OpenAI-format
# upstream and a real llama_cpp.server), frontend unit tests, and the UI tests in Debian Chromium.
# Exits non-zero when anything fails.
#
# The tests cover both in-process engines, so the setup here is `--local`: it installs
# llama-cpp-python[server] (compiled once, then taken from pip's wheel cache), which the default
# setup leaves out.
set -uo pipefail
cd "$(dirname "$0")/.."
./scripts/setup.sh --local || exit 1
# shellcheck disable=SC1091
. .venv/bin/activate

if ! command -v chromium >/dev/null 2>&1; then
  (apt-get update -q && apt-get install -y -q chromium) >/tmp/codecomplete-apt.log 2>&1 || {
    echo "could not install chromium"; tail -20 /tmp/codecomplete-apt.log; exit 1; }
fi

status=0
step() { echo; echo "=== $1"; shift; "$@" || { echo "=== FAILED: $*"; status=1; }; }

export TOKENIZERS_PARALLELISM=false
export CODECOMPLETE_REQUIRE_LLAMA_CPP=1  # the setup above installed it: its tests must not skip
step "ruff" ruff check jupyter_codecomplete tests benchmarks docs/_ext examples
step "mypy (strict, pyproject.toml [tool.mypy])" mypy
step "import layers and cycles (lint-imports, pyproject.toml [tool.importlinter])" lint-imports --no-cache
step "eslint + prettier (src/)" jlpm lint:check
step "docs (warnings are errors)" sphinx-build -W -q -b html docs docs/_build/html
step "eval (embedded model)" jupyter codecomplete eval jupyter_codecomplete/evaluation \
  --model-json '{"backend": "embedded", "max_tokens": 32}' --variant no-notebook=notebook_context:off \
  --samples 2 --json "${TMPDIR:-/tmp}/codecomplete-eval.json"
step "pytest" python -m pytest -p no:cacheprovider -q
step "jest" jlpm test
step "ui-tests" bash -c 'cd ui-tests && jlpm install && jlpm test'
echo
if [ $status -eq 0 ]; then echo "=== all test steps passed"; else echo "=== some test steps FAILED"; fi
exit $status
