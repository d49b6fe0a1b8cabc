#!/usr/bin/env bash
# What `npm test` needs besides Node and `npm ci`, made sure of before the tests (`pretest`) and by
# .ci/run, so the README's second command passes by itself on a fresh machine:
#   - PostgreSQL (Debian's `postgresql`: pg_lsclusters and a cluster that starts), unless
#     TEST_DATABASE_URL names a server: the storage tests run against a real one, never a mock;
#   - Chromium at /usr/bin/chromium (Debian's `chromium`): the storefront's browser tests drive it
#     through playwright-core, which never downloads a browser;
#   - Go with Debian's sumdb packages (`golang-go`, `golang-golang-x-mod-dev`, in /usr/share/gocode):
#     the tiled log is checked by a client built from Go's own golang.org/x/mod/sumdb packages.
# What is missing is installed with apt-get when this can (as root, or with sudo that asks no
# password); otherwise it names exactly what to install and exits 1. When all is there it says so in
# one line and takes a few milliseconds. CHROMIUM, GOCODE and APT_GET name other places (tests).
set -euo pipefail

CHROMIUM="${CHROMIUM:-/usr/bin/chromium}"
GOCODE="${GOCODE:-/usr/share/gocode}"
APT_GET="${APT_GET:-apt-get}"

missing=()
[ -x "$CHROMIUM" ] || missing+=(chromium)
if [ -z "${TEST_DATABASE_URL:-}" ]; then
  if ! command -v pg_lsclusters >/dev/null || ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then missing+=(postgresql); fi
fi
if ! command -v go >/dev/null || [ ! -d "$GOCODE/src/golang.org/x/mod/sumdb/tlog" ]; then missing+=(golang-go golang-golang-x-mod-dev); fi

as_root=()
if [ "$(id -u)" -ne 0 ]; then as_root=(sudo -n); fi
can_install() {
  command -v "$APT_GET" >/dev/null || return 1
  [ "${#as_root[@]}" -eq 0 ] || sudo -n true 2>/dev/null
}

if [ "${#missing[@]}" -gt 0 ]; then
  if ! can_install; then
    echo "npm test needs what this machine lacks: ${missing[*]} (Debian package names)." >&2
    echo "Install them with:  sudo apt-get install -y ${missing[*]}" >&2
    echo "(PostgreSQL elsewhere: set TEST_DATABASE_URL=postgres://USER:PASSWORD@HOST:PORT/DB instead of installing it.)" >&2
    exit 1
  fi
  echo "test requirements: installing ${missing[*]} with apt-get"
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$APT_GET" update -qq
  "${as_root[@]}" env DEBIAN_FRONTEND=noninteractive "$APT_GET" install -y -qq "${missing[@]}"
fi

# A cluster that exists and runs (the test helper starts it again if it stops, and makes a
# database per test file).
if [ -z "${TEST_DATABASE_URL:-}" ] && command -v pg_lsclusters >/dev/null; then
  if [ -z "$(pg_lsclusters -h)" ]; then
    "${as_root[@]}" pg_createcluster "$(ls /usr/lib/postgresql | sort -n | tail -1)" main >/dev/null
  fi
  read -r pg_version pg_cluster _ < <(pg_lsclusters -h | head -1)
  if ! pg_lsclusters -h | head -1 | grep -q online; then
    if ! "${as_root[@]}" pg_ctlcluster --skip-systemctl-redirect "$pg_version" "$pg_cluster" start; then
      echo "PostgreSQL's cluster $pg_version/$pg_cluster is down and this cannot start it: sudo pg_ctlcluster $pg_version $pg_cluster start" >&2
      exit 1
    fi
  fi
fi
echo "test requirements: Chromium, Go with the sumdb packages and PostgreSQL${TEST_DATABASE_URL:+ (TEST_DATABASE_URL)} are here"
