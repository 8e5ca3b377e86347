#!/usr/bin/env bats
# Client hosts (issue 23), tried with two network namespaces on 198.18.0.0/15
# (tests/test_helper/netns.bash, remote shell `ip netns exec`): start (smbd also on
# the test address, hosts allow, the kit's prerouting rule, helpers, credentials and a fio server
# bound to its own address on each host), the fio metrics' SKIP without cifs, the login, metadata, memory and concurrency metrics
# from both hosts at once (per host, merged, fairness, smbd's count = the clients' sum; for login
# and concurrency also = the requests tshark saw on the test address; each host's client CPU and
# the report's line on the server's machine), bigdir and startup from the first host (the wire
# again; startup's clock offset), cpu's reader run split over both, and stop and cleanup leaving
# nothing on any host.
# The refusals before anything changes: clienthosts-refuse.bats.
# Runs under the shared lock (it starts a kit).

setup_file() {
  load ../test_helper/clienthosts
  # two client hosts, and a third namespace on the same link that is not one ('hosts allow')
  ch_setup_file 3 1 ch 4570 4579 127.0.0.25
}

teardown_file() {
  load ../test_helper/clienthosts
  ch_teardown_file
}

setup() {
  load ../test_helper/clienthosts
  ch_setup ip nft ss smbd
  # `ip netns exec` passes the kit's environment on (ssh would not): the client hosts' temp
  # folder is /tmp here, as on a host without TMPDIR
  export TMPDIR=/tmp
}

@test "start: smbd on the test address for the client hosts only, the prerouting rule, helpers on each host" {
  private_kit_start || fail "start failed"
  local conf addrs h
  conf=$(<"$PK_ROOT/conf/smb.conf")
  [[ $conf == *"interfaces = 127.0.0.1/8 $NETNS_ADDR/32"* ]] || fail "interfaces: $conf"
  addrs="${NETNS_ADDR%.1}.2 ${NETNS_ADDR%.1}.3"
  [[ $conf == *"hosts allow = 127.0.0.0/8 $addrs"* ]] || fail "hosts allow: $(grep 'hosts allow' <<<"$conf")"
  run nft list table ip "$PK_TABLE"
  assert_output --regexp "ip daddr $NETNS_ADDR tcp dport 445 dnat (ip )?to $NETNS_ADDR:$PK_PORT"
  assert_output --partial "hook prerouting"
  [[ $(ch_kit_dirs | wc -l) -eq 2 ]] || fail "expected 2 client host folders: $(ch_kit_dirs)"
  for h in $(ch_kit_dirs); do
    [[ $(stat -c %a "${h%/*}/credentials") == 600 ]] || fail "credentials mode: $(stat -c %a "${h%/*}/credentials")"
    [[ $(stat -c %a "${h%/*}") == 700 ]] || fail "folder mode: $(stat -c %a "${h%/*}")"
  done
  run grep -c "client host '.*': helpers in .*; it is this machine (the same boot id)$" "$PK_ROOT/start.log"
  assert_output 2
  # the namespaces share this machine's kernel: start read each host's boot id and recorded it
  run grep -x "KIT_CLIENT_MACHINE=\"${NETNS_HOSTS// /=this }=this\"" "$PK_ROOT/state/kit.env"
  assert_success
  # fio's server on each host, bound to that host's own address only (it has no authentication)
  local i=1
  for h in $NETNS_HOSTS; do
    i=$((i + 1))
    run ip netns exec "$h" ss -Hltnp 'sport = :8765'
    assert_output --regexp "^LISTEN .* ${NETNS_ADDR%.1}\.$i:8765 .*\"fio\""
    [[ ${#lines[@]} -eq 1 ]] || fail "host $h: more than one listener: $output"
  done
  # a machine on the test network that is not a client host is refused by smbd (hosts allow).
  # smbclient, not smb-wait-login: libsmbclient ends the helpers' login on a denied connection
  # with EINVAL, which smbctx_login (helpers/smbctx.c) takes for success (found here; not fixed yet)
  run ip netns exec "$CH_OTHER" timeout 20 smbclient -A "$PK_ROOT/conf/credentials" "//$NETNS_ADDR/perftest" -c ls
  assert_failure
  grep -q "Denied connection from ${NETNS_ADDR%.1}.4 " "$PK_ROOT/log/log.smbd" || fail "smbd did not deny ${NETNS_ADDR%.1}.4"
  run ip netns exec "${NETNS_HOSTS%% *}" timeout 20 smbclient -A "$PK_ROOT/conf/credentials" "//$NETNS_ADDR/perftest" -c ls
  assert_success
}

# ch_wire_run NAME METRIC: run `test-samba.sh METRIC` into $output while tshark captures the
# client hosts' SMB traffic (tests/helpers/wire.bash), and leave its SMB2 requests by command in
# $BATS_TEST_TMPDIR/NAME.req. The capture is on the bridge that holds the test address
# (netns.bash), the server side of every client host's veth link: each packet once (on 'any'
# twice, on its veth end and on the bridge), and none of the kit's own loopback traffic. A reply
# leaves with source port 445 (conntrack has undone the redirect); a request is seen on port
# 445 where the bridge hands it up untouched, but on the test port where br_netfilter is on
# (bridge-nf-call-iptables = 1, as on this machine), which runs prerouting's redirect as the
# packet enters the bridge, before the bridge's packet tap: so both ports are captured and read
# as SMB. The probes go to the first client host's address, out through the bridge.
ch_wire_run() {
  local name=$1 metric=$2 pcap=$BATS_TEST_TMPDIR/$1.pcapng
  load ../helpers/wire
  kit_require_cmd tshark
  wire_start "$pcap" "445 $PK_PORT" "${NETNS_TAG}b" "${NETNS_ADDR%.1}.2" || fail "cannot capture on ${NETNS_TAG}b"
  run "$KIT_ROOT/test-samba.sh" "$metric"
  wire_stop || fail "the capture is incomplete"
  wire_requests "$pcap" "445 $PK_PORT" >"$BATS_TEST_TMPDIR/$name.req"
}

@test "login from both client hosts at once: per host, merged, fairness, the clients' sum = smbd's count = the NEGOTIATEs on the wire" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  # the kit's own wire probe on too (lib/probes/wire.sh, on the interface of the test address)
  WIRE_PROBE=yes ch_wire_run login login
  local run_dir h
  run_dir=$(find "$PK_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
  for h in $NETNS_HOSTS; do
    [[ -s $run_dir/raw/login.client-$h.json ]] || fail "no line of host $h: $(ls "$run_dir/raw")"
    jq -e '.ok == true and .ops > 0' "$run_dir/raw/login.client-$h.json" >/dev/null ||
      fail "host $h: $(cat "$run_dir/raw/login.client-$h.json")"
  done
  # merged: ops and rates add up, two hosts, a fairness line
  run jq -r --slurpfile a "$run_dir/raw/login.client-${NETNS_HOSTS%% *}.json" \
    --slurpfile b "$run_dir/raw/login.client-${NETNS_HOSTS##* }.json" '
    [(.ops == $a[0].ops + $b[0].ops), (.workers == 4), (.client_hosts | length == 2),
     ((.rate_per_s - $a[0].rate_per_s - $b[0].rate_per_s) | fabs < 0.01),
     (.fairness.jain > 0.5 and .fairness.jain <= 1), (.hist.counts | add) == .ops + .late_ops,
     (.lat_ms.p95 >= .lat_ms.p50)] | all' "$run_dir/raw/login.json"
  assert_output true
  # smbd's own count of logins against the clients' sum (the server view's count check)
  run jq -r '.details.count_check | "\(.client) \(.server) \(.ok)"' "$run_dir/metrics/login.json"
  local c s ok
  read -r c s ok <<<"$output"
  [[ $c == "$(jq -s 'map(.ops + .late_ops + .errors) | add' "$run_dir"/raw/login.client-*.json)" ]] ||
    fail "the count check's client count $c is not the hosts' sum"
  [[ $ok == true ]] || fail "smbd counted $s logins, the clients $c"
  # the third instrument, exact: each login (a failed one too) is one connection with one
  # NEGOTIATE (and two SESSION_SETUPs when it succeeds: tests/helpers/cross-check.bats)
  local w ss
  w=$(wire_req "$BATS_TEST_TMPDIR/login.req" 0)
  ss=$(wire_req "$BATS_TEST_TMPDIR/login.req" 1)
  echo "# login from 2 client hosts: the clients' sum $c logins, smbd $s connects, the wire $w NEGOTIATE ($ss SESSION_SETUP) requests" >&3
  [[ $c == "$s" && $s == "$w" ]] || fail "logins: the clients $c, smbd $s, the wire $w NEGOTIATE requests"
  grep -q "Jain's index" "$run_dir/metrics/login.json" || fail "no fairness note"
  # the kit's probe counted what the test's capture did, and the report says it
  run jq -r '"\(.details.count_check.wire) \(.details.count_check.wire_what)"' "$run_dir/metrics/login.json"
  assert_output "$w NEGOTIATE"
  run grep -cF "the wire (tshark on the kit's ports) carried $w NEGOTIATE requests, as smbd counted." "$run_dir/report.md"
  assert_output 1
}

# ch_last_run RAW: the newest run folder that has raw/RAW.
ch_last_run() {
  find "$PK_ROOT/results" -mindepth 3 -maxdepth 3 -path "*/raw/$1" | sort | tail -n 1 | sed 's|/raw/[^/]*$||'
}

@test "login's client CPU, measured on each host, and the report's line: these hosts are this machine (boot id)" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  local run_dir h
  run_dir=$(ch_last_run login.json)
  [[ -n $run_dir ]] || fail "no login run (the login test runs it)"
  # each host's helpers measured their own CPU: > 0, at most the run on workers + 1 cores
  for h in $NETNS_HOSTS; do
    jq -e --argjson n "$(nproc)" '.client_cpu_ms > 0 and .client_cpu_ms <= .duration_s * 1000 * (.workers + 1)
      and .host_cores == $n' "$run_dir/raw/login.client-$h.json" >/dev/null ||
      fail "host $h: $(jq -c '{duration_s, workers, client_cpu_ms, host_cores}' "$run_dir/raw/login.client-$h.json")"
  done
  run jq -r -s '(.[0].client_cpu_ms == (.[1:] | map(.client_cpu_ms) | add)) and ([.[0].client_hosts[] | .client_cpu_s > 0] | all)' \
    "$run_dir/raw/login.json" "$run_dir"/raw/login.client-*.json
  assert_output true
  # every "host" here is a namespace of this machine (the same boot id, read at start): each
  # host's figures and the report say so rather than that the server had the machine to itself
  run jq -c '[.client_hosts[] | .this_machine]' "$run_dir/raw/login.json"
  assert_output '[true,true]'
  run jq -c '.details.cpu.client_hosts | [.measured, (.hosts | map(.this_machine)), .on_this_machine, .alone]' "$run_dir/metrics/login.json"
  assert_output '[true,[true,true],true,false]'
  run grep -F -- "- Client hosts' CPU, measured on each host (the helpers, apart from smbd's): " "$run_dir/report.md"
  assert_success
  assert_output --partial "the client hosts are this machine (the same kernel boot id: network namespaces or containers of it"
  echo "# ${output#- }" >&3
  run grep -F -- "- CPU on this machine: the kit's processes here " "$run_dir/report.md"
  assert_success
}

@test "metadata from both client hosts at once: per host, merged, smbd's Write count = the clients' sum" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  run "$KIT_ROOT/test-samba.sh" metadata
  local run_dir h c s ok
  run_dir=$(find "$PK_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
  for h in $NETNS_HOSTS; do
    jq -e '.ok == true and .create.ops > 0 and .delete.ops == .create.ops + .late_ops and .left_behind == 0' \
      "$run_dir/raw/metadata.client-$h.json" >/dev/null || fail "host $h: $(cat "$run_dir/raw/metadata.client-$h.json")"
  done
  run jq -r --slurpfile a "$run_dir/raw/metadata.client-${NETNS_HOSTS%% *}.json" \
    --slurpfile b "$run_dir/raw/metadata.client-${NETNS_HOSTS##* }.json" '
    [(.create.ops == $a[0].create.ops + $b[0].create.ops), (.delete.ops == $a[0].delete.ops + $b[0].delete.ops),
     (.workers == 4), (.client_hosts | length == 2), (.fairness.jain > 0.5 and .fairness.jain <= 1),
     (.delete.hist.counts | add) == .delete.ops, .left_behind == 0] | all' "$run_dir/raw/metadata.json"
  assert_output true
  run jq -r '[.status, .details.count_check.client, .details.count_check.server, .details.count_check.ok] | @tsv' "$run_dir/metrics/metadata.json"
  read -r _ c s ok <<<"$output"
  [[ $c == "$(jq -s 'map(.create.ops + .late_ops) | add' "$run_dir"/raw/metadata.client-*.json)" ]] ||
    fail "the count check's client count $c is not the hosts' sum: $output"
  [[ $ok == true ]] || fail "smbd counted $s writes, the clients $c"
  grep -q "Jain's index" "$run_dir/metrics/metadata.json" || fail "no fairness note"
  jq -r '"# metadata: " + ([.client_hosts[] | "\(.host) \(.rate_per_s) files/s"] | join(", "))
    + "; merged \(.create.rate_per_s) files/s, delete \(.delete.rate_per_s)/s, Jain \(.fairness.jain)"' "$run_dir/raw/metadata.json" >&3
  [[ ! -e $PK_ROOT/share/metadata ]] || fail "the metadata folder was left: $(find "$PK_ROOT/share/metadata" | head)"
}

@test "memory from both client hosts at once: the connections split over them, held together, all let go" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  run "$KIT_ROOT/test-samba.sh" memory
  local run_dir h
  run_dir=$(find "$PK_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
  # MEMORY_CONNECTIONS=10: 5 on each host
  for h in $NETNS_HOSTS; do
    jq -e '.ok == true and .asked == 5 and .held == 5' "$run_dir/raw/memory.hold.client-$h.json" >/dev/null ||
      fail "host $h: $(cat "$run_dir/raw/memory.hold.client-$h.json")"
  done
  run jq -c '[.ok, .asked, .held, (.client_hosts | length), .fairness.jain]' "$run_dir/raw/memory.hold.json"
  assert_output '[true,10,10,2,1]'
  run jq -r '[.status, (.value | type), .details.held] | @tsv' "$run_dir/metrics/memory.json"
  [[ $output == *$'\tnumber\t10' ]] || fail "memory row: $output"
  grep -q "Jain's index" "$run_dir/metrics/memory.json" || fail "no fairness note"
  jq -r '"# memory: \(.details.held) connections held, \(.value * 1000 | round / 1000) MB each"' "$run_dir/metrics/memory.json" >&3
  # every host let go: no smb-hold of the kit runs, its folder is gone
  ! pgrep -f 'samba-perf-test-client\..*/smb-hold' >/dev/null || fail "smb-hold still runs: $(pgrep -af smb-hold)"
  [[ ! -e $PK_ROOT/share/memory-test ]] || fail "the memory-test folder was left: $(find "$PK_ROOT/share/memory-test" | head)"
}

@test "concurrency from both client hosts: each step's clients split over them, the clients' sum = smbd's Read count = the READs on the wire" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  ch_wire_run concurrency concurrency
  local run_dir h1=${NETNS_HOSTS%% *} h2=${NETNS_HOSTS##* }
  run_dir=$(find "$PK_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
  # CONCURRENCY_LEVELS="1 4": the step of 1 on the first host alone, the step of 4 two on each
  [[ -s $run_dir/raw/concurrency.1.client-$h1.json && ! -e $run_dir/raw/concurrency.1.client-$h2.json ]] ||
    fail "step 1: $(ls "$run_dir/raw")"
  for h in $h1 $h2; do
    jq -e '.ok == true and .clients == 2 and .connected == 2 and .ops > 0' "$run_dir/raw/concurrency.4.client-$h.json" >/dev/null ||
      fail "host $h: $(cat "$run_dir/raw/concurrency.4.client-$h.json")"
  done
  run jq -c '[.clients, .connected, (.client_hosts | length), (.per_client | keys)]' "$run_dir/raw/concurrency.4.json"
  assert_output '[4,4,2,["max_iops","min_iops"]]'
  run jq -r '[(.details.steps | map(.clients) | join(" ")), .details.steps[-1].client_hosts, .details.count_check.ok] | @tsv' \
    "$run_dir/metrics/concurrency.json"
  assert_output "1 4"$'\t'"$h1 2, $h2 2"$'\t'true
  jq -r '"# concurrency: " + ([.details.steps[] | "\(.clients) clients \(.iops | round) IOPS p99 \(.p99_ms) ms"] | join(", "))
    + "; count check \(.details.count_check.client) = \(.details.count_check.server)"' "$run_dir/metrics/concurrency.json" >&3
  # the three instruments over every step, exact (the kit's count check is of the step of 4
  # alone): each read, failed and late ones too, is one READ request and one smbd Read call
  local c s w
  c=$(jq -s 'map(.ops + .late_ops + .errors) | add' "$run_dir"/raw/concurrency.[0-9]*.client-*.json)
  s=$(jq -s '[.[].probes.profile.commands[] | select(.command == "read") | .calls] | add' "$run_dir"/raw/concurrency.[0-9]*.evidence.json)
  w=$(wire_req "$BATS_TEST_TMPDIR/concurrency.req" 8)
  echo "# concurrency, steps 1 and 4 from 2 client hosts: the clients' sum $c reads, smbd $s Read calls, the wire $w READ requests" >&3
  [[ $c == "$s" && $s == "$w" ]] || fail "reads: the clients $c, smbd $s, the wire $w READ requests"
}

@test "bigdir from the first client host: its one connection's opens = smbd's Create count = the CREATEs on the wire" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  BIGDIR_SIZES="100 1000" BIGDIR_OPS=5 BIGDIR_SECONDS=1 ch_wire_run bigdir bigdir
  local run_dir o w s st vt ok note
  run_dir=$(ch_last_run bigdir.1000.json)
  [[ -n $run_dir ]] || fail "no bigdir run: $output"
  run jq -r '[.status, (.value | type), .details.count_check.client, .details.count_check.server, .details.count_check.ok,
    (.details.notes[-1])] | @tsv' "$run_dir/metrics/bigdir.json"
  IFS=$'\t' read -r st vt o s ok note <<<"$output"
  [[ $vt == number && $ok == true ]] || fail "bigdir row: $output"
  [[ $note == "The connection was client host ${NETNS_HOSTS%% *}'s (the first of CLIENT_HOSTS), over its network: every time includes its round trip to the server." ]] ||
    fail "note: $note"
  # every CREATE the helper made came over the client hosts' link (none over loopback from here)
  w=$(wire_req "$BATS_TEST_TMPDIR/bigdir.req" 5)
  echo "# bigdir from client host ${NETNS_HOSTS%% *} ($st): the helper's opens $o, smbd's Create calls $s, the wire $w CREATE requests" >&3
  [[ $o == "$s" && $s == "$w" ]] || fail "opens: the helper $o, smbd $s, the wire $w CREATE requests"
  [[ ! -e $PK_ROOT/share/bigdir ]] || fail "the bigdir folders were left"
}

@test "startup from the first client host: each round's login timed on its clock with the offset taken out, the NEGOTIATEs on the wire" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  ch_wire_run startup startup
  local run_dir n w
  run_dir=$(ch_last_run startup.1.clock.json)
  [[ -n $run_dir ]] || fail "no clock of round 1: $output"
  # STARTUP_ROUNDS=2; namespaces share this clock: the offset is small, the round trip known
  for n in 1 2; do
    jq -e --arg h "${NETNS_HOSTS%% *}" '.host == $h and (.offset_ns | fabs) < .rtt_ns and .rtt_ns > 0' \
      "$run_dir/raw/startup.$n.clock.json" >/dev/null || fail "round $n clock: $(cat "$run_dir/raw/startup.$n.clock.json")"
    jq -e '.ok == true and .attempts > 1' "$run_dir/raw/startup.$n.json" >/dev/null ||
      fail "round $n: $(cat "$run_dir/raw/startup.$n.json")"
  done
  run jq -r '[.status, (.value | type), (.details.rounds | map(.login_ms | type) | join(" ")), .details.notes[-1]] | @tsv' \
    "$run_dir/metrics/startup.json"
  [[ $output == *$'\tnumber\tnumber number\tThe logins were tried from client host '"${NETNS_HOSTS%% *}"', over its network; its clock was '* ]] ||
    fail "startup row: $output"
  # each round's successful login is a connection from the client host: at least one NEGOTIATE a round
  w=$(wire_req "$BATS_TEST_TMPDIR/startup.req" 0)
  echo "# startup from client host ${NETNS_HOSTS%% *}: $(jq -r '[.details.rounds[].login_ms] | map(tostring) | join(", ")' "$run_dir/metrics/startup.json") ms; $w NEGOTIATE requests on the wire" >&3
  ((w >= 2)) || fail "want a NEGOTIATE a round on the client hosts' link, saw $w"
}

@test "cpu's reader run from both client hosts: its 4 clients split over them, smbd's Read count = the clients' sum" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  run "$KIT_ROOT/test-samba.sh" cpu
  local run_dir h c s
  run_dir=$(ch_last_run cpu.readers.json)
  [[ -n $run_dir ]] || fail "no reader run of cpu: $output"
  for h in $NETNS_HOSTS; do
    jq -e '.ok == true and .clients == 2 and .ops > 0' "$run_dir/raw/cpu.readers.client-$h.json" >/dev/null ||
      fail "host $h: $(cat "$run_dir/raw/cpu.readers.client-$h.json")"
  done
  [[ -s $run_dir/raw/cpu.login.client-${NETNS_HOSTS%% *}.json ]] || fail "cpu's login run did not come from the client hosts: $(ls "$run_dir/raw")"
  c=$(jq -s 'map(.ops + .late_ops + .errors) | add' "$run_dir"/raw/cpu.readers.client-*.json)
  s=$(jq '[.probes.profile.commands[] | select(.command == "read") | .calls] | add' "$run_dir/raw/cpu.readers.evidence.json")
  run jq -r '[.status, (.value | type), .details.reads, .details.notes[0]] | @tsv' "$run_dir/metrics/cpu.json"
  echo "# cpu from 2 client hosts: ${output%%$'\t'CPU*}; the clients' sum $c reads, smbd $s Read calls" >&3
  [[ $output == *$'\tnumber\t'*"split over 2 client hosts: ${NETNS_HOSTS%% *} 2, ${NETNS_HOSTS##* } 2;"* ]] || fail "cpu row: $output"
  [[ $c == "$s" ]] || fail "reads: the clients $c, smbd $s"
}

@test "the fio metrics from client hosts without the kernel cifs client: SKIP naming the host, never a number" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  ! grep -qw cifs /proc/filesystems && ! modprobe -nq cifs 2>/dev/null || skip "this kernel has cifs (the guest test runs fio from client hosts)"
  run "$KIT_ROOT/test-samba.sh" seqread
  local run_dir
  run_dir=$(find "$PK_ROOT/results" -mindepth 1 -maxdepth 1 -type d | sort | tail -n 1)
  run jq -r '[.status, (.value | tostring), .why] | @tsv' "$run_dir/metrics/seqread.json"
  assert_output "SKIP"$'\t'"null"$'\t'"client host '${NETNS_HOSTS%% *}' has no kernel cifs client: the fio metrics run on each client host's cifs mount of the share"
}

@test "stop and cleanup stop the fio servers and remove the kit's folders from every client host, and the table" {
  [[ -d $PK_ROOT/state ]] || skip "the kit did not start"
  pgrep -f -- "--daemonize=/tmp/samba-perf-test-client\\." >/dev/null || fail "no fio server ran before the stop"
  run "$KIT_ROOT/stop-samba.sh"
  assert_success
  assert_output --partial ": removed fio server (pid "
  [[ -z $(ch_kit_dirs) ]] || fail "left on the client hosts by stop: $(ch_kit_dirs)"
  ! pgrep -af -- "--daemonize=/tmp/samba-perf-test-client\\." || fail "a fio server of the kit still runs after stop"
  private_kit_start || fail "the second start failed"
  pgrep -f -- "--daemonize=/tmp/samba-perf-test-client\\." >/dev/null || fail "no fio server after the second start"
  run "$KIT_ROOT/test-samba.sh" cleanup
  assert_success
  ! pgrep -af -- "--daemonize=/tmp/samba-perf-test-client\\." || fail "a fio server of the kit still runs after cleanup"
  [[ -z $(ch_kit_dirs) ]] || fail "left on the client hosts: $(ch_kit_dirs)"
  ! nft list table ip "$PK_TABLE" >/dev/null 2>&1 || fail "table left"
  [[ -z $(ls -d /tmp/samba-perf-test-client.* 2>/dev/null) ]] || fail "client folders left: $(ls -d /tmp/samba-perf-test-client.*)"
}

@test "the harness removes the namespaces, links and address it made" {
  local tag=$NETNS_TAG hosts=$NETNS_HOSTS addr=$NETNS_ADDR
  netns_setup 1 || fail "setup"
  local mine=$NETNS_TAG
  netns_teardown || fail "left: $(netns_leftovers)"
  [[ -z $(ip -4 -o addr show to "$NETNS_ADDR/32") ]] || fail "address $NETNS_ADDR left"
  ! ip netns list | grep -q "^$mine" || fail "namespace left"
  NETNS_TAG=$tag NETNS_HOSTS=$hosts NETNS_ADDR=$addr
}
