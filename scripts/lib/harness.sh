# Sourced by scripts/test-lb.sh, test-soak.sh and test-hostile.sh, which run built instances of
# the service on loopback behind the machine's nginx: the scratch folder and its clean-up, Debian
# packages installed without starting their services, a private PostgreSQL cluster, the build,
# the snapshot of dist/ the instances run, and the Node script that runs the scenario.
# The caller may define on_cleanup (its own resources: a database), called at exit.

harness_node_pid=""
harness_policy_rc=""
pg_started=""

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
  if [ -n "$pg_started" ]; then
    "${pg_ctl[@]}" stop -m immediate -w >/dev/null 2>&1 || true
  fi
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

pg_bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true; }

# install_missing TOOL…: installs (install_packages) those of nginx, postgresql and redis-server
# the machine lacks; sets nginx_bin (find_nginx) and pg_bin (the newest PostgreSQL's bin folder).
install_missing() {
  local tool missing=()
  find_nginx
  pg_bin="$(pg_bin_dir)"
  for tool in "$@"; do
    case "$tool" in
      nginx) [ -z "$nginx_bin" ] && missing+=(nginx) ;;
      postgresql) [ -z "$pg_bin" ] && missing+=(postgresql) ;;
      redis-server) command -v redis-server >/dev/null || missing+=(redis-server) ;;
      *) echo "install_missing: unknown tool $tool" >&2; exit 2 ;;
    esac
  done
  install_packages "${missing[@]}"
  find_nginx
  pg_bin="$(pg_bin_dir)"
}

# start_private_postgres: a PostgreSQL cluster of its own in $work/pg on a free loopback port
# (initdb/pg_ctl from $pg_bin; as the user postgres when run as root, since PostgreSQL refuses
# root), with a database `petstore`, stopped at exit. The test may stop and start it: pg_ctl
# (an array) is the command, and pg_port the port. Durability is off (fsync and the like): it
# is a test's scratch cluster.
start_private_postgres() {
  local as_pg=() pg_opts
  pgdata="$work/pg"
  if [ "$(id -u)" = 0 ]; then
    id postgres >/dev/null 2>&1 || useradd --system --home-dir /nonexistent --shell /usr/sbin/nologin postgres
    as_pg=(runuser -u postgres --)
  fi
  mkdir -p "$pgdata"
  [ "$(id -u)" = 0 ] && chown postgres "$pgdata"
  pg_port="$(node -e "const s=require('net').createServer().listen(0,'127.0.0.1',()=>{console.log(s.address().port);s.close()})")"
  "${as_pg[@]}" "$pg_bin/initdb" -D "$pgdata" -U postgres -A trust -E UTF8 --no-instructions >"$work/initdb.log" 2>&1 \
    || { cat "$work/initdb.log" >&2; exit 1; }
  pg_opts="-p $pg_port -c listen_addresses=127.0.0.1 -c unix_socket_directories=$pgdata -c max_connections=60 -c fsync=off -c synchronous_commit=off -c full_page_writes=off"
  pg_ctl=("${as_pg[@]}" "$pg_bin/pg_ctl" -D "$pgdata" -l "$pgdata/server.log" -o "$pg_opts")
  "${pg_ctl[@]}" start -w >/dev/null
  pg_started=1
  echo "-- PostgreSQL $("$pg_bin/postgres" --version | awk '{print $3}') on 127.0.0.1:$pg_port ($pgdata)"
  "$pg_bin/psql" -h 127.0.0.1 -p "$pg_port" -U postgres -qc "CREATE DATABASE petstore" >/dev/null
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
