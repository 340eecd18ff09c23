#!/usr/bin/env bash
# The path a fresh machine takes: moto neither on PATH nor importable from python3, so the
# first startLocalExecutor creates .tasklane/venv and pip-installs requirements-emulator.txt
# (hash-pinned, --require-hashes) from PyPI, showing pip's progress. Then a second start that
# reuses the environment, and `npm run dev` on it. Prints both start times.
#
# It deletes .tasklane/venv first (a cache the harness recreates) so the install really runs.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

# The real interpreter behind any shim, run with -S: without site-packages it cannot import
# the system's moto, while `python3 -m venv` still works (the venv's own python is normal).
real_python=$(python3 -c 'import sys; print(sys.executable)')
hidden=$(mktemp -d)
trap 'rm -rf "$hidden"' EXIT
printf '#!/bin/sh\nexec %q -S "$@"\n' "$real_python" > "$hidden/python3"
chmod +x "$hidden/python3"
node_dir=$(dirname "$(command -v node)")
npm_dir=$(dirname "$(command -v npm)")
export PATH="$hidden:$node_dir:$npm_dir:/usr/bin:/bin"
unset TASKLANE_PYTHON AWS_ENDPOINT_URL TASKLANE_EMULATOR

if command -v moto_server >/dev/null 2>&1; then
  echo "ERROR: moto_server is still on PATH ($(command -v moto_server)); cannot test the install path." >&2
  exit 1
fi
if python3 -c 'import moto' 2>/dev/null; then
  echo "ERROR: python3 still imports moto; cannot test the install path." >&2
  exit 1
fi
echo "moto hidden: PATH=$PATH; python3 = $real_python -S"

rm -rf .tasklane/venv
npx tsx scripts/ci/first-start.ts 'first (creates .tasklane/venv, installs from PyPI)'
npx tsx scripts/ci/first-start.ts 'second (reuses .tasklane/venv)'
.tasklane/venv/bin/python -m pip list --disable-pip-version-check 2>/dev/null | grep -iE '^(moto|boto3|botocore) '
npm run dev
