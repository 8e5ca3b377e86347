#!/usr/bin/env bats
# The fio metrics through two client hosts (issue 23), in the qemu guest where the kernel has
# cifs (tests/guest/clienthosts-fio.sh: two network namespaces on 198.18.0.0/15, each with its
# own cifs mount and fio server; start-samba.sh, test-samba.sh randread randwrite,
# cleanup). Checks each host's and the merged figures, fio's shape for the verdicts,
# and smbd's count of reads and writes against the clients' sum. Skips like guest.bats when the guest cannot run (REQUIRE_GUEST=1
# fails instead); GUEST_TEST_OUT=DIR keeps the results, GUEST_TEST_REUSE=DIR asserts on them.

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  local reason='' out
  if [[ -n ${GUEST_TEST_REUSE:-} ]]; then
    export GUEST_TEST_OUT=$GUEST_TEST_REUSE
    return 0
  fi
  out=${GUEST_TEST_OUT:-$BATS_FILE_TMPDIR/guest results}
  export GUEST_TEST_OUT=$out
  rm -rf "$out"
  mkdir -p "$out"
  if [[ $(id -u) -ne 0 ]]; then
    reason="needs root"
  elif ! "$KIT_ROOT/tests/guest/run-guest.sh" -c 2>"$out/check.log"; then
    reason=$(sed 's/^run-guest: error: //' "$out/check.log")
  elif ! "$KIT_ROOT/tests/guest/prepare-guest.sh" >/dev/null 2>"$out/prepare.log"; then
    reason="cannot prepare the guest kernel: $(grep -m1 'error:' "$out/prepare.log" || tail -n 1 "$out/prepare.log")"
  fi
  if [[ -n $reason ]]; then
    [[ ${REQUIRE_GUEST:-0} != 1 ]] || return 1
    printf '%s\n' "$reason" >"$BATS_FILE_TMPDIR/skip-reason"
    return 0
  fi
  make -s -C "$KIT_ROOT/helpers" >/dev/null 2>&1 || true
  local rc=0
  (cd "$KIT_ROOT" && timeout -k 30 1200 tests/guest/run-guest.sh -t 1200 -r "$out" -- tests/guest/clienthosts-fio.sh) \
    >"$out/harness.log" 2>&1 || rc=$?
  echo "$rc" >"$out/harness-status"
  echo "# guest: $(cat "$out/guest-timing.json" 2>/dev/null || echo 'no timing')" >&3
}

setup() {
  load ../test_helper/common-setup
  _common_setup
  [[ ! -f $BATS_FILE_TMPDIR/skip-reason ]] || skip "$(cat "$BATS_FILE_TMPDIR/skip-reason")"
  OUT=$GUEST_TEST_OUT/clienthosts
  RAW=$OUT/run/raw
}

@test "client hosts in the guest: start, the fio metrics and cleanup did their jobs" {
  run cat "$GUEST_TEST_OUT/harness-status"
  [[ $output == 0 ]] || tail -n 30 "$GUEST_TEST_OUT/harness.log" "$OUT/steps.tsv" "$OUT"/steps/*.log
  assert_output 0
  run cut -f1,2 "$OUT/steps.tsv"
  assert_output --regexp $'^start\t0\ntest\t[01]\ncleanup\t0$'
  # each host had its own cifs mount, seen by its fio server
  run grep -c '^  mount: //198\.1[89]\.[0-9.]*/perftest /tmp/samba-perf-test-client\.[^ ]*/mnt$' "$OUT/after-start.txt"
  assert_output 2
  # cleanup left no fio server, hence no mount, and the namespaces went
  run grep -c '^fio server' "$OUT/after-cleanup.txt"
  assert_output 0
  run cat "$OUT/netns-left.txt"
  assert_output ''
}

# the fio metrics clienthosts-fio.sh runs through the client hosts, and their direction
CH_METRICS='randread:read randwrite:write'

@test "client hosts in the guest: the fio metrics measured from both hosts, per host and merged" {
  local m d hosts
  hosts=$(sed -n 's/^hosts: //p' "$OUT/hosts.txt")
  for m in $CH_METRICS; do
    d=${m#*:} m=${m%:*}
    run jq -r '[.status, (.value > 0), (.details.client_hosts | length), (.details.notes | any(startswith("Client hosts (2,")))] | @tsv' \
      "$OUT/run/metrics/$m.json"
    assert_output --regexp $'^(PASS|FAIL)\ttrue\t2\ttrue$'
    # each host did its requests, the merged ios are their sum, fio's shape (the verdicts' input) the same
    run jq -r --arg d "$d" --slurpfile f "$RAW/$m.fio.json" '[(.client_hosts | map(.host) | join(" ")),
      (.client_hosts | all(.ok and .[$d].ios > 0 and .[$d].lat_ms.p50 > 0)),
      (.merged[$d].ios == (.client_hosts | map(.[$d].ios) | add)), (.merged[$d].ios == $f[0].jobs[0][$d].total_ios),
      (.fairness.hosts == 2 and .fairness.jain > 0 and .fairness.jain <= 1), (.merged[$d].lat_ms.p99 >= .merged[$d].lat_ms.p50)] | @tsv' \
      "$RAW/$m.clients.json"
    assert_output "$hosts"$'\ttrue\ttrue\ttrue\ttrue\ttrue'
    # each host's fio CPU, measured there (its jobs' getrusage), in the metric's CPU details
    run jq -r '.details.cpu.client_hosts | [.measured, .by, (.hosts | length), all(.hosts[]; .cpu_s > 0)] | @tsv' "$OUT/run/metrics/$m.json"
    assert_output $'true\tfio\t2\ttrue'
    # shown, not judged: how alike the hosts were served (a real finding, not the kit's check)
    jq -r --arg m "$m" --arg d "$d" '"# \($m): " + ([.client_hosts[] | "\(.host) \(.[$d].ios) ios in \(.runtime_s) s"] | join(", ")) + "; Jain \(.fairness.jain)"' \
      "$RAW/$m.clients.json" >&3
  done
}

@test "client hosts in the guest: smbd's reads and writes = the clients' total requests (within 1 %)" {
  # fio counts the requests that completed; the kernel client sends each direct read or write of
  # a block up to rsize/wsize as one SMB2 READ or WRITE, so smbd's calls over the run equal the
  # hosts' sum, give or take what was in flight when fio stopped (at most jobs x iodepth per
  # host) and the server view's own 1 % (lib/run/serverview.jq sv_tolerance_pct)
  local m d c s
  for m in $CH_METRICS; do
    d=${m#*:} m=${m%:*}
    run jq -r '.details.count_check | "\(.client) \(.server) \(.ok)"' "$OUT/run/metrics/$m.json"
    read -r c s _ <<<"$output"
    echo "# $m: clients $c, smbd $s" >&3
    [[ $c == "$(jq --arg d "$d" '.merged[$d].ios' "$RAW/$m.clients.json")" ]] || fail "$m: the count check's client count $c is not the hosts' sum"
    assert_output --regexp ' true$'
    (((s - c) * 100 <= c && (c - s) * 100 <= c)) || fail "$m: smbd $s against clients $c"
  done
}
