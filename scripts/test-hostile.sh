#!/usr/bin/env bash
# npm run test:hostile: hostile clients against two built instances behind the machine's nginx
# (deploy/nginx/nginx.conf on loopback, as test:lb and test:soak run it), with a private Redis
# and a private PostgreSQL cluster: one key's long lists against everyone else's requests, slow
# request bodies, a flood of random keys, Unicode and I-JSON edge cases, requests Node's parser
# refuses, keys where logs could catch them, kill -9 under load, and clients that hang up
# mid-body. Each scenario prints its figures and its verdict; the run fails if any scenario
# fails. The scenarios are scripts/test-hostile.mjs; this wrapper installs what is missing,
# builds, makes the PostgreSQL cluster and removes everything afterwards (scripts/lib/harness.sh).
# HOSTILE_ONLY=name[,name…] runs only those scenarios (the names are printed at the start).
# HOSTILE_ENV='NAME=value …' adds (or overrides) instance environment variables.
# HOSTILE_NODE_ARGS='--cpu-prof --cpu-prof-dir=/tmp/p' adds Node options to the instances.
# HOSTILE_DIST=path runs another compiled copy than this checkout's dist/.
# HOSTILE_KEEP=1 keeps the scratch folder (instance, nginx, Redis and PostgreSQL logs).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib/harness.sh

harness_start hostile HOSTILE_KEEP
install_missing nginx postgresql redis-server
snapshot_app "${HOSTILE_DIST:-}"
start_private_postgres

export HOSTILE_WORK="$work" HOSTILE_NGINX="$nginx_bin" HOSTILE_PG_PORT="$pg_port"
run_scenario scripts/test-hostile.mjs
