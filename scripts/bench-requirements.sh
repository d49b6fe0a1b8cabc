#!/usr/bin/env bash
# What `npm run bench` needs besides Node, made sure of before the benchmarks (`prebench`): wrk
# (Debian's `wrk`), the load generator of the HTTP benchmarks. Without it they fall back to a Node
# load generator that is itself the bottleneck (about 10k req/s for every target on the 2-core
# machine, each server woken per request), so their ratios to hello-world and to @x402/express
# mean something else (docs/benchmarks.md). A restarted machine loses what was installed by hand.
# Missing, it is installed with apt-get when this can (as root, or with sudo that asks no
# password); otherwise this names the package and goes on (the benchmarks still run, and say so).
# It writes to stderr only: `npm run --silent bench -- NAME --json` stays JSON on stdout.
# WRK and APT_GET name other programs (tests).
set -euo pipefail

WRK="${WRK:-wrk}"
APT_GET="${APT_GET:-apt-get}"

if command -v "$WRK" >/dev/null; then
  echo "bench requirements: wrk is here" >&2
  exit 0
fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then as_root=(sudo -n); fi
if ! command -v "$APT_GET" >/dev/null || { [ "${#as_root[@]}" -gt 0 ] && ! sudo -n true 2>/dev/null; }; then
  echo "bench requirements: wrk is missing and cannot be installed here: the HTTP benchmarks will use the Node load generator, whose figures are not comparable (sudo apt-get install -y wrk)" >&2
  exit 0
fi
echo "bench requirements: installing wrk with apt-get" >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$APT_GET" update -qq >&2
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$APT_GET" install -y -qq wrk >&2
