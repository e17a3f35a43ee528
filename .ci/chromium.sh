#!/usr/bin/env bash
# Headless Chromium from Debian's packages, for the simulator's HTML report test (packages/sim) and the
# console's browser test (packages/server/src/console; screenshots in reports/console/).
set -euo pipefail
if [ -x /usr/bin/chromium ]; then
  echo "== chromium: $(/usr/bin/chromium --version 2>/dev/null || echo present)"
  exit 0
fi
SUDO=""
if [ "$(id -u)" != "0" ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends chromium fonts-dejavu-core >/dev/null
echo "== chromium: $(/usr/bin/chromium --version 2>/dev/null || echo installed)"
