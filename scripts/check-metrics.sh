#!/usr/bin/env bash
# promtool's lint over a scrape of /metrics that test/metrics.e2e-spec.ts leaves in
# test-output/metrics.txt (so run the tests first). promtool comes from Debian's `prometheus`
# package, installed here when missing.
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v promtool >/dev/null 2>&1; then
  (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends prometheus) >/dev/null
fi
scrape=test-output/metrics.txt
[ -s "$scrape" ] || { echo "no $scrape: run the metrics e2e test first" >&2; exit 1; }

# prom-client's default Node.js gauges nodejs_active_{handles,requests,resources}_total keep
# the names every Node.js dashboard knows, although their _total suffix is a counter's; those
# three findings are expected, any other fails.
findings=$(promtool check metrics <"$scrape" 2>&1 || true)
unexpected=$(printf '%s\n' "$findings" |
  grep -vE '^nodejs_active_(handles|requests|resources)_total non-counter metrics should not have "_total" suffix$' |
  grep -v '^$' || true)
if [ -n "$unexpected" ]; then
  printf 'promtool check metrics found:\n%s\n' "$unexpected" >&2
  exit 1
fi
echo "promtool check metrics: $(grep -c '^# TYPE' "$scrape") metric families, no finding beyond prom-client's three defaults"
