#!/usr/bin/env bash
# Installs PostgreSQL from Debian's packages (when missing) and starts a cluster on 127.0.0.1:5432 with a
# database and role `sdp` (password `sdp`). Safe to run again.
set -euo pipefail
if ! ls /usr/lib/postgresql/*/bin/postgres >/dev/null 2>&1; then
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq postgresql >/dev/null
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -n 1)
data=/tmp/sdp-pg
if ! "$bin/pg_isready" -h 127.0.0.1 -p 5432 -q; then
  if [ ! -f "$data/PG_VERSION" ]; then
    rm -rf "$data"; mkdir -p "$data"; chown postgres:postgres "$data"
    su postgres -c "$bin/initdb -D $data -A trust -U postgres" >/dev/null
  fi
  su postgres -c "$bin/pg_ctl -D $data -l $data/log -o '-c listen_addresses=127.0.0.1 -p 5432 -c max_connections=200' -w start" >/dev/null
fi
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_roles WHERE rolname='sdp'" | grep -q 1 ||
  psql -h 127.0.0.1 -U postgres -qc "CREATE ROLE sdp LOGIN SUPERUSER PASSWORD 'sdp'"
psql -h 127.0.0.1 -U postgres -tAc "SELECT 1 FROM pg_database WHERE datname='sdp'" | grep -q 1 ||
  psql -h 127.0.0.1 -U postgres -qc "CREATE DATABASE sdp OWNER sdp"
echo "== PostgreSQL ready on 127.0.0.1:5432"
