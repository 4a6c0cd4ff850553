#!/usr/bin/env bash
# npm run test:soak: mixed load for SOAK_SECONDS (30 to 600, default 120) against two built
# instances behind the machine's nginx (deploy/nginx/nginx.conf on loopback, as test:lb runs it),
# with a private Redis and a private PostgreSQL cluster, both restarted during the run. The run
# itself is scripts/test-soak.mjs; this wrapper installs what is missing, builds, makes the
# PostgreSQL cluster and removes everything afterwards (scripts/lib/harness.sh).
# SOAK_KEEP=1 keeps the scratch folder (instance, nginx, Redis and PostgreSQL logs).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/harness.sh

seconds="${SOAK_SECONDS:-120}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || [ "$seconds" -lt 30 ] || [ "$seconds" -gt 600 ]; then
  echo "SOAK_SECONDS must be a whole number from 30 to 600 (got \"$seconds\")" >&2
  exit 2
fi

harness_start soak SOAK_KEEP
install_missing nginx postgresql redis-server
snapshot_app

start_private_postgres

export SOAK_SECONDS="$seconds" SOAK_WORK="$work" SOAK_NGINX="$nginx_bin" SOAK_PG_PORT="$pg_port" \
  SOAK_PG_CTL="$(printf '%q ' "${pg_ctl[@]}")"
run_scenario scripts/test-soak.mjs
