#!/usr/bin/env bash
# Usage: sudo bench/profiling-cost.sh [-c clients] [-d seconds] [-r rounds]
# Summary: what 'smbd profiling level' costs: smbd CPU per 4 KiB read (smb-readers) of an smbd
#          with the level count or on, measured AT THE SAME TIME as a twin smbd with the level
#          off, -r rounds (4) of -d seconds (5) with -c clients (1) each. Not a test: it prints
#          one line per run and a table (median per level; median of the paired ratios).
#
# Two private smbds (log level 0) run on two free ports in 4470-4499, each in a cgroup v2 group
# of its own, and are started again for each run with the level in their smb.conf; the twins
# swap ports every round. Side by side both see the same load from the rest of this shared
# machine, so the ratio of the pair is steadier than two runs one after the other. An smbd's
# CPU is its group's (cgcpu -g) while its readers ran, plus half a second for the workers to exit.
set -euo pipefail

BENCH_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
H=$BENCH_ROOT/helpers
TMP=
CGS=()

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
  local i g
  for i in 0 1; do
    [[ -n $TMP ]] && helpers_smbd_stop "$TMP/smbd$i"
  done
  for g in "${CGS[@]}"; do
    for ((i = 0; i < 50; i++)); do
      rmdir "$g" 2>/dev/null && break
      sleep 0.1
    done
  done
  [[ -n $TMP ]] && rm -rf "$TMP"
}

# cost_port_wait PORT UP(1|0): wait until something listens on PORT (1) or nothing does (0)
cost_port_wait() {
  local i up
  for ((i = 0; i < 500; i++)); do
    up=0
    ss -Hltn "sport = :$1" | grep -q . && up=1
    ((up == $2)) && return 0
    sleep 0.02
  done
  return 1
}

# cost_start N LEVEL: (re)start twin N inside its group with 'smbd profiling level = LEVEL'
cost_start() {
  local dir=$TMP/smbd$1
  helpers_smbd_stop "$dir"
  cost_port_wait "${PORTS[$1]}" 0 || die "port ${PORTS[$1]} is still in use"
  sed -i "s/^\( *smbd profiling level = \).*/\1$2/" "$dir/smb.conf"
  # shellcheck disable=SC2016 # expanded by the inner bash
  bash -c 'echo $BASHPID >"$1/cgroup.procs" && exec smbd -D -s "$2" </dev/null' _ "${CGS[$1]}" "$dir/smb.conf"
  cost_port_wait "${PORTS[$1]}" 1 || die "smbd did not listen again on port ${PORTS[$1]}"
}

# cost_measure N OUT: readers against twin N; writes "OPS SMBD_US" to OUT
cost_measure() {
  local dir=$TMP/smbd$1 cpu
  # shellcheck disable=SC2016 # expanded by the inner bash
  cpu=$("$H/cgcpu" -g "${CGS[$1]}" -- bash -c '"$@" >"$0"; rc=$?; sleep 0.5; exit $rc' "$2.json" \
    "$H/smb-readers" -A "$dir/creds" -c "$clients" -d "$seconds" -b 4096 "//127.0.0.1:${PORTS[$1]}/perf/data.0")
  jq -e '.ok' "$2.json" >/dev/null || die "smb-readers failed: $(cat "$2.json")"
  printf '%s %s\n' "$(jq .ops "$2.json")" "$(jq .cpu_us <<<"$cpu")" >"$2"
}

main() {
  local seconds=5 clients=1 rounds=4 opt v2 r i level off on p
  local -a lines=()
  PORTS=()
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
  for ((p = 4470; p <= 4499 && ${#PORTS[@]} < 2; p++)); do
    ss -Hltn "sport = :$p" | grep -q . || PORTS+=("$p")
  done
  ((${#PORTS[@]} == 2)) || die "no two free ports in 4470-4499"
  for i in 0 1; do
    HELPERS_SMBD_QUIET=1 helpers_smbd_start "$TMP/smbd$i" "${PORTS[$i]}" || die "smbd $i did not start"
    CGS+=("$v2/profiling-cost-smbd$i-$$")
    mkdir "${CGS[$i]}"
    head -c 64M /dev/urandom >"$SMBD_SHARE/data.0"
    chmod 644 "$SMBD_SHARE/data.0"
  done

  echo "profiling-cost: $(nproc) CPUs, smbd $(smbd -V | cut -d' ' -f2), $clients reader(s) per smbd," \
    "$seconds s per run, $rounds rounds; load before: $(cut -d' ' -f1-3 /proc/loadavg)"
  printf '%-6s %10s %12s %12s   %-6s %10s %12s %12s\n' level reads "smbd CPU us" "us per read" \
    level reads "smbd CPU us" "us per read"
  for ((r = 0; r < rounds; r++)); do
    for level in count on; do
      # the twin with the level under test swaps ports every round
      on=$((r % 2)) off=$((1 - r % 2))
      cost_start "$on" "$level"
      cost_start "$off" off
      for i in 0 1; do
        "$H/smb-readers" -A "$TMP/smbd$i/creds" -c 1 -d 1 -b 4096 "//127.0.0.1:${PORTS[$i]}/perf/data.0" >/dev/null
      done
      cost_measure "$on" "$TMP/m.on" &
      cost_measure "$off" "$TMP/m.off" &
      wait
      lines+=("$level $(cat "$TMP/m.on") $(cat "$TMP/m.off")")
      awk '{ printf "%-6s %10d %12d %12.2f   %-6s %10d %12d %12.2f\n", $1, $2, $3, $3 / $2, "off", $4, $5, $5 / $4 }' \
        <<<"${lines[-1]}"
    done
  done
  echo
  printf '%s\n' "${lines[@]}" | jq -R -r -s '
    def median: sort | if length % 2 == 1 then .[length / 2 | floor] else (.[length / 2 - 1] + .[length / 2]) / 2 end;
    def r2: . * 100 | round / 100;
    [splits("\n") | select(length > 0) | split(" ") | (.[1:] | map(tonumber)) as $n
      | {level: .[0], per: ($n[1] / $n[0]), off: ($n[3] / $n[2])}] as $runs
    | ["| smbd profiling level | pairs | smbd CPU per 4 KiB read, median (µs) | same, its twin at off (µs) | against off: median of the pairs | spread of the pairs |",
       "|---|---:|---:|---:|---:|---:|",
       ($runs | group_by(.level) | sort_by(.[0].level as $l | ["count", "on"] | index($l))[]
        | (map(.per / .off - 1) | sort) as $d
        | "| \(.[0].level) | \(length) | \(map(.per) | median | r2) | \(map(.off) | median | r2) | \($d | median | . * 1000 | round / 10) % | \($d[0] * 1000 | round / 10) % .. \($d[-1] * 1000 | round / 10) % |")]
    | .[]'
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then
  main "$@"
fi
