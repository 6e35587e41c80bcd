#!/usr/bin/env bash
# The system packages the suite needs, installed from Debian when missing (make test, CI).
#   scripts/deps.sh            chromium, redis-server/-tools, postgresql-client, wrk, nginx,
#                              npm, and axe-core (npm registry) into the git-ignored .npm-tools/
#   scripts/deps.sh --compose  also docker-compose (CI validates docker-compose.yml)
# Installs only as root or with passwordless sudo; otherwise says what to install and fails.
set -euo pipefail

need=()
command -v chromium >/dev/null || need+=(chromium)            # browser tests (Playwright)
command -v pg_isready >/dev/null || need+=(postgresql-client) # scripts/services.sh
command -v redis-cli >/dev/null || need+=(redis-tools)        # scripts/services.sh
command -v redis-server >/dev/null || need+=(redis-server)    # private brokers in tests
command -v wrk >/dev/null || need+=(wrk)                      # make bench (load)
command -v npm >/dev/null || need+=(npm)                      # axe-core, below
[ -x /usr/sbin/nginx ] || command -v nginx >/dev/null || need+=(nginx) # slow-client test (M9)
if [ "${1:-}" = "--compose" ]; then
  command -v docker-compose >/dev/null || need+=(docker-compose)
fi

# The browser tests' accessibility checks inject axe-core; without it they would check nothing
# (they fail instead when AXE_REQUIRED=1, which scripts/test.sh sets).
AXE_CORE_VERSION=4.10.3
install_axe() {
  local installed=.npm-tools/node_modules/axe-core/package.json
  if ! grep -q "\"version\": \"$AXE_CORE_VERSION\"" "$installed" 2>/dev/null; then
    echo "== installing axe-core $AXE_CORE_VERSION into .npm-tools/"
    npm install --silent --no-audit --no-fund --prefix .npm-tools "axe-core@$AXE_CORE_VERSION"
  fi
}
if [ ${#need[@]} -eq 0 ]; then
  install_axe
  exit 0
fi

if [ "$(id -u)" -eq 0 ]; then
  as_root=()
elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
  as_root=(sudo -n)
else
  echo "ERROR: the test suite needs these Debian packages: ${need[*]}" >&2
  echo "  install them:  sudo apt-get install -y --no-install-recommends ${need[*]}" >&2
  echo "  (or run 'make test-fast': no browser and no worker tests)" >&2
  exit 1
fi
if ! command -v apt-get >/dev/null; then
  echo "ERROR: missing ${need[*]} and no apt-get here: install them with your package manager." >&2
  exit 1
fi
echo "== installing ${need[*]}"
export DEBIAN_FRONTEND=noninteractive
"${as_root[@]}" apt-get update -qq
"${as_root[@]}" env DEBIAN_FRONTEND=noninteractive \
  apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
install_axe
