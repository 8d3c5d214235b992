#!/usr/bin/env bash
# Re-records examples/<target>/recording (target `agents`, the default, or `experiment`):
# every case of that example target played live by the six pinned agent CLIs against
# skillgym's scripted model (`--mock`), inside a loopback-only network namespace, then packed
# with `cargo skillgym record`.
#
# Needs root (for `unshare -n`), npm (`.ci/install-agents` installs the CLIs into a cache) and
# iproute2. Nothing leaves 127.0.0.1: the namespace has no other interface.
#
# Usage: examples/agents/record.sh [agents|experiment]
# Then run `cargo test -p skillgym-examples --test agents`: a token figure that moved beyond the
# snapshot tolerance fails there until `cargo skillgym review --config examples/agents/skillgym.yaml`
# accepts it.
set -euo pipefail

target=${1:-agents}
case "$target" in agents | experiment) ;; *) echo "record.sh: unknown target \`$target\` (agents or experiment)" >&2; exit 2 ;; esac
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
agents_bin=$("$root/.ci/install-agents")
cargo build -q -p cargo-skillgym
exe=$(cargo test -p skillgym-examples --test "$target" --no-run 2>&1 |
  sed -n "s/.*(\(target\/[^)]*\/$target-[0-9a-f]*\)).*/\1/p" | tail -1)
[ -x "$exe" ] || { echo "record.sh: cannot find the $target test binary" >&2; exit 1; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
mkdir -p "$scratch/home" "$scratch/runs"

# A fresh home (no user skills, no credentials); npm offline, so a command such as
# `npx skills find` fails at once instead of retrying a registry it cannot reach.
env -u SKILLGYM_RUN_ID PATH="$agents_bin:$PATH" HOME="$scratch/home" \
  CARGO_MANIFEST_DIR="$root/examples" npm_config_offline=true SKILLGYM_RUN_ID=recording \
  unshare -n -- sh -c 'ip link set lo up && cd "$0" && exec "$@"' "$root/examples" \
  "$root/$exe" --config "$root/examples/$target/record.yaml" --mock \
  --output-dir "$scratch/runs"

"$root/target/debug/cargo-skillgym" skillgym record "$scratch/runs/recording" \
  "$root/examples/$target/recording" --force
