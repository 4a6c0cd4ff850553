# Sourced by scripts/test-lb.sh and scripts/test-soak.sh, which run built instances of the
# service on loopback behind the machine's nginx: the scratch folder and its clean-up, Debian
# packages installed without starting their services, the build, the snapshot of dist/ the
# instances run, and the Node script that runs the scenario.
# The caller may define on_cleanup (its own resources: a database, a cluster), called at exit.

harness_node_pid=""
harness_policy_rc=""

# harness_start PREFIX KEEP_VARIABLE: makes $work (/tmp/petstore-PREFIX.*) and removes it at exit
# unless KEEP_VARIABLE is set (instance, nginx and other logs are kept for a look).
harness_start() {
  work="$(mktemp -d "/tmp/petstore-$1.XXXXXX")"
  harness_keep="$2"
  chmod 755 "$work" # nginx's workers (user nobody) use temporary files under it
  trap harness_cleanup EXIT
  trap 'exit 130' INT
  trap 'exit 143' TERM
}

harness_cleanup() {
  local rc=$?
  trap - EXIT INT TERM
  # The Node script stops what it starts (on SIGTERM too: give it a few seconds); the sweep
  # below only catches what is left if it could not.
  if [ -n "$harness_node_pid" ] && kill -0 "$harness_node_pid" 2>/dev/null; then
    kill -TERM "$harness_node_pid" 2>/dev/null || true
    for _ in $(seq 1 80); do kill -0 "$harness_node_pid" 2>/dev/null || break; sleep 0.1; done
  fi
  # A pid is signalled only while its command line still names our scratch folder.
  if [ -f "$work/pids" ]; then
    local sig pid
    for sig in TERM KILL; do
      while read -r pid; do
        if grep -qF "$work" "/proc/$pid/cmdline" 2>/dev/null; then kill "-$sig" "$pid" 2>/dev/null || true; fi
      done <"$work/pids"
      [ "$sig" = TERM ] && sleep 1
    done
  fi
  [ -n "$harness_policy_rc" ] && rm -f /usr/sbin/policy-rc.d
  if declare -F on_cleanup >/dev/null; then on_cleanup || true; fi
  if [ -n "${!harness_keep:-}" ]; then echo "-- kept $work ($harness_keep)"; else rm -rf "$work"; fi
  exit "$rc"
}

# install_packages PACKAGE…: Debian packages, installed only (as root), never started.
install_packages() {
  [ "$#" -eq 0 ] && return 0
  if [ "$(id -u)" != 0 ]; then echo "FAIL: missing $* and this is not root" >&2; exit 1; fi
  echo "-- installing $* (Debian packages, not started)"
  # policy-rc.d 101 = "do not": the packages must not start system services.
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' >/usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d
    harness_policy_rc=1
  fi
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@") \
    >"$work/apt.log" 2>&1 || { tail -20 "$work/apt.log" >&2; echo "FAIL: apt-get install $*" >&2; exit 1; }
  [ -n "$harness_policy_rc" ] && rm -f /usr/sbin/policy-rc.d && harness_policy_rc=""
  return 0
}

# Sets nginx_bin to the machine's nginx (Debian puts it in /usr/sbin), or to "".
find_nginx() {
  nginx_bin="$(command -v nginx || true)"
  if [ -z "$nginx_bin" ] && [ -x /usr/sbin/nginx ]; then nginx_bin=/usr/sbin/nginx; fi
  return 0
}

# snapshot_app [DIST]: builds unless dist/ is newer than every source it is made from, then
# copies it to $work/app, so that a rebuild during the test cannot pull it from under a restart;
# node_modules and package.json ("type": "module") are the checkout's. DIST runs another
# compiled copy instead (to try a change without touching dist/).
snapshot_app() {
  local dist="${1:-}"
  if [ -n "$dist" ]; then
    echo "-- running $dist, not this checkout's dist/"
  elif [ ! -f dist/main.js ] || [ ! -f dist/migrations/index.js ] \
    || [ -n "$(find src migrations package.json package-lock.json tsconfig.json tsconfig.build.json \
      tsconfig.migrations.json -newer dist/main.js -print -quit)" ]; then
    echo "-- npm run build"
    npm run build --silent
  else
    echo "-- dist/ is current"
  fi
  mkdir -p "$work/app"
  cp -r "${dist:-dist}" "$work/app/dist"
  cp package.json CHANGELOG.md "$work/app/"
  ln -s "$PWD/node_modules" "$work/app/node_modules"
}

# run_scenario SCRIPT: runs the Node script in the background and waits for it, so that a
# signal to the shell script is handled at once (the clean-up then stops it first).
run_scenario() {
  node "$1" </dev/null &
  harness_node_pid=$!
  wait "$harness_node_pid"
}
