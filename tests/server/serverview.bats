#!/usr/bin/env bats
# shellcheck disable=SC2016,SC2030,SC2031 # jq programs in single quotes; PATH set per test
# The server's view (issue 11): smbd's per-command counters (lib/run/profile.jq,
# lib/probes/profile.sh), client against server CPU (lib/probes/clientcpu.sh,
# lib/run/clientcpu.jq) and the local-disk baseline (lib/run/baseline.sh).
# The jq programs are checked on fixtures taken from a real 'smbstatus -P'; the probes against a
# private smbd (profiling on) on a free loopback port, where each per-command count must equal
# an independent one: the helper's own count, and tshark's count of the requests on the wire.

bats_require_minimum_version 1.5.0

# bats 1.8 cannot skip from setup_file: it only starts smbd when it can, and setup() skips
setup_file() {
  load '../test_helper/common-setup'
  load '../helpers/smbd-setup'
  _common_setup
  local c
  [[ $(id -u) -eq 0 ]] || return 0
  for c in smbd smbstatus pdbedit testparm jq make cc pkg-config; do
    command -v "$c" >/dev/null || return 0
  done
  pkg-config --exists smbclient || return 0
  make -s -C "$KIT_ROOT/helpers" >&2 || fail "the helpers do not build"
  PORT=$(kit_free_port 4470 4499) || fail "no free port in 4470-4499"
  SMBD_DIR=$BATS_FILE_TMPDIR/smbd
  helpers_smbd_start "$SMBD_DIR" "$PORT" || fail "private smbd did not start"
  UNC=//127.0.0.1:$PORT/perf
  head -c 8M /dev/urandom >"$SMBD_SHARE/data.0"
  chmod 644 "$SMBD_SHARE/data.0"
  mkdir -m 1777 "$SMBD_SHARE/files"
  export PORT SMBD_DIR SMBD_CONF SMBD_SHARE SMBD_CREDS UNC
}

teardown_file() {
  load '../helpers/smbd-setup'
  if [[ -n ${SMBD_DIR:-} ]]; then
    helpers_smbd_stop "$SMBD_DIR"
  fi
  local g
  for g in /sys/fs/cgroup/unified/serverview-test-clients /sys/fs/cgroup/cpuacct/serverview-test-clients; do
    [[ -d $g ]] && rmdir "$g" 2>/dev/null
  done
  return 0
}

setup() {
  load '../test_helper/common-setup'
  load '../helpers/smbd-setup'
  load '../helpers/wire'
  _common_setup
  FIX=$KIT_ROOT/tests/fixtures/serverview
  H=$KIT_ROOT/helpers
  RUN_DIR=$BATS_TEST_TMPDIR/run
  mkdir -p "$RUN_DIR/raw"
  SERVICE_NAME=serverview-test
  export RUN_DIR SERVICE_NAME
  # shellcheck source=lib/common.sh
  source "$KIT_ROOT/lib/common.sh"
  # shellcheck source=lib/server/service-unit.sh
  source "$KIT_ROOT/lib/server/service-unit.sh"
  # shellcheck source=lib/server/service-cgroup.sh
  source "$KIT_ROOT/lib/server/service-cgroup.sh"
  # shellcheck source=lib/server/service.sh
  source "$KIT_ROOT/lib/server/service.sh"
  # shellcheck source=lib/run/fio.sh
  source "$KIT_ROOT/lib/run/fio.sh"
  # shellcheck source=lib/run/baseline.sh
  source "$KIT_ROOT/lib/run/baseline.sh"
  # shellcheck source=lib/probes/profile.sh
  source "$KIT_ROOT/lib/probes/profile.sh"
  # shellcheck source=lib/probes/clientcpu.sh
  source "$KIT_ROOT/lib/probes/clientcpu.sh"
}

# live: the tests that need the private smbd
live() {
  kit_require_root
  kit_require_cmd smbd smbstatus testparm pdbedit jq
  pkg-config --exists smbclient || skip "libsmbclient-dev is not installed"
  [[ -n ${SMBD_DIR:-} ]] || fail "the private smbd was not started"
  KIT_CONF=$SMBD_CONF
  export KIT_CONF
}

# snapshot FILE: parse a fixture into a snapshot object
snapshot() {
  jq -L "$KIT_ROOT/lib" -R -s -c 'include "run/profile"; profile_parse_text' "$1"
}

# measure_like NAME CMD...: what lib/run/measure.sh (issue 8) does with the probes, in short: the
# probes' before (profile, clientcpu, then smbd's CPU as the cgcpu probe reports it), CMD in a
# child that calls the probes' enter first, then the afters in reverse order; writes
# raw/NAME.evidence.json {wall_s, probes: {profile, clientcpu, cgcpu}} and CMD's stdout to
# raw/NAME.json
measure_like() {
  local name=$1 w=$RUN_DIR/.probes.$1 t0 t1 sb sa pid
  shift
  mkdir -p "$w/profile" "$w/clientcpu"
  pid=$(helpers_smbd_pid "$SMBD_DIR")
  probe_profile_before "$name" "$w/profile"
  probe_clientcpu_before "$name" "$w/clientcpu"
  sb=$("$H/cgcpu" -p "$pid" | jq .cpu_us)
  t0=$EPOCHREALTIME
  (
    probe_clientcpu_enter "$name" "$w/clientcpu" >/dev/null 2>&1
    exec "$@"
  ) >"$RUN_DIR/raw/$name.json"
  t1=$EPOCHREALTIME
  sa=$("$H/cgcpu" -p "$pid" | jq .cpu_us)
  probe_clientcpu_after "$name" "$w/clientcpu"
  probe_profile_after "$name" "$w/profile"
  jq -n -c --slurpfile p "$w/profile/result.json" --slurpfile c "$w/clientcpu/result.json" \
    --arg t0 "$t0" --arg t1 "$t1" --argjson sa "$sa" --argjson sb "$sb" \
    '{wall_s: (($t1 | tonumber) - ($t0 | tonumber)), probes: {profile: $p[0], clientcpu: $c[0],
      cgcpu: {available: true, source: "proc", used_us: ($sa - $sb)}}}' >"$RUN_DIR/raw/$name.evidence.json"
}

# profile_of NAME: the profile probe's result of measurement NAME
profile_of() {
  jq -c '.probes.profile' "$RUN_DIR/raw/$1.evidence.json"
}

# calls CMD: calls of CMD in measurement t's server view
calls() {
  profile_of t | jq -L "$KIT_ROOT/lib" -r --arg c "$1" 'include "run/profile"; profile_calls($c)'
}

@test "profile_parse_text and profile_parse_json read the same counters from one smbd" {
  kit_require_cmd jq
  local t j
  t=$(snapshot "$FIX/smbstatus-P.after.txt")
  j=$(jq -L "$KIT_ROOT/lib" -c 'include "run/profile"; profile_parse_json' "$FIX/smbstatus-P.after.json")
  [[ $(jq -S . <<<"$t") == "$(jq -S . <<<"$j")" ]] || fail "text and json differ: $t / $j"
  [[ $(jq '.commands.read.count' <<<"$t") == 42333 ]]
  [[ $(jq '.connects' <<<"$t") == 2 ]]
}

@test "Samba 4.22's 'smbstatus -P' (Debian 13): text and json read alike, the SMB2 counters as on 4.17" {
  kit_require_cmd jq
  local t j
  # 4.22 drops only syscall_seekdir and syscall_telldir from 4.17's output; nothing is renamed
  run diff <(grep -oE '^[a-z0-9_]+:' "$FIX/smbstatus-P.after.txt") <(grep -oE '^[a-z0-9_]+:' "$FIX/smbstatus-P.4.22.txt")
  assert_output $'22,25d21\n< syscall_seekdir_count:\n< syscall_seekdir_time:\n< syscall_telldir_count:\n< syscall_telldir_time:'
  t=$(snapshot "$FIX/smbstatus-P.4.22.txt")
  j=$(jq -L "$KIT_ROOT/lib" -c 'include "run/profile"; profile_parse_json' "$FIX/smbstatus-P.4.22.json")
  [[ $(jq -S . <<<"$t") == "$(jq -S . <<<"$j")" ]] || fail "text and json differ: $t / $j"
  # 35 logins of the login metric: two session setup legs, two tree connects and one DFS
  # referral (an ioctl) each
  run jq -c '[.connects, .commands.sesssetup.count, .commands.tcon.count, .commands.ioctl.count]' <<<"$t"
  assert_output '[35,70,70,35]'
}

@test "profile_parse_text ignores rulers, unknown counters and counters of later Samba versions" {
  kit_require_cmd jq
  run jq -L "$KIT_ROOT/lib" -R -s -c 'include "run/profile"; profile_parse_text | [.connects, .commands.read.count, .commands.write.count]' \
    <<<$'**** SMB2 Calls ****\nconnect_count:    3\nsmb2_read_count:  7\nsmb2_read_failed_count: 99\nsmb2_read_buckets[0]: 5\nweird line\n**** share perftest ****\nsmb2_read_count:  2\n'
  assert_success
  assert_output '[3,7,0]'
}

@test "profile_diff: per-command calls, mean time and share; the table shows them" {
  kit_require_cmd jq
  local b a
  b=$(snapshot "$FIX/smbstatus-P.before.txt")
  a=$(snapshot "$FIX/smbstatus-P.after.txt")
  run jq -L "$KIT_ROOT/lib" -n -c --argjson b "$b" --argjson a "$a" \
    'include "run/profile"; profile_diff($b; $a; "on") | .commands[0] | [.command, .calls, .time_us, (.mean_us * 100 | round), (.share_of_time * 1000 | round)]'
  assert_success
  assert_output '["read",42333,1560198,3686,992]'
  run jq -L "$KIT_ROOT/lib" -n -r --argjson b "$b" --argjson a "$a" 'include "run/profile"; include "run/serverview"; [{ev: {probes: {profile: profile_diff($b; $a; "on")}}}] | sv_server | sv_server_md'
  assert_success
  assert_line --index 0 "| command | calls | mean server time | share of the server's time | MB in | MB out |"
  assert_line --index 2 --partial '| Read | 42333 | 36.9 µs | 99.2 % | '
  assert_line --partial '| Negotiate | 2 | 2.78 ms | 0.4 % | '
  # the six that took the most time one by one, the rest in one row (results.json has each)
  assert_line --partial '| GetInfo | 4 | 32.8 µs | < 0.1 % | '
  assert_line '| 2 others: Close, TreeDisconnect | 6 | | < 0.1 % | 0 | 0.001 |'
  assert_line -- '- connects: 2, disconnects: 2'
  # level 'count': calls only
  run jq -L "$KIT_ROOT/lib" -n -r --argjson b "$b" --argjson a "$a" 'include "run/profile"; include "run/serverview"; [{ev: {probes: {profile: profile_diff($b; $a; "count")}}}] | sv_server | sv_server_md'
  assert_line --index 2 --partial '| Read | 42333 | – | – | '
  assert_line --partial 'smbd profiling level = count: calls only'
}

@test "profile_diff: counters that went back (smbd restarted) make the view not available" {
  kit_require_cmd jq
  local b a
  b=$(snapshot "$FIX/smbstatus-P.after.txt")
  a=$(snapshot "$FIX/smbstatus-P.before.txt")
  run jq -L "$KIT_ROOT/lib" -n -r --argjson b "$b" --argjson a "$a" 'include "run/profile"; include "run/serverview"; [{ev: {probes: {profile: profile_diff($b; $a; "on")}}}] | sv_server | sv_server_md'
  assert_success
  assert_output "server view: not available (smbd's counters went back during the run (smbd started again))"
}

@test "fio through the kernel client: fio's requests against smbd's calls and the kernel's count (guest run)" {
  local g=$KIT_ROOT/tests/fixtures/guest-fio m
  for m in randread seqwrite latency errors; do
    local file=$m
    [[ $m != latency && $m != errors ]] || file=steady
    run jq -L "$KIT_ROOT/lib" -n -c --arg m "$m" --arg file "$file" --slurpfile f "$g/$file.fio.json" --slurpfile e "$g/$file.evidence.json" \
      'include "run/serverview"; include "run/fio"; include "run/steady";
       {"\($file).fio.json": $f[0], "\($file).evidence.json": $e[0]}
       | serverview($m; null; null; if $file == "steady" then steady_count else fio_count($m; $m | sub("^(seq|rand)"; "")) end)
       | .details.count_check | [.what, .client, .server, .kernel, .ok]'
    assert_success
    case $m in
      randread) assert_output '["reads (fio)",3622,3622,3622,true]' ;;
      seqwrite) assert_output '["writes (fio)",219,219,219,true]' ;;
      # the steady run (randrw at LOAD_RATE): 646 reads and 333 writes, counted alike by all three
      *) assert_output '["reads and writes (fio)",979,979,979,true]' ;;
    esac
  done
  # smbd counting 2 % fewer Read calls than fio made is a warning that names both counts
  run jq -L "$KIT_ROOT/lib" -n -r --slurpfile f "$g/randread.fio.json" --slurpfile e "$g/randread.evidence.json" \
    'include "run/serverview"; include "run/fio"; {"randread.fio.json": $f[0],
      "randread.evidence.json": ($e[0] | (.probes.profile.commands[] | select(.command == "read") | .calls) = 3550)}
      | serverview("randread"; null; null; fio_count("randread"; "read")) | .warnings[]'
  assert_output --partial 'the server counted 2 % fewer reads (fio) than the client reported (3622 against 3550; tolerance 1 %)'
}

@test "profile_count_check: within the tolerance no warning, beyond it a warning that says how much" {
  kit_require_cmd jq
  run jq -L "$KIT_ROOT/lib" -n -c 'include "run/profile"; profile_count_check("reads"; 1000; 1000; 0) | [.ok, .warning]'
  assert_output '[true,null]'
  run jq -L "$KIT_ROOT/lib" -n -r 'include "run/profile"; profile_count_check("reads"; 1000; 970; 1) | .warning'
  assert_output 'the server counted 3 % fewer reads than the client reported (1000 against 970; tolerance 1 %)'
}

@test "clientcpu_split and the small-machine warning come from the measured CPU" {
  kit_require_cmd jq
  local e
  e='{"wall_s":10,"probes":{"clientcpu":{"available":true,"source":"cgroup2","used_us":9000000,"machine_busy_us":19600000,"window_s":10,"nproc":2},"cgcpu":{"available":true,"source":"cgroup1","used_us":10000000}}}'
  run jq -L "$KIT_ROOT/lib" -n -r --argjson e "$e" \
    'include "run/clientcpu"; $e | clientcpu_split | (clientcpu_line, clientcpu_warnings("login")[])'
  assert_success
  assert_line --index 0 'client 0.9 cores (45 %), smbd 1 core (50 %), others 0.1, of 2 cores over 10 s'
  assert_line --index 1 --partial 'the clients used 0.9 of 2 cores during login (smbd 1): the machine was 98 % busy, so the server was short of CPU'
  # a machine with room to spare: no warning
  e=$(jq -c '.probes.clientcpu.used_us = 2000000 | .probes.cgcpu.used_us = 5000000 | .probes.clientcpu.machine_busy_us = 8000000' <<<"$e")
  run jq -L "$KIT_ROOT/lib" -n -c --argjson e "$e" 'include "run/clientcpu"; $e | clientcpu_split | clientcpu_warnings("login")'
  assert_output '[]'
  # someone else's load: its own warning
  e=$(jq -c '.probes.clientcpu.used_us = 1000000 | .probes.clientcpu.machine_busy_us = 16000000' <<<"$e")
  run jq -L "$KIT_ROOT/lib" -n -r --argjson e "$e" 'include "run/clientcpu"; $e | clientcpu_split | clientcpu_warnings("login")[]'
  assert_output --partial 'other processes used 1 of 2 cores during login'
  # without smbd's CPU there is no split, and the line says why
  e=$(jq -c '.probes.cgcpu = {available: false, reason: "helpers/cgcpu is not built"}' <<<"$e")
  run jq -L "$KIT_ROOT/lib" -n -r --argjson e "$e" 'include "run/clientcpu"; $e | clientcpu_split | clientcpu_line'
  assert_output 'client/server CPU: not available (helpers/cgcpu is not built)'
}

@test "serverview: a verdict's details and warnings from a real evidence file of the issue-8 runner" {
  kit_require_cmd jq
  # tests/fixtures/serverview/run: lib/run/measure.sh of the house branch with the probes
  # smbdlog cifs profile clientcpu cgcpu, smb-files and smb-login-storm against a private smbd
  local r=$FIX/run
  run env SMALL_FILE_KB=4 jq -L "$KIT_ROOT/lib" -n -c --slurpfile e "$r/metadata.evidence.json" --slurpfile f "$r/metadata.json" \
    'include "run/serverview"; include "metrics/metadata"; {"metadata.evidence.json": $e[0], "metadata.json": $f[0]}
     | serverview("metadata"; null; null; metadata_count)
     | [.details.count_check.ok, .details.count_check.server, (.details.cpu.client.cores > 0), .warnings]'
  assert_success
  assert_output '[true,3142,true,[]]'
  # the login run: one connect per login, and a client count that disagrees gives the warning
  run jq -L "$KIT_ROOT/lib" -n -r --slurpfile e "$r/login.evidence.json" --slurpfile f "$r/login.json" \
    'include "run/serverview"; include "metrics/login"; {"login.evidence.json": $e[0], "login.json": ($f[0] | .ops += 10)}
     | serverview("login"; null; null; login_count) | .warnings[]'
  assert_output 'the server counted 3 % fewer logins than the client reported (331 against 321; tolerance 1 %)'
  # bytes: smbd received 4 KiB a file plus 112 bytes of SMB2 header a Write
  run jq -L "$KIT_ROOT/lib" -n -c --slurpfile e "$r/metadata.evidence.json" \
    'include "run/serverview"; [{ev: $e[0]}] | sv_server | .commands[] | select(.samba == "write") | [.calls, .bytes_in, .bytes_in - .calls * 4096]'
  assert_output '[3142,13221536,351904]' # 112 bytes a Write
  # without a profile probe (an older evidence file): not available, and nothing breaks
  run jq -L "$KIT_ROOT/lib" -n -r --slurpfile e "$r/login.evidence.json" \
    'include "run/serverview"; {"login.evidence.json": ($e[0] | del(.probes.profile))} | serverview("login") | .details.server | sv_server_md'
  assert_output 'server view: not available (no profile probe)'
}

@test "profile probe: a real smbd's read count equals smb-readers' own count" {
  live
  measure_like t "$H/smb-readers" -A "$SMBD_CREDS" -c 2 -d 2 -b 4096 "$UNC/data.0"
  profile_of t | jq -e '.available and .level == "on"' || fail "$(profile_of t)"
  [[ -s $RUN_DIR/raw/t.profile.before.json && -s $RUN_DIR/raw/t.profile.after.json ]]
  local ops errors
  ops=$(jq '.ops + .late_ops' "$RUN_DIR/raw/t.json")
  errors=$(jq .errors "$RUN_DIR/raw/t.json")
  ((ops > 1000)) || fail "only $ops reads"
  # tolerance 0: the helper waits for every answer, so each read it sent is one smbd counted
  [[ $(calls read) == $((ops + errors)) ]] || fail "smbd counted $(calls read) reads, the helper $ops (+$errors errors)"
  [[ $(profile_of t | jq .connects) == 2 ]]
  [[ $(calls negprot) == 2 ]]
  run jq -L "$KIT_ROOT/lib" -r 'include "run/serverview"; [{ev: .}] | sv_server | sv_server_md' "$RUN_DIR/raw/t.evidence.json"
  assert_line --index 2 --regexp '^\| Read \| [0-9]+ \| [0-9.]+ µs \| [0-9.]+ % \| [0-9.]+ \| [0-9.]+ \|$'
}

@test "profile probe: file and login counts equal the helpers' and tshark's count on the wire" {
  live
  kit_require_cmd tshark
  local cap=$BATS_TEST_TMPDIR/cap.pcapng k v server files login why=()
  # tests/helpers/wire.bash: the capture has begun before the helpers start and has caught up
  # (a probe datagram sent last is in the file) before it ends, so a busy machine loses nothing
  wire_start "$cap" "$PORT" || fail "cannot capture on lo"
  # both helpers run whatever the first gives: a failing one is named below with its line
  # shellcheck disable=SC2016 # expanded by the inner bash
  measure_like t bash -c '"$1" -A "$2" -w 2 -d 1 -s 4 "$3/files" >"$4/files.json"
    "$5" -A "$2" -w 2 -d 1 "$3" >"$4/login.json"; true' _ "$H/smb-files" "$SMBD_CREDS" "$UNC" "$RUN_DIR/raw" "$H/smb-login-storm"
  wire_stop || fail "the capture is incomplete"
  files=$(cat "$RUN_DIR/raw/files.json")
  login=$(cat "$RUN_DIR/raw/login.json")
  # the precondition: both helpers did all they set out to do (a request that failed or timed
  # out may or may not have reached smbd, so then no count can be exact)
  jq -e '.ok and .errors == 0 and .delete.errors == 0' <<<"$files" >/dev/null || fail "smb-files: $files"
  jq -e '.ok and .errors == 0' <<<"$login" >/dev/null || fail "smb-login-storm: $login"
  profile_of t | jq -e '.available and (.warnings // [] | length == 0)' >/dev/null || fail "$(profile_of t)"
  # the helpers' own counts: each file is written once (-s 4), each login is one connection
  [[ $(calls write) == $(jq '.create.ops + .late_ops' <<<"$files") ]] ||
    why+=("smbd counted $(calls write) writes, smb-files created $(jq '.create.ops + .late_ops' <<<"$files") files")
  [[ $(profile_of t | jq .connects) == $(($(jq '.ops + .late_ops' <<<"$login") + 2)) ]] ||
    why+=("smbd counted $(profile_of t | jq .connects) connects for $(jq '.ops + .late_ops' <<<"$login") logins + 2 file workers")
  # the wire: every request tshark decoded is one smbd counted (tolerance 0; none dropped)
  local -A name=([0]=negprot [1]=sesssetup [3]=tcon [4]=tdis [5]=create [6]=close [9]=write [16]=getinfo)
  local n=0
  while read -r k v; do
    [[ -n ${name[$k]:-} ]] || continue
    server=$(calls "${name[$k]}")
    [[ $server == "$v" ]] || why+=("${name[$k]}: $v requests on the wire, smbd counted $server")
    n=$((n + 1))
  done < <(wire_requests "$cap" "$PORT")
  ((n == ${#name[@]})) || why+=("tshark decoded only $n of the ${#name[@]} commands")
  ((${#why[@]} == 0)) || fail "$(printf '%s\n' "${why[@]}" "smb-files: $(jq -c 'del(.hist)' <<<"$files")" "smb-login-storm: $(jq -c 'del(.hist)' <<<"$login")")"
}

@test "wire probe: smb-readers' reads = smbd's Read calls = the probe's READ requests; encrypted traffic and WIRE_PROBE=no are said" {
  live
  kit_require_cmd tshark dumpcap smbclient
  # shellcheck source=lib/run/clienthosts.sh
  source "$KIT_ROOT/lib/run/clienthosts.sh"
  # shellcheck source=lib/probes/wire.sh
  source "$KIT_ROOT/lib/probes/wire.sh"
  local w=$BATS_TEST_TMPDIR/wire ops r
  WIRE_PROBE=yes TEST_PORT=$PORT CLIENT_ADDR=127.0.0.1 CLIENT_HOSTS=''
  mkdir -p "$w"
  probe_wire_before t "$w"
  [[ -s $w/pid && ! -e $w/skip ]] || fail "no capture: $(cat "$w/skip" "$w/start.err" 2>/dev/null)"
  measure_like t "$H/smb-readers" -A "$SMBD_CREDS" -c 2 -d 1 -b 4096 "$UNC/data.0"
  probe_wire_after t "$w"
  ops=$(jq '.ops + .late_ops + .errors' "$RUN_DIR/raw/t.json")
  run jq -c --argjson ops "$ops" --argjson smbd "$(calls read)" \
    '[.available, .interfaces, .requests["8"] == $ops, .requests["8"] == $smbd, .requests["0"]]' "$w/result.json"
  echo "# wire probe: smb-readers $ops reads, smbd $(calls read) Read calls, the wire $(jq '.requests["8"]' "$w/result.json") READ requests" >&3
  assert_output '[true,["lo"],true,true,2]'
  [[ ! -e $w/cap.pcapng ]] || fail "the capture was kept"
  # the count check says the wire beside smbd's count
  jq -c --slurpfile p "$w/result.json" '.probes.wire = $p[0]' "$RUN_DIR/raw/t.evidence.json" >"$RUN_DIR/raw/t2.evidence.json"
  run jq -L "$KIT_ROOT/lib" -r --argjson ops "$ops" 'include "run/serverview";
    [{ev: .}] | sv_count(sv_server; {what: "reads", client: $ops, smbd: ["read"]}; sv_wire) | sv_check_md' "$RUN_DIR/raw/t2.evidence.json"
  assert_output "Client against server: the client reported $ops reads, smbd counted $ops (equal; tolerance 1 %); the wire (tshark on the kit's ports) carried $ops READ requests, as smbd counted."
  # SMB3 encryption: the commands cannot be read, and the probe says so rather than count 0
  rm -rf "$w" && mkdir -p "$w"
  probe_wire_before e "$w"
  run timeout 20 smbclient -A "$SMBD_CREDS" -p "$PORT" --client-protection=encrypt "//127.0.0.1/perf" -c ls
  assert_success
  probe_wire_after e "$w"
  run jq -r '"\(.available) \(.reason)"' "$w/result.json"
  assert_output --regexp '^false the traffic is encrypted \(SMB3\): tshark cannot read the commands of [0-9]+ messages$'
  # off (the default): no capture, and the reason
  rm -rf "$w" && mkdir -p "$w"
  WIRE_PROBE=no
  probe_wire_before o "$w"
  probe_wire_after o "$w"
  [[ ! -e $w/pid ]] || fail "a capture with WIRE_PROBE=no"
  run jq -r '.reason' "$w/result.json"
  assert_output "WIRE_PROBE=no (the capture is opt-in: it takes CPU beside the server)"
}

@test "profile probe: smbd profiling level = off is reported, and nothing fails" {
  live
  local conf=$BATS_TEST_TMPDIR/off.conf
  sed 's/^\( *smbd profiling level = \).*/\1off/' "$SMBD_CONF" >"$conf"
  KIT_CONF=$conf
  run profile_unavailable "$conf"
  assert_success
  assert_output "smbd profiling level = off in '$conf'"
  measure_like t "$H/smb-readers" -A "$SMBD_CREDS" -c 1 -d 1 -b 4096 "$UNC/data.0"
  run jq -L "$KIT_ROOT/lib" -r 'include "run/serverview"; [{ev: .}] | sv_server | sv_server_md' "$RUN_DIR/raw/t.evidence.json"
  assert_output "server view: not available (smbd profiling level = off in '$conf')"
  # the measurement itself went on
  jq -e '.ok and .ops > 0' "$RUN_DIR/raw/t.json"
  [[ ! -e $RUN_DIR/raw/t.profile.after.json ]]
}

@test "profile probe: a slow smbstatus (3 s, as under emulation) still gives the view, each call within 10 s" {
  live
  # the real smbstatus, 3 s late: the guest's emulated CPU made the old 2 s bound cut it off
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\nsleep 3\nexec %s "$@"\n' "$(command -v smbstatus)" >"$BATS_TEST_TMPDIR/bin/smbstatus"
  chmod +x "$BATS_TEST_TMPDIR/bin/smbstatus"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH
  local w=$RUN_DIR/.probes.slow t0
  mkdir -p "$w"
  t0=$SECONDS
  probe_profile_before slow "$w"
  ((SECONDS - t0 <= 10)) || fail "before took $((SECONDS - t0)) s"
  [[ -s $w/before.json ]] || fail "no snapshot: $(cat "$w/reason" 2>/dev/null)"
  "$H/smb-readers" -A "$SMBD_CREDS" -c 1 -d 1 -b 4096 "$UNC/data.0" >"$RUN_DIR/raw/slow.json"
  t0=$SECONDS
  probe_profile_after slow "$w"
  ((SECONDS - t0 <= 10)) || fail "after took $((SECONDS - t0)) s"
  local reads
  reads=$(jq '.commands[] | select(.command == "read") | .calls' "$w/result.json")
  [[ $(jq .available "$w/result.json") == true && $reads -gt 0 ]] || fail "$(cat "$w/result.json")"
  [[ $reads == $(jq '.ops + .late_ops' "$RUN_DIR/raw/slow.json") ]] ||
    fail "smbd counted $reads reads, smb-readers made $(jq '.ops + .late_ops' "$RUN_DIR/raw/slow.json")"
}

# Issue 19, the 6-minute default run: a measurement's 'before' right after the one before's
# settled 'after' (concurrency's steps) takes one smbstatus when nothing changed since, not two
# and a 1.1 s pause; when smbd worked in between it waits as before, and the counts stay exact.
@test "profile probe: a before equal to the last settled after costs one smbstatus; after other work it settles again" {
  live
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\necho call >>%s\nexec %s "$@"\n' "$BATS_TEST_TMPDIR/calls" "$(command -v smbstatus)" \
    >"$BATS_TEST_TMPDIR/bin/smbstatus"
  chmod +x "$BATS_TEST_TMPDIR/bin/smbstatus"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH
  local n w
  for n in 1 2; do
    w=$RUN_DIR/.probes.k$n
    mkdir -p "$w"
    : >"$BATS_TEST_TMPDIR/calls"
    probe_profile_before "k$n" "$w"
    if ((n == 2)); then
      run wc -l <"$BATS_TEST_TMPDIR/calls"
      assert_output 1
    fi
    "$H/smb-readers" -A "$SMBD_CREDS" -c 1 -d 1 -b 4096 "$UNC/data.0" >"$RUN_DIR/raw/k$n.json"
    probe_profile_after "k$n" "$w"
    [[ $(jq '.commands[] | select(.command == "read") | .calls' "$w/result.json") == \
      $(jq '.ops + .late_ops' "$RUN_DIR/raw/k$n.json") ]] || fail "k$n: $(cat "$w/result.json")"
  done
  # smbd works between the last 'after' and the next 'before': the before waits until settled
  # and holds that work (its reads), so none of it lands in the measurement
  "$H/smb-readers" -A "$SMBD_CREDS" -c 1 -d 1 -b 4096 "$UNC/data.0" >"$RUN_DIR/raw/between.json"
  w=$RUN_DIR/.probes.k3
  mkdir -p "$w"
  : >"$BATS_TEST_TMPDIR/calls"
  probe_profile_before k3 "$w"
  run wc -l <"$BATS_TEST_TMPDIR/calls"
  ((output >= 2)) || fail "one smbstatus call although smbd worked since the last settled snapshot"
  jq -e '.settled' "$w/before.json"
  [[ $(jq -n --slurpfile b "$w/before.json" --slurpfile a "$RUN_DIR/raw/k2.profile.after.json" \
    '[$b[0], $a[0]] | map(.commands.read.count) | .[0] - .[1]') == \
    $(jq '.ops + .late_ops' "$RUN_DIR/raw/between.json") ]] || fail "the reads in between are not all in the before"
}

@test "profile probe: an smbd built without profiling is reported" {
  live
  # the one stub here: this machine's smbd has WITH_PROFILE, so 'smbd -b' is replaced
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  printf '#!/bin/sh\necho "Build environment:"\necho "   HAVE_GETTIMEOFDAY"\n' >"$BATS_TEST_TMPDIR/bin/smbd"
  chmod +x "$BATS_TEST_TMPDIR/bin/smbd"
  PATH=$BATS_TEST_TMPDIR/bin:$PATH
  run profile_unavailable "$SMBD_CONF"
  assert_output 'this smbd was built without profiling support (smbd -b shows no WITH_PROFILE)'
  measure_like t true
  run jq -r '.probes.profile.reason' "$RUN_DIR/raw/t.evidence.json"
  assert_output 'this smbd was built without profiling support (smbd -b shows no WITH_PROFILE)'
}

@test "clientcpu: a load generator's CPU is counted in the client cgroup, smbd's apart" {
  live
  clientcpu_cgroup >/dev/null || skip "no cgroup for the clients can be made here"
  # two seconds of pure CPU in the measured command, then reads that make smbd work
  # shellcheck disable=SC2016 # expanded by the inner bash
  measure_like t bash -c 'end=$((SECONDS + 2)); while ((SECONDS < end)); do :; done
    exec "$1" -A "$2" -c 1 -d 1 -b 4096 "$3"' _ "$H/smb-readers" "$SMBD_CREDS" "$UNC/data.0"
  local e=$RUN_DIR/raw/t.evidence.json
  jq -e '.probes.clientcpu.available and .probes.clientcpu.source != null' "$e" || fail "$(jq -c .probes.clientcpu "$e")"
  # the busy loop alone is 1 to 2 s of CPU (it starts in the middle of a second), the reader more
  jq -e '.probes.clientcpu.used_us >= 1000000 and .probes.clientcpu.used_us <= 4000000' "$e" ||
    fail "client CPU: $(jq -c .probes.clientcpu "$e")"
  run jq -L "$KIT_ROOT/lib" -c 'include "run/clientcpu"; clientcpu_split' "$e"
  assert_success
  jq -e '.available and .server.cpu_s > 0.1 and .machine.cpu_s >= .client.cpu_s and .wall_s >= 2' <<<"$output" ||
    fail "$output"
  # the child was in the client group: nothing of this shell is
  local cg
  cg=$(clientcpu_cgroup)
  [[ $(cat "$cg/cgroup.procs") == "" ]] || fail "processes left in the client cgroup"
  clientcpu_remove
  [[ ! -d $cg ]] || fail "'$cg' is still there"
}

@test "baseline_run: the four fio jobs run on SHARE_DIR's file system and compare with Samba" {
  kit_require_cmd fio jq
  # shellcheck disable=SC2034 # settings the metrics' NAME_baseline read
  SHARE_DIR=$BATS_TEST_TMPDIR/share DATA_FILE_MB=16 DURATION=1 SEQ_STREAMS=1 SEQ_QUEUE_DEPTH=4 \
    RANDOM_JOBS=2 RANDOM_QUEUE_DEPTH=4
  mkdir -p "$SHARE_DIR"
  local j
  for j in seqwrite seqread randread randwrite; do
    # shellcheck source=/dev/null
    source "$KIT_ROOT/lib/metrics/$j.sh" # its job: NAME_baseline
  done
  for j in seqwrite seqread randread randwrite; do
    baseline_run "$j" "$RUN_DIR/raw/$j.baseline.json"
    jq -e --arg j "$j" '.ok and .job == $j and .value > 0 and .size_mb == 16' "$RUN_DIR/raw/$j.baseline.json" ||
      fail "$j: $(cat "$RUN_DIR/raw/$j.baseline.json")"
    [[ -s $RUN_DIR/raw/$j.baseline.fio.json ]]
  done
  [[ $(stat -c %s "$SHARE_DIR/local-baseline/data.0") == $((16 * 1048576)) ]]
  jq -e '.unit == "MB/s" and .block == "1 MiB"' "$RUN_DIR/raw/seqread.baseline.json"
  jq -e '.unit == "IOPS" and .block == "4 KiB" and .jobs == 2' "$RUN_DIR/raw/randread.baseline.json"
  # buffered, as smbd reads and writes; the file system type is findmnt's
  jq -e --arg fs "$(fs_type_of "$SHARE_DIR")" '.direct == false and .fs_type == $fs' \
    "$RUN_DIR/raw/seqread.baseline.json"
  jq -e '.jobs[0]["job options"].direct == "0"' "$RUN_DIR/raw/seqread.baseline.fio.json"
  run baseline_vs "$(jq '.value / 2' "$RUN_DIR/raw/seqread.baseline.json")" "$RUN_DIR/raw/seqread.baseline.json"
  assert_success
  # (half of a measured figure, times 100, divided again: 50 give or take the last bit)
  [[ $(jq '.samba_pct * 1e6 | round' <<<"$output") == 50000000 ]] || fail "$output"
  [[ $(jq -r .text <<<"$output") == *"; Samba reaches 50 % of it" ]] || fail "$output"
  run baseline_run bogus "$RUN_DIR/raw/x.json"
  assert_failure
  assert_output "unknown baseline job 'bogus'"
}
