#!/usr/bin/env bash
# Usage: lib/run/clienthosts-fanout.sh [--hold] [--split N] [--machine WORDS] OUT_PREFIX SHELL DIRS HELPER ARG...
# Runs HELPER (one of the kit's load helpers, deployed by lib/run/clienthosts.sh) on every client
# host at once: `SHELL HOST DIR/HELPER -A DIR/credentials ARG...` for each 'HOST=DIR' word of
# DIRS; each host's line goes to OUT_PREFIX.client-TAG.json (TAG: clienthosts_tag HOST; its
# stderr to .err beside it), the merged line (lib/run/clienthosts.jq) to stdout; a host that printed
# no single JSON object gets a failure line naming it. In an ARG, '@HOST@' becomes the host's
# tag (a folder of its own on the share) and, with --split N, '@SPLIT@' the host's share of N
# (N / hosts, the first N % hosts one more; a host whose share is 0 does not run). The '-' in
# the file name keeps the per-host lines out of the count check (NAME.json, NAME.N.json only).
# --machine: which hosts are this machine, 'HOST=this|other|unknown ...' (the state's
# KIT_CLIENT_MACHINE, lib/run/clienthosts.sh); each host's figures in the merged line then say
# it (this_machine), and a host it does not name is unknown.
# --hold (smb-hold): each host's stdin is a pipe kept open; the merged line is printed once
# every host printed its line (or ended), then the hosts hold until this script's stdin ends,
# and that end is passed on to every host (smb-hold lets go).
# Exit status: 0 every host's helper exited 0, 1 otherwise. TERM/INT/HUP end every host's run.
set -uo pipefail

hold=0 split='' machine=''
while [[ ${1:-} == --* ]]; do
  case $1 in
    --hold) hold=1 && shift ;;
    --split) split=$2 && shift 2 ;;
    --machine) machine=$2 && shift 2 ;;
    *) echo "clienthosts-fanout: unknown option '$1'" >&2 && exit 2 ;;
  esac
done
out=$1 shell=$2 hostdirs=$3 helper=$4
shift 4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
# shellcheck source=lib/run/clienthosts.sh
. "$here/run/clienthosts.sh"
read -ra pre <<<"$shell"
read -ra pairs <<<"$hostdirs"
pids=() hosts=() files=() fds=()
trap 'kill -TERM "${pids[@]}" 2>/dev/null' TERM INT HUP
fifos=''
if ((hold)); then
  fifos=$(mktemp -d) || exit 1
  exec 3<&0
fi
for i in "${!pairs[@]}"; do
  host=${pairs[i]%%=*} dir=${pairs[i]#*=}
  tag=$(clienthosts_tag "$host")
  args=("${@//@HOST@/$tag}")
  if [[ -n $split ]]; then
    share=$((split / ${#pairs[@]} + (i < split % ${#pairs[@]} ? 1 : 0)))
    ((share > 0)) || continue
    args=("${args[@]//@SPLIT@/$share}")
  fi
  f=$out.client-$tag.json
  if ((hold)); then
    mkfifo -m 0600 "$fifos/$i" || exit 1
    # the host's own pipe only: one that kept another host's open would hold that host too
    (
      for fd in "${fds[@]}"; do exec {fd}>&-; done
      exec 3<&-
      exec "${pre[@]}" "$host" "$dir/$helper" -A "$dir/credentials" "${args[@]}"
    ) >"$f" 2>"${f%.json}.err" <"$fifos/$i" &
    pids+=("$!")
    exec {fd}>"$fifos/$i"
    fds+=("$fd")
  else
    "${pre[@]}" "$host" "$dir/$helper" -A "$dir/credentials" "${args[@]}" >"$f" 2>"${f%.json}.err" </dev/null &
    pids+=("$!")
  fi
  hosts+=("$host") files+=("$f")
done
[[ -z $fifos ]] || rm -rf "$fifos"

# check_line I: the host's file holds one JSON object, else a failure line naming the host.
check_line() {
  local f=${files[$1]}
  if ! jq -se 'length == 1 and (.[0] | type) == "object"' "$f" >/dev/null 2>&1; then
    jq -cn --arg h "$helper" --arg host "${hosts[$1]}" \
      '{helper: $h, ok: false, error: "\($h) gave no result on \($host)"}' >"$f"
  fi
}
merge() {
  jq -cs -L "$here" --arg m "$machine" 'include "run/clienthosts"; ch_merge($ARGS.positional; $m | ch_machine)' \
    "${files[@]}" --args "${hosts[@]}"
}

rc=0
if ((hold)); then
  # every host printed its line (all held) or ended
  while :; do
    n=0
    for i in "${!pids[@]}"; do
      if [[ -s ${files[i]} ]] || ! kill -0 "${pids[i]}" 2>/dev/null; then n=$((n + 1)); fi
    done
    ((n < ${#pids[@]})) || break
    sleep 0.1
  done
  sleep 0.2 # a line being written
  for i in "${!pids[@]}"; do check_line "$i"; done
  merge || rc=1
  # hold until our stdin ends, then let every host go
  cat <&3 >/dev/null &
  wait "$!"
  for fd in "${fds[@]}"; do exec {fd}>&-; done
fi
for i in "${!pids[@]}"; do
  wait "${pids[i]}" || rc=1
  f=${files[i]}
  [[ -s ${f%.json}.err ]] || rm -f "${f%.json}.err"
  ((hold)) || check_line "$i"
done
((hold)) || merge || rc=1
exit "$rc"
