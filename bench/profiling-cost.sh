#!/usr/bin/env bash
# Usage: sudo bench/profiling-cost.sh [-c clients] [-d seconds] [-r rounds]
# Summary: what 'smbd profiling level' costs: smbd CPU per 4 KiB read (smb-readers against a
#          private smbd) with the level off, count and on, in alternating order, -r rounds
#          (4) of -d seconds (5) with -c clients (2). Not a test: it prints one line per run
#          and a table (median per level, and its difference from 'off').
#
# The private smbd (log level 0) runs on a free port in 4470-4499 in a cgroup v2 group of its
# own and is started again for each run with the level in its smb.conf; its CPU is the group's
# (cgcpu -g) while the readers ran, plus half a second for the workers to exit.
set -euo pipefail

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
H=$BENCH_ROOT/helpers
TMP=
CGS=

die() {
  echo "profiling-cost: $*" >&2
  exit 1
}

usage() {
  sed -n 's/^# \{0,1\}//; 2,6p' "${BASH_SOURCE[0]}"
  exit "${1:-2}"
}

cost_cleanup() {
  set +e
  [[ -n $TMP ]] && helpers_smbd_stop "$TMP/smbd"
  local i
  if [[ -n $CGS && -d $CGS ]]; then
    for ((i = 0; i < 50; i++)); do
      rmdir "$CGS" 2>/dev/null && break
      sleep 0.1
    done
  fi
  [[ -n $TMP ]] && rm -rf "$TMP"
}

# cost_start LEVEL PORT: (re)start the private smbd inside CGS with 'smbd profiling level = LEVEL'
cost_start() {
  local i
  helpers_smbd_stop "$TMP/smbd"
  for ((i = 0; i < 250; i++)); do
    ss -Hltn "sport = :$2" | grep -q . || break
    sleep 0.02
  done
  sed -i "s/^\( *smbd profiling level = \).*/\1$1/" "$SMBD_CONF"
  # shellcheck disable=SC2016 # expanded by the inner bash
  bash -c 'echo $BASHPID >"$1/cgroup.procs" && exec smbd -D -s "$2" </dev/null' _ "$CGS" "$SMBD_CONF"
  for ((i = 0; i < 500; i++)); do
    ss -Hltn "sport = :$2" | grep -q . && return 0
    sleep 0.02
  done
  die "smbd did not listen again on port $2"
}

# cost_run LEVEL: one measured run; prints "LEVEL OPS SMBD_US"
cost_run() {
  local out=$TMP/readers.json cpu
  # shellcheck disable=SC2016 # expanded by the inner bash
  cpu=$("$H/cgcpu" -g "$CGS" -- bash -c '"$@" >"$0"; rc=$?; sleep 0.5; exit $rc' "$out" \
    "$H/smb-readers" -A "$SMBD_CREDS" -c "$clients" -d "$seconds" -b 4096 "$UNC/data.0")
  jq -e '.ok' "$out" >/dev/null || die "smb-readers failed: $(cat "$out")"
  printf '%s %s %s\n' "$1" "$(jq .ops "$out")" "$(jq .cpu_us <<<"$cpu")"
}

main() {
  local seconds=5 clients=2 rounds=4 opt port v2 r i level line
  local -a order=(off count on) lines=()
  while getopts c:d:hr: opt; do
    case $opt in
      c) clients=$OPTARG ;;
      d) seconds=$OPTARG ;;
      h) usage 0 ;;
      r) rounds=$OPTARG ;;
      *) usage ;;
    esac
  done
  [[ $(id -u) -eq 0 ]] || die "needs root (smbd, cgroups)"
  for opt in smbd pdbedit jq make; do
    command -v "$opt" >/dev/null || die "'$opt' is not installed"
  done
  # shellcheck source-path=SCRIPTDIR/.. source=tests/helpers/smbd-setup.bash
  source "$BENCH_ROOT/tests/helpers/smbd-setup.bash"
  make -s -C "$H" >&2
  v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
  [[ -n $v2 ]] || die "no cgroup2 mount"

  TMP=$(mktemp -d /tmp/profiling-cost.XXXXXX)
  trap cost_cleanup EXIT
  chmod 755 "$TMP"
  for ((port = 4470; port <= 4499; port++)); do
    ss -Hltn "sport = :$port" | grep -q . || break
  done
  ((port <= 4499)) || die "no free port in 4470-4499"
  HELPERS_SMBD_QUIET=1 helpers_smbd_start "$TMP/smbd" "$port" || die "smbd did not start"
  CGS=$v2/profiling-cost-smbd-$$
  mkdir "$CGS"
  UNC=//127.0.0.1:$port/perf
  head -c 64M /dev/urandom >"$SMBD_SHARE/data.0"
  chmod 644 "$SMBD_SHARE/data.0"

  echo "profiling-cost: $(nproc) CPUs, smbd $(smbd -V | cut -d' ' -f2), $clients readers," \
    "$seconds s per run, $rounds rounds; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-6s %10s %12s %14s\n' level reads "smbd CPU us" "us per read"
  for ((r = 0; r < rounds; r++)); do
    for ((i = 0; i < 3; i++)); do
      level=${order[(r + i) % 3]}
      cost_start "$level" "$port"
      "$H/smb-readers" -A "$SMBD_CREDS" -c 1 -d 1 -b 4096 "$UNC/data.0" >/dev/null # warm up
      line=$(cost_run "$level")
      lines+=("$line")
      awk '{ printf "%-6s %10d %12d %14.2f\n", $1, $2, $3, $3 / $2 }' <<<"$line"
    done
  done
  echo
  printf '%s\n' "${lines[@]}" | jq -R -r -s '
    [splits("\n") | select(length > 0) | split(" ") | {level: .[0], per: ((.[2] | tonumber) / (.[1] | tonumber))}]
    | group_by(.level) | map({level: .[0].level, runs: length, all: (map(.per) | sort)})
    | map(.median = (.all | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end))
    | (map(select(.level == "off"))[0].median) as $off
    | ["| smbd profiling level | runs | smbd CPU per 4 KiB read, median (µs) | min - max (µs) | against off |",
       "|---|---:|---:|---:|---:|",
       (sort_by(.level as $l | ["off", "count", "on"] | index($l))[]
        | "| \(.level) | \(.runs) | \(.median * 100 | round / 100) | \(.all[0] * 100 | round / 100) - \(.all[-1] * 100 | round / 100) | \(if .level == "off" then "-" else "\((.median / $off - 1) * 1000 | round / 10) %" end) |")]
    | .[]'
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
