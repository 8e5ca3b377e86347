#!/usr/bin/env bats
# The merge of client hosts' helper lines (lib/run/clienthosts.jq) and the fan-out
# (lib/run/clienthosts-fanout.sh) on fixture lines, with a stand-in remote shell: counts and rates
# add, percentiles come from the merged histograms (never averaged), fairness, a failed host.

setup() {
  load ../test_helper/common-setup
  _common_setup
  kit_require_cmd jq
  # the stand-in remote shell drops the host name and runs the command here
  printf '#!/bin/sh\nshift\nexec "$@"\n' >"$BATS_TEST_TMPDIR/rsh"
  chmod +x "$BATS_TEST_TMPDIR/rsh"
}

# host_dir NAME LINE [HELPER]: a client host folder whose HELPER (smb-login-storm) prints LINE
# (and its args to args.txt).
host_dir() {
  local d=$BATS_TEST_TMPDIR/$1 helper=${3:-smb-login-storm}
  mkdir -p "$d"
  printf '#!/bin/sh\necho "$@" >%s/args.txt\ncat <<"J"\n%s\nJ\n' "$d" "$2" >"$d/$helper"
  chmod +x "$d/$helper"
  echo "$1=$d"
}

# two hosts' lines: A 10 logins of ~1 ms, B 20 of ~9.9 ms and 10 of ~10.1 ms (the helpers' gamma)
LINE_A='{"helper":"smb-login-storm","ok":true,"duration_s":1.1,"window_s":1,"workers":2,"ops":10,"late_ops":0,"errors":0,"rate_per_s":10,"per_s":[10],"lat_ms":{"p50":1.0096,"p95":1.0096,"p99":1.0096,"max":1.01,"mean":1},"hist":{"unit":"us","gamma":1.019182,"bounds":[1019.27],"counts":[10]}}'
LINE_B='{"helper":"smb-login-storm","ok":true,"duration_s":1.2,"window_s":1,"workers":2,"ops":30,"late_ops":0,"errors":0,"rate_per_s":30,"per_s":[30],"lat_ms":{"p50":9.9,"p95":10.1,"p99":10.1,"max":10.2,"mean":10},"hist":{"unit":"us","gamma":1.019182,"bounds":[9981.69,10195.9],"counts":[20,10]}}'

@test "merged line: counts and rates add, percentiles from the merged histogram, Jain's index" {
  run "$KIT_ROOT/lib/run/clienthosts-fanout.sh" "$BATS_TEST_TMPDIR/login" "$BATS_TEST_TMPDIR/rsh" \
    "$(host_dir ws1 "$LINE_A") $(host_dir ws2 "$LINE_B")" smb-login-storm -w 2 -d 1 //198.18.0.1/perftest
  assert_success
  local m=$output
  [[ -s $BATS_TEST_TMPDIR/login.client-ws1.json && -s $BATS_TEST_TMPDIR/login.client-ws2.json ]] || fail "per-host files"
  # each host got the credentials of its own folder, the arguments unchanged
  run cat "$BATS_TEST_TMPDIR/ws1/args.txt"
  assert_output "-A $BATS_TEST_TMPDIR/ws1/credentials -w 2 -d 1 //198.18.0.1/perftest"
  run jq -c '[.ok, .ops, .workers, .rate_per_s, .per_s, .window_s, (.client_hosts | map(.host)), .fairness]' <<<"$m"
  assert_output '[true,40,4,40,[40],1,["ws1","ws2"],{"hosts":2,"min_rate_per_s":10,"max_rate_per_s":30,"jain":0.8}]'
  # 40 samples: 10 at ~1 ms, 30 at ~10 ms. p50 is rank 20, a ~10 ms one; averaging the hosts'
  # p50s would give 5.45 ms, a time no login took
  run jq -c '.lat_ms | [(.p50 * 10 | round), (.p95 * 10 | round), .max, .mean]' <<<"$m"
  assert_output '[99,101,10.2,7.75]'
  run jq -c '.hist.counts' <<<"$m"
  assert_output '[10,20,10]'
}

@test "each host's client CPU, measured there: seconds, cores over its run, share of its cores; the hosts' sum" {
  local a b
  a=$(jq -c '. + {client_cpu_ms: 550, client_user_ms: 350, client_system_ms: 200, host_cores: 2}' <<<"$LINE_A")
  b=$(jq -c '. + {client_cpu_ms: 2400, client_user_ms: 1400, client_system_ms: 1000, host_cores: null}' <<<"$LINE_B")
  run "$KIT_ROOT/lib/run/clienthosts-fanout.sh" "$BATS_TEST_TMPDIR/login" "$BATS_TEST_TMPDIR/rsh" \
    "$(host_dir ws1 "$a") $(host_dir ws2 "$b")" smb-login-storm -w 2 -d 1 //198.18.0.1/perftest
  assert_success
  # ws1: 0.55 s over its 1.1 s = 0.5 cores, a quarter of its 2; ws2's cores unknown: no share
  run jq -c '[.client_cpu_ms, .client_user_ms, .client_system_ms,
    (.client_hosts[] | [.host, .client_cpu_s, .duration_s, .host_cores, .client_cores, .client_share])]' <<<"$output"
  assert_output '[2950,1750,1200,["ws1",0.55,1.1,2,0.5,0.25],["ws2",2.4,1.2,null,2,null]]'
  # a helper that does not measure it (smb-hold): no client CPU keys at all
  run "$KIT_ROOT/lib/run/clienthosts-fanout.sh" "$BATS_TEST_TMPDIR/l2" "$BATS_TEST_TMPDIR/rsh" \
    "$(host_dir ws3 "$LINE_A")" smb-login-storm //x/y
  run jq -c '[has("client_cpu_ms"), (.client_hosts[0] | has("client_cpu_s"))]' <<<"$output"
  assert_output '[false,false]'
}

@test "a host whose helper fails or prints nothing: the merged line is not ok and names the host" {
  local a b
  a=$(host_dir ws1 "$LINE_A")
  b=$(host_dir ws2 '')
  printf '#!/bin/sh\necho boom >&2\nexit 1\n' >"${b#*=}/smb-login-storm"
  run "$KIT_ROOT/lib/run/clienthosts-fanout.sh" "$BATS_TEST_TMPDIR/login" "$BATS_TEST_TMPDIR/rsh" "$a $b" smb-login-storm -d 1 //x/y
  assert_failure 1
  run jq -r '[.ok, .error, .ops] | @tsv' <<<"$output"
  assert_output $'false\tclient host ws2: smb-login-storm gave no result on ws2\t10'
  run cat "$BATS_TEST_TMPDIR/login.client-ws2.err"
  assert_output boom
}

# smb-files lines: A 100 creates at ~1 ms, 90 deletes at ~1 ms; B 300 creates at ~10 ms, 300
# deletes at ~10 ms, 2 files left
FILES_A='{"helper":"smb-files","ok":true,"duration_s":3,"workers":2,"ops":100,"errors":0,"create":{"ops":100,"errors":0,"rate_per_s":100,"duration_s":1,"lat_ms":{"p50":1.0096,"p95":1.0096,"p99":1.0096,"max":1.01,"mean":1}},"delete":{"ops":90,"errors":0,"rate_per_s":180,"duration_s":0.5,"lat_ms":{"p50":1.0096,"p95":1.0096,"p99":1.0096,"max":1.01,"mean":1},"hist":{"unit":"us","gamma":1.019182,"bounds":[1019.27],"counts":[90]}},"files_per_folder":50,"left_behind":0,"delete_cut":false,"window_s":1,"rate_per_s":100,"late_ops":0,"per_s":[100],"lat_ms":{"p50":1.0096,"p95":1.0096,"p99":1.0096,"max":1.01,"mean":1},"hist":{"unit":"us","gamma":1.019182,"bounds":[1019.27],"counts":[100]}}'
FILES_B='{"helper":"smb-files","ok":false,"error":"files left behind","duration_s":4,"workers":2,"ops":300,"errors":0,"create":{"ops":300,"errors":0,"rate_per_s":300,"duration_s":1,"lat_ms":{"p50":9.9,"p95":9.9,"p99":9.9,"max":10,"mean":9.9}},"delete":{"ops":298,"errors":2,"rate_per_s":298,"duration_s":1,"lat_ms":{"p50":9.9,"p95":9.9,"p99":9.9,"max":10,"mean":9.9},"hist":{"unit":"us","gamma":1.019182,"bounds":[9981.69],"counts":[298]}},"files_per_folder":150,"left_behind":2,"delete_cut":false,"window_s":1,"rate_per_s":300,"late_ops":1,"per_s":[300],"lat_ms":{"p50":9.9,"p95":9.9,"p99":9.9,"max":10,"mean":9.9},"hist":{"unit":"us","gamma":1.019182,"bounds":[9981.69],"counts":[301]}}'

@test "smb-files lines: phases merged (delete percentiles from the merged delete histograms), each host in its own folder" {
  run "$KIT_ROOT/lib/run/clienthosts-fanout.sh" "$BATS_TEST_TMPDIR/metadata" "$BATS_TEST_TMPDIR/rsh" \
    "$(host_dir ws1 "$FILES_A" smb-files) $(host_dir u@ws2 "$FILES_B" smb-files)" smb-files -w 2 -d 1 //198.18.0.1/perftest/metadata/@HOST@
  assert_success
  local m=$output
  run cat "$BATS_TEST_TMPDIR/u@ws2/args.txt"
  assert_output "-A $BATS_TEST_TMPDIR/u@ws2/credentials -w 2 -d 1 //198.18.0.1/perftest/metadata/u_ws2"
  [[ -s $BATS_TEST_TMPDIR/metadata.client-u_ws2.json ]] || fail "per-host file of u@ws2"
  run jq -c '[.ok, .error, .ops, .late_ops, .create.ops, .create.rate_per_s, .delete.ops, .delete.errors,
    .delete.rate_per_s, .left_behind, .files_per_folder, .delete_cut, .fairness.jain]' <<<"$m"
  assert_output '[false,"client host u@ws2: files left behind",400,1,400,400,388,2,478,2,150,false,0.8]'
  # 388 deletes: 90 at ~1 ms, 298 at ~9.9 ms; p50 is a ~9.9 ms one (the hosts' p50s averaged: 5.5)
  run jq -c '[(.delete.lat_ms.p50 * 10 | round), .delete.lat_ms.max, (.create.lat_ms.p50 * 10 | round), .create.lat_ms == .lat_ms]' <<<"$m"
  assert_output '[99,10,99,true]'
  run jq -c '[.client_hosts[] | [.host, .rate_per_s, .delete_rate_per_s, .left_behind]]' <<<"$m"
  assert_output '[["ws1",100,180,0],["u@ws2",300,298,2]]'
}

# hold_dir NAME [LINGER_S]: a client host folder whose smb-hold prints its line at once (-n N
# held), holds until its stdin ends, then leaves 'released' (and exits LINGER_S later).
hold_dir() {
  local d=$BATS_TEST_TMPDIR/$1 linger=${2:-0}
  mkdir -p "$d"
  cat >"$d/smb-hold" <<SH
#!/bin/sh
echo "\$@" >$d/args.txt
echo "{\"helper\":\"smb-hold\",\"ok\":true,\"asked\":\$4,\"held\":\$4,\"errors\":0,\"first_error\":null,\"fd_limit\":1024,\"interrupted\":false}"
cat >/dev/null
touch $d/released
sleep $linger
SH
  chmod +x "$d/smb-hold"
  echo "$1=$d"
}

@test "--hold --split: connections split over the hosts, the merged line while they hold, the end of stdin lets every host go" {
  local go=$BATS_TEST_TMPDIR/go out=$BATS_TEST_TMPDIR/merged.json pid fd i
  mkfifo "$go"
  # ws2 lingers 3 s after its release: ws1 must be let go at once all the same
  "$KIT_ROOT/lib/run/clienthosts-fanout.sh" --hold --split 5 "$BATS_TEST_TMPDIR/memory.hold" "$BATS_TEST_TMPDIR/rsh" \
    "$(hold_dir ws1) $(hold_dir ws2 3)" smb-hold -n @SPLIT@ //198.18.0.1/perftest/memory-test/@HOST@ <"$go" >"$out" &
  pid=$!
  exec {fd}>"$go"
  for ((i = 0; i < 100; i++)); do [[ -s $out ]] && break; sleep 0.1; done
  [[ ! -e $BATS_TEST_TMPDIR/ws1/released && ! -e $BATS_TEST_TMPDIR/ws2/released ]] || fail "a host let go before the end of stdin"
  run jq -c '[.ok, .asked, .held, .fd_limit, (.client_hosts | map([.host, .held])), .fairness]' "$out"
  assert_output '[true,5,5,1024,[["ws1",3],["ws2",2]],{"hosts":2,"min_held":2,"max_held":3,"jain":0.9615}]'
  run cat "$BATS_TEST_TMPDIR/ws2/args.txt"
  assert_output "-A $BATS_TEST_TMPDIR/ws2/credentials -n 2 //198.18.0.1/perftest/memory-test/ws2"
  exec {fd}>&-
  for ((i = 0; i < 20; i++)); do [[ -e $BATS_TEST_TMPDIR/ws1/released ]] && break; sleep 0.1; done
  [[ -e $BATS_TEST_TMPDIR/ws1/released ]] || fail "ws1 was not let go within 2 s (held by ws2's copy of its pipe?)"
  timeout 10 tail --pid="$pid" -f /dev/null || fail "the fan-out did not end after its stdin ended"
  wait "$pid" || fail "exit status $?"
  [[ -e $BATS_TEST_TMPDIR/ws1/released && -e $BATS_TEST_TMPDIR/ws2/released ]] || fail "a host was not let go"
}

@test "--split: a host whose share is 0 does not run" {
  run "$KIT_ROOT/lib/run/clienthosts-fanout.sh" --split 1 "$BATS_TEST_TMPDIR/c" "$BATS_TEST_TMPDIR/rsh" \
    "$(host_dir ws1 "$LINE_A") $(host_dir ws2 "$LINE_B")" smb-login-storm -w @SPLIT@ //x/y
  assert_success
  run jq -c '[.ops, (.client_hosts | map(.host))]' <<<"$output"
  assert_output '[10,["ws1"]]'
  run cat "$BATS_TEST_TMPDIR/ws1/args.txt"
  assert_output "-A $BATS_TEST_TMPDIR/ws1/credentials -w 1 //x/y"
  [[ ! -e $BATS_TEST_TMPDIR/ws2/args.txt && ! -e $BATS_TEST_TMPDIR/c.client-ws2.json ]] || fail "ws2 ran"
}

@test "--machine: each host's this_machine is the boot-id fact of the state (KIT_CLIENT_MACHINE); not known: left out" {
  run "$KIT_ROOT/lib/run/clienthosts-fanout.sh" --machine 'ws1=this ws2=other ws3=unknown' "$BATS_TEST_TMPDIR/login" \
    "$BATS_TEST_TMPDIR/rsh" "$(host_dir ws1 "$LINE_A") $(host_dir ws2 "$LINE_B") $(host_dir ws3 "$LINE_A") $(host_dir ws4 "$LINE_A")" \
    smb-login-storm //x/y
  assert_success
  run jq -c '[.client_hosts[] | [.host, .this_machine]]' <<<"$output"
  assert_output '[["ws1",true],["ws2",false],["ws3",null],["ws4",null]]'
  # without --machine (a kit started before the state had it) no host says it
  run "$KIT_ROOT/lib/run/clienthosts-fanout.sh" "$BATS_TEST_TMPDIR/l2" "$BATS_TEST_TMPDIR/rsh" "$(host_dir ws5 "$LINE_A")" smb-login-storm //x/y
  run jq -c '.client_hosts[0] | has("this_machine")' <<<"$output"
  assert_output false
}

@test "clienthosts_machine: a host is this machine when its kernel's boot id is this one's; unreadable or no id: unknown" {
  # shellcheck source=lib/run/clienthosts.sh
  source "$KIT_ROOT/lib/run/clienthosts.sh"
  local here
  here=$(cat /proc/sys/kernel/random/boot_id)
  run clienthosts_machine "$here"
  assert_output this
  run clienthosts_machine 00000000-1111-2222-3333-444444444444
  assert_output other
  run clienthosts_machine ''
  assert_output unknown
  run clienthosts_machine "x$here"
  assert_output unknown
  KIT_CLIENT_MACHINE='ws1=this u@ws2=other'
  run clienthosts_machine_words u@ws2
  assert_output "it is another machine (another boot id)"
  run clienthosts_machine_words ws3
  assert_output "whether it is this machine is not known (its boot id could not be read)"
}
