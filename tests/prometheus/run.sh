#!/usr/bin/env bash
# The shipped alerting rules (docs/prometheus-rules.yml): valid for Prometheus, and firing as
# tests/prometheus/rules_test.yml expects on series as railyard-firstboot writes them.
set -euo pipefail
cd "$(dirname "$0")"
command -v promtool >/dev/null || { echo "promtool is missing (Debian's prometheus package; ci/setup-deps.sh)"; exit 1; }
promtool check rules ../../docs/prometheus-rules.yml
promtool test rules rules_test.yml
