#!/bin/sh
# What the image runs. Every setting can also come from the SDP_* variables `sdp serve --help` lists;
# only the three a container needs differently from a laptop get other defaults here.
#   podman run IMAGE                        -> sdp serve (flags may follow: IMAGE --clock manual)
#   podman run IMAGE accounts create alice  -> any other sdp subcommand, against the same store
set -eu

# 127.0.0.1 inside the container is unreachable through a published port.
export SDP_HOST="${SDP_HOST:-0.0.0.0}"
export SDP_PORT="${SDP_PORT:-8080}"
# On the volume, so accounts and events outlive the container.
export SDP_STORE="${SDP_STORE:-sqlite:/data/sdp.db}"

# Overridable so the script can be tested outside the image, against a checkout's sources.
cli="${SDP_CLI:-/app/packages/server/dist/cli.js}"

case "${1:-}" in
  '' | -*) set -- serve "$@" ;;
esac
# exec: node becomes PID 1 and receives the runtime's SIGTERM itself, which `sdp serve` answers with a clean stop.
exec node "$cli" "$@"
