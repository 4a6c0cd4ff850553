#!/usr/bin/env bash
# Runs a command as on a machine without Chromium, on a machine that has it: in a mount
# namespace of its own, /usr/bin/chromium (where test/support/browser.ts looks) is deleted from
# an overlay of /usr/bin and Chromium's own folder is hidden under an empty one, so nothing the
# command starts can find or run a browser. The machine itself is left as it is. Needs root
# (unshare --mount); .ci/run uses it to show that `npm test` needs no browser.
set -euo pipefail

[ "$(id -u)" = 0 ] || { echo "without-chromium.sh needs root (a mount namespace)" >&2; exit 1; }
[ $# -gt 0 ] || { echo "usage: without-chromium.sh <command> [args...]" >&2; exit 2; }

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
mkdir "$scratch/upper" "$scratch/work"

# --propagation private: the mounts below stay inside the namespace and die with it.
unshare --mount --propagation private bash -euo pipefail -c '
  scratch="$1"
  shift
  if [ -e /usr/bin/chromium ] || [ -L /usr/bin/chromium ]; then
    mount -t overlay overlay \
      -o "lowerdir=/usr/bin,upperdir=$scratch/upper,workdir=$scratch/work" /usr/bin
    rm /usr/bin/chromium
  fi
  if [ -d /usr/lib/chromium ]; then
    mount -t tmpfs -o ro,size=1m tmpfs /usr/lib/chromium
  fi
  if [ -e /usr/bin/chromium ] || [ -n "$(ls -A /usr/lib/chromium 2>/dev/null)" ]; then
    echo "FAIL: Chromium is still visible" >&2
    exit 1
  fi
  echo "no Chromium here: /usr/bin/chromium does not exist, /usr/lib/chromium is empty"
  "$@"
' without-chromium "$scratch" "$@"
