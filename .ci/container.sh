#!/usr/bin/env bash
# Builds the server's image (packaging/container/Containerfile) with Debian's podman, from nothing but
# Debian's archive, the npm registry and this machine's Node, and leaves its name in
# node_modules/.cache/sdp/container-image.json for packages/server/src/container-image.e2e.spec.ts.
#
# Two kinds of failure. Where the machine cannot run containers (no apt, podman does not start, no
# namespaces or cgroups for it, Debian's archive out of reach) the script names the step that failed,
# writes that reason instead of an image and exits 0: the spec skips with it. Once podman has run a
# container here, a failure to build our image is ours, and the script exits non-zero.
#
# SDP_CI_CONTAINER=off skips it all; SDP_CI_CACHE (default /var/cache/sdp-ci) keeps the Debian root
# between runs on one machine.
set -uo pipefail
cd "$(dirname "$0")/.."

STATE=node_modules/.cache/sdp/container-image.json
IMAGE=localhost/sdp-ci
BASE=localhost/sdp-ci-base
CACHE="${SDP_CI_CACHE:-/var/cache/sdp-ci}"
mkdir -p "$(dirname "$STATE")"
rm -f "$STATE" # a run that ends without an image must not leave an older one named

# Writes the state file: a JSON object from the KEY VALUE pairs given (values that are JSON arrays stay arrays).
state() {
  node -e '
    const [file, ...kv] = process.argv.slice(1); const o = {};
    for (let i = 0; i < kv.length; i += 2) o[kv[i]] = kv[i + 1].startsWith("[") ? JSON.parse(kv[i + 1]) : kv[i + 1];
    require("fs").writeFileSync(file, JSON.stringify(o, null, 2) + "\n");' "$STATE" "$@"
}
skip() {
  echo "== container: skipped, no image: $1"
  state skipped "$1"
  exit 0
}
fail() {
  echo "== container: FAILED: $1" >&2
  exit 1
}
# A step's output goes to a log; on failure its last lines are shown. Times are printed per step.
LOG="$(mktemp -d)"
trap 'rm -rf "$LOG"' EXIT
T0=$SECONDS
step() { # step NAME COMMAND...: runs it, prints its time; returns its status
  local name="$1" t=$SECONDS rc
  shift
  "$@" >"$LOG/$name.log" 2>&1
  rc=$?
  echo "== container: $name $([ $rc = 0 ] && echo ok || echo "failed ($rc)") in $((SECONDS - t)) s"
  if [ $rc != 0 ]; then tail -n "${TAIL:-15}" "$LOG/$name.log" | sed 's/^/   | /'; fi
  return $rc
}
last_line() { grep -v '^\s*$' "$LOG/$1.log" | tail -n 1; }

if [ "${SDP_CI_CONTAINER:-}" = off ]; then skip "SDP_CI_CONTAINER=off"; fi
if [ "$(id -u)" != 0 ]; then skip "not root (the build runs rootful podman and debootstrap)"; fi

# --- The environment: any failure here skips. ---
. /etc/os-release 2>/dev/null || true
if [ "${ID:-}" != debian ] || [ -z "${VERSION_CODENAME:-}" ]; then
  skip "not a Debian machine (/etc/os-release ID=${ID:-?}): the base image is this release of Debian, from the machine's apt sources"
fi
SUITE="$VERSION_CODENAME"

install_tools() {
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq && apt-get install -y -qq podman debootstrap runc
}
if ! command -v podman >/dev/null || ! command -v debootstrap >/dev/null || ! command -v runc >/dev/null; then
  command -v apt-get >/dev/null || skip "no apt-get to install podman, debootstrap and runc"
  step install install_tools || skip "apt-get install podman debootstrap runc: $(last_line install)"
fi
echo "== container: $(podman --version)"
step podman-info podman info || skip "podman info: $(last_line podman-info)"

# Debian's archive as this machine's apt reaches it, read here so no address is written down anywhere.
mirror() {
  local f
  for f in /etc/apt/sources.list.d/*.sources; do
    [ -f "$f" ] && awk '/^URIs:/ { print $2; exit }' "$f"
  done | head -n 1
  [ -f /etc/apt/sources.list ] && awk '$1 == "deb" && $0 !~ /security/ { for (i = 2; i <= NF; i++) if ($i ~ /^[a-z]+:\/\//) { print $i; exit } }' /etc/apt/sources.list
}
MIRROR="$(mirror | head -n 1)"
[ -n "$MIRROR" ] || skip "no Debian archive in /etc/apt/sources.list.d/*.sources or /etc/apt/sources.list"

# The minimal Debian root, kept between runs (about 40 s to make, 200 MB).
ARCH="$(dpkg --print-architecture)"
ROOTFS="$CACHE/$SUITE-minbase-$ARCH"
if [ ! -f "$ROOTFS/.complete" ]; then
  rm -rf "$ROOTFS" "$ROOTFS.partial" && mkdir -p "$CACHE" || skip "cannot write the cache $CACHE"
  step debootstrap debootstrap --variant=minbase "$SUITE" "$ROOTFS.partial" "$MIRROR" ||
    skip "debootstrap --variant=minbase $SUITE from the machine's Debian archive: $(last_line debootstrap)"
  rm -rf "$ROOTFS.partial"/var/cache/apt/archives/*.deb
  mv "$ROOTFS.partial" "$ROOTFS" && touch "$ROOTFS/.complete"
else
  echo "== container: Debian $SUITE root from $ROOTFS"
fi

# This machine's Node goes in (the image builds with the Node the tests run on, and the archive of an
# older release may have none recent enough), with npm, Node's headers for node-gyp, and the registry
# and CA bundle npm uses here.
NODE_BIN="$(readlink -f "$(command -v node)")"
PREFIX="$(dirname "$(dirname "$NODE_BIN")")"
REGISTRY="$(npm config get registry)"
CAFILE="$(npm config get cafile)"
case "$CAFILE" in '' | null | undefined) CAFILE="${NODE_EXTRA_CA_CERTS:-/etc/ssl/certs/ca-certificates.crt}" ;; esac
# The base is made again only when one of its inputs changed, so podman's layer cache (npm ci) holds.
KEY="$( (
  echo "$SUITE $ARCH $REGISTRY"
  stat -c %Y "$ROOTFS/.complete"
  sha256sum "$NODE_BIN" "$CAFILE"
  cat "$PREFIX/lib/node_modules/npm/package.json"
) | sha256sum | cut -c1-16)"
if [ "$(podman image inspect --format '{{index .Config.Labels "sdp.base"}}' "$BASE" 2>/dev/null)" = "$KEY" ]; then
  echo "== container: base image $BASE is current ($KEY)"
else
  STAGE="$(mktemp -d /var/tmp/sdp-ci-base.XXXXXX)"
  trap 'rm -rf "$LOG" "$STAGE"' EXIT
  stage_base() {
    cp -a "$ROOTFS/." "$STAGE/" &&
      rm -f "$STAGE/.complete" &&
      mkdir -p "$STAGE/usr/lib/node_modules" "$STAGE/usr/include" "$STAGE/usr/etc" "$STAGE/etc/ssl" &&
      install -m 0755 "$NODE_BIN" "$STAGE/usr/bin/node" &&
      cp -a "$PREFIX/lib/node_modules/npm" "$STAGE/usr/lib/node_modules/" &&
      ln -sf ../lib/node_modules/npm/bin/npm-cli.js "$STAGE/usr/bin/npm" &&
      ln -sf ../lib/node_modules/npm/bin/npx-cli.js "$STAGE/usr/bin/npx" &&
      cp -a "$PREFIX/include/node" "$STAGE/usr/include/" &&
      cp "$CAFILE" "$STAGE/etc/ssl/host-ca.crt" &&
      printf 'cafile=/etc/ssl/host-ca.crt\nnodedir=/usr\nregistry=%s\nfund=false\naudit=false\nupdate-notifier=false\n' "$REGISTRY" >"$STAGE/usr/etc/npmrc"
  }
  # A failure to put this machine's Node into the root is the script's, not the machine's.
  step base-root stage_base || fail "the Debian root with this machine's Node ($NODE_BIN, npm and headers from $PREFIX)"
  import_base() {
    tar -C "$STAGE" -c . | podman import --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/host-ca.crt' --change "LABEL sdp.base=$KEY" - "$BASE"
  }
  step base-image import_base || skip "podman import of the Debian root with Node: $(last_line base-image)"
  rm -rf "$STAGE"
fi

# A trivial container, with the fewest flags that work here: some machines need cgroupfs and runc (hybrid
# cgroups), or fixed ulimits (no CAP_SYS_RESOURCE to raise them).
GLOBAL=()
RUN=()
probe() {
  local g r
  for g in '' '--cgroup-manager cgroupfs --runtime runc'; do
    for r in '' '--ulimit nofile=1024:1024 --ulimit nproc=1024:1024'; do
      # shellcheck disable=SC2086 # the flags are words
      if podman $g run --rm --network host $r "$BASE" /bin/true; then
        read -ra GLOBAL <<<"$g"
        read -ra RUN <<<"$r"
        return 0
      fi
    done
  done
  return 1
}
step run-trivial probe || skip "podman run of a trivial container, with or without cgroupfs, runc and fixed ulimits: $(last_line run-trivial)"
echo "== container: podman ${GLOBAL[*]} run ${RUN[*]} works here"

# --- Our image: from here a failure fails CI. ---
OLD="$(podman image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)"
# The npm cache this machine's own `npm ci` filled, lent to the build's through an overlay (what it writes
# there is thrown away): its downloads come from disk, a third less time for that step on two cores.
NPM_CACHE="$(npm config get cache)"
MOUNTS=()
if [ -d "$NPM_CACHE/_cacache" ]; then MOUNTS=(--volume "$NPM_CACHE:/root/.npm:O"); fi
build() { # each line of the log with the seconds since the build began
  local t=$SECONDS
  podman "${GLOBAL[@]}" build --network host "${RUN[@]}" "${MOUNTS[@]}" -f packaging/container/Containerfile \
    --build-arg BASE_IMAGE="$BASE" -t "$IMAGE" . 2>&1 |
    while IFS= read -r line; do printf '%4d s  %s\n' $((SECONDS - t)) "$line"; done
}
# Once more without the borrowed cache when the first build fails: a machine whose podman cannot mount an
# overlay, or a registry that dropped a download, should not fail CI; a second failure is ours.
if ! TAIL=80 step build build; then
  MOUNTS=()
  TAIL=80 step build build || fail "podman build -f packaging/container/Containerfile (the end of its log above)"
fi
# When each step of the Containerfile began, to see where the time goes.
grep -E '^ *[0-9]+ s  (\[[0-9/]+\] )?STEP ' "$LOG/build.log" | cut -c1-110 | sed 's/^/   | /'
NEW="$(podman image inspect --format '{{.Id}}' "$IMAGE")"
# What earlier runs left: the image this one replaces, and their build stages and bases (untagged, with
# our label). This run's build stage stays: its npm ci layer is the next build's cache.
if [ -n "$OLD" ] && [ "$OLD" != "$NEW" ]; then podman rmi "$OLD" >/dev/null 2>&1 || true; fi
podman images --noheading --filter dangling=true --filter label=sdp.base --format '{{.CreatedAt}} {{.ID}}' |
  sort -r | tail -n +2 | awk '{ print $NF }' | xargs -r podman rmi >/dev/null 2>&1 || true

json_array() { node -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- "$@"; }
state image "$IMAGE" podman "$(json_array "${GLOBAL[@]}")" run "$(json_array "${RUN[@]}")"
echo "== container: $IMAGE built ($(podman image inspect --format '{{.Size}}' "$IMAGE" | awk '{ printf "%d MB", $1 / 1e6 }')) in $((SECONDS - T0)) s; named in $STATE"
