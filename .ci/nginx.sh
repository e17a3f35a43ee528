#!/usr/bin/env bash
# Installs nginx from Debian's packages when missing, for the routing test behind it
# (packages/server/src/nginx-routing.e2e.spec.ts), which starts its own nginx as the test's user on
# loopback: nothing here starts or enables the system's nginx service. Safe to run again.
set -euo pipefail
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then
  export DEBIAN_FRONTEND=noninteractive
  # Keep the package's scripts from starting a service on port 80: the test runs its own.
  held=""
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\nexit 101\n' > /usr/sbin/policy-rc.d && chmod +x /usr/sbin/policy-rc.d && held=yes
  fi
  apt-get update -qq
  # `nginx` is the server itself on Debian 12 and later (nginx-light and the like only add modules).
  apt-get install -y -qq --no-install-recommends nginx >/dev/null
  if [ -n "$held" ]; then rm -f /usr/sbin/policy-rc.d; fi
fi
echo "== $(/usr/sbin/nginx -v 2>&1)"
