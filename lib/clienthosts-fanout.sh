#!/usr/bin/env bash
# Usage: lib/clienthosts-fanout.sh OUT_PREFIX SHELL DIRS HELPER ARG...
# Runs HELPER (one of the kit's load helpers, deployed by lib/clienthosts.sh) on every client
# host at once: `SHELL HOST DIR/HELPER -A DIR/credentials ARG...` for each 'HOST=DIR' word of
# DIRS; each host's line goes to OUT_PREFIX.client-HOST.json (its stderr to .err beside it),
# the merged line (lib/clienthosts.jq) to stdout; a host that printed no single JSON object gets
# a failure line naming it. An ARG's '@HOST@' becomes the host's tag (clienthosts_tag: a folder
# of its own on the share). The '-' in the file name keeps the per-host
# lines out of the count check, which reads NAME.json and NAME.N.json only.
# Exit status: 0 every host's helper exited 0, 1 otherwise. TERM/INT/HUP end every host's run.
set -uo pipefail

out=$1 shell=$2 hostdirs=$3 helper=$4
shift 4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=lib/clienthosts.sh
. "$here/clienthosts.sh"
read -ra pre <<<"$shell"
pids=() hosts=() files=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null' TERM INT HUP
for pair in $hostdirs; do
  host=${pair%%=*} dir=${pair#*=}
  tag=$(clienthosts_tag "$host")
  f=$out.client-$tag.json
  "${pre[@]}" "$host" "$dir/$helper" -A "$dir/credentials" "${@//@HOST@/$tag}" >"$f" 2>"${f%.json}.err" </dev/null &
  pids+=("$!") hosts+=("$host") files+=("$f")
done
rc=0
for i in "${!pids[@]}"; do
  wait "${pids[i]}" || rc=1
  f=${files[i]}
  [[ -s ${f%.json}.err ]] || rm -f "${f%.json}.err"
  if ! jq -se 'length == 1 and (.[0] | type) == "object"' "$f" >/dev/null 2>&1; then
    jq -cn --arg h "$helper" --arg host "${hosts[i]}" \
      '{helper: $h, ok: false, error: "\($h) gave no result on \($host)"}' >"$f"
  fi
done
jq -cs -L "$here" 'include "clienthosts"; ch_merge($ARGS.positional)' "${files[@]}" --args "${hosts[@]}" || rc=1
exit "$rc"
