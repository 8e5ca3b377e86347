#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr is set by 'run --separate-stderr'
# shellcheck disable=SC2016 # jq_e's filters hold jq's own $variables
# A second instrument for every count a helper prints (issue 10, item 5): each helper runs
# against a private smbd, and its count is compared with the SMB2 requests tshark saw on the
# test port, with smbd's own profiling counters (smbstatus -P), and for cgcpu and pss-sum with
# sums the test takes from /proc and the cgroup itself. Every test prints what it measured
# (bats shows the '# ...' lines); each tolerance is stated and explained where it is checked.
# The private smbd neither signs nor encrypts unless asked (smbd-setup.bash), and the helpers
# ask for neither, so tshark can read every request.

bats_require_minimum_version 1.5.0

SMB_TOOLS=(smbd pdbedit smbstatus testparm jq make cc pkg-config)

# bats 1.8 cannot skip from setup_file: it only starts smbd when it can, and setup() skips
setup_file() {
  load '../test_helper/common-setup'
  load 'smbd-setup'
  _common_setup
  local c v2 p
  [[ $(id -u) -eq 0 ]] || return 0
  for c in "${SMB_TOOLS[@]}"; do
    command -v "$c" >/dev/null || return 0
  done
  pkg-config --exists smbclient || return 0
  make -s -C "$KIT_ROOT/helpers" >&2 || fail "the helpers do not build"
  PORT=$(kit_free_port 4440 4469) || fail "no free port in 4440-4469"
  SMBD_DIR=$BATS_FILE_TMPDIR/smbd
  helpers_smbd_start "$SMBD_DIR" "$PORT" || fail "private smbd did not start"
  H=$KIT_ROOT/helpers
  UNC=//127.0.0.1:$PORT/perf
  head -c 8M /dev/urandom >"$SMBD_SHARE/data.0"
  chmod 644 "$SMBD_SHARE/data.0"
  mkdir -m 1777 "$SMBD_SHARE/files"
  # the whole smbd (main, smbd-notifyd, cleanupd; connection children follow) in a cgroup v2
  # of the test's own, for cgcpu -g and pss-sum -g
  CG=
  v2=$(awk '$9 == "cgroup2" { print $5; exit }' /proc/self/mountinfo)
  if [[ -n $v2 ]] && mkdir "$v2/helpers-xcheck-$$" 2>/dev/null; then
    CG=$v2/helpers-xcheck-$$
    for p in $(helpers_smbd_pid "$SMBD_DIR") $(pgrep -P "$(helpers_smbd_pid "$SMBD_DIR")"); do
      echo "$p" >"$CG/cgroup.procs" 2>/dev/null || CG_ERR="cannot move smbd into $CG"
    done
  fi
  export PORT SMBD_DIR SMBD_CONF SMBD_SHARE SMBD_CREDS H UNC CG CG_ERR
}

teardown_file() {
  load 'smbd-setup'
  local i
  if [[ -n ${SMBD_DIR:-} ]]; then
    helpers_smbd_stop "$SMBD_DIR"
  fi
  if [[ -n ${CG:-} && -d $CG ]]; then
    for ((i = 0; i < 200; i++)); do
      rmdir "$CG" 2>/dev/null && break
      sleep 0.05
    done
  fi
}

setup() {
  load '../test_helper/common-setup'
  load 'json'
  load 'smbd-setup'
  load 'wire'
  _common_setup
  source "$KIT_ROOT/lib/common.sh"
  kit_require_root
  kit_require_cmd "${SMB_TOOLS[@]}"
  pkg-config --exists smbclient || skip "libsmbclient-dev is not installed"
  [[ -n ${SMBD_DIR:-} ]] || fail "the private smbd was not started"
  MAIN=$(helpers_smbd_pid "$SMBD_DIR")
}

teardown() {
  wire_stop 2>/dev/null || true
}

# settle: no connection child of an earlier test is left (helpers_smbd_settle)
settle() {
  local msg
  msg=$(helpers_smbd_settle "$SMBD_DIR" 2>&1) || fail "$msg"
}

# need_profile: skip unless this smbd keeps SMB2 counters (built WITH_PROFILE, level on)
need_profile() {
  local level
  smbd -b | grep -q WITH_PROFILE || skip "this smbd was built without profiling (smbd -b has no WITH_PROFILE)"
  level=$(testparm -s --parameter-name='smbd profiling level' "$SMBD_CONF" 2>/dev/null)
  [[ $level == on || $level == count ]] || skip "smbd profiling level is '$level' in the test smb.conf"
  smbstatus -s "$SMBD_CONF" -P 2>/dev/null | grep -q '^smb2_read_count:' ||
    skip "smbstatus -P shows no SMB2 counters (smbd profiling level)"
}

# profile_snap FILE: smbd's SMB2 request counters now, 'name value' lines
profile_snap() {
  smbstatus -s "$SMBD_CONF" -P | awk -F: '$1 ~ /^smb2_[a-z]+_count$/ { gsub(/ /, "", $2); print $1, $2 }' >"$1"
}

# profile_delta BEFORE AFTER NAME: how much counter NAME (e.g. smb2_read) grew
profile_delta() {
  awk -v k="$3_count" 'FNR == NR { if ($1 == k) b = $2; next } $1 == k { print $2 - b }' "$1" "$2"
}

# on_wire NAME CMD...: run CMD (a helper) into $output while tshark captures the test port;
# leaves the requests by command in $BATS_TEST_TMPDIR/NAME.req
on_wire() {
  local name=$1 pcap=$BATS_TEST_TMPDIR/$1.pcapng
  shift
  kit_require_cmd tshark
  settle
  wire_start "$pcap" "$PORT" || fail "cannot capture on lo"
  run --separate-stderr "$@"
  settle # every reply is on the wire once the connections are gone
  wire_stop || fail "the capture is incomplete"
  wire_requests "$pcap" "$PORT" >"$BATS_TEST_TMPDIR/$name.req"
}

# with_profile NAME CMD...: run CMD into $output between two profile snapshots
# ($BATS_TEST_TMPDIR/NAME.before and .after)
with_profile() {
  local name=$1
  shift
  need_profile
  settle
  profile_snap "$BATS_TEST_TMPDIR/$name.before"
  run --separate-stderr "$@"
  settle # a connection's counters reach the profile when its smbd child exits
  profile_snap "$BATS_TEST_TMPDIR/$name.after"
}

# Exact: one READ request for each 4 KiB read (below any server's max read size), and the
# helper counts every read that got its answer; with no errors nothing else was read.
@test "wire: smb-readers' ops equal the READ requests tshark saw" {
  local ops reads
  on_wire readers "$H/smb-readers" -A "$SMBD_CREDS" -c 2 -d 1 "$UNC/data.0"
  assert_success
  jq_e '.ok == true and .errors == 0 and .connected == 2' <<<"$output" || fail "$output"
  ops=$(jq '.ops + .late_ops' <<<"$output")
  reads=$(wire_req "$BATS_TEST_TMPDIR/readers.req" 8)
  echo "# smb-readers -c 2 -d 1: ops $ops, READ requests on the wire $reads, difference $((reads - ops))" >&3
  assert_equal "$reads" "$ops"
}

# Exact: each file is one WRITE (4 KiB) and two CREATEs (create-and-write, then open for
# delete); each worker adds three CREATEs for its folder (make it, list it once in the sweep
# for files it did not count, remove it).
@test "wire: smb-files' files equal the WRITE requests, its CREATEs 2 per file + 3 per worker" {
  local files writes creates want
  on_wire files "$H/smb-files" -A "$SMBD_CREDS" -w 2 -d 1 -s 4 "$UNC/files"
  assert_success
  jq_e '.ok == true and .create.errors == 0 and .delete.errors == 0
    and .delete.ops == .create.ops + .late_ops and .left_behind == 0' <<<"$output" || fail "$output"
  files=$(jq '.create.ops + .late_ops' <<<"$output")
  writes=$(wire_req "$BATS_TEST_TMPDIR/files.req" 9)
  creates=$(wire_req "$BATS_TEST_TMPDIR/files.req" 5)
  want=$((2 * files + 3 * 2))
  echo "# smb-files -w 2 -d 1: files $files, WRITE requests $writes; CREATE requests $creates, expected 2*$files+3*2 = $want" >&3
  assert_equal "$writes" "$files"
  assert_equal "$creates" "$want"
}

# Exact: a login is the guide's login and nothing more: NEGOTIATE, one NTLMSSP exchange (two
# SESSION_SETUP requests: negotiate, then authenticate), one TREE_CONNECT (the server has host
# msdfs = no, so libsmbclient makes no IPC$ tree connect for a DFS check), and the
# TREE_DISCONNECT of the disconnect (libsmbclient sends no LOGOFF); plus the one query that
# libsmbclient's tree connect itself makes, the share's file-system attributes (CREATE of the
# share root, GETINFO of class 0x02 file system, CLOSE). No stat or other file operation: no
# GETINFO of class 0x01 (file) and no second CREATE. With no errors no login was retried.
@test "wire: each login of smb-login-storm is exactly the guide's requests, without a file operation" {
  local ops cmd want got bad=
  on_wire storm "$H/smb-login-storm" -A "$SMBD_CREDS" -w 2 -d 1 "$UNC"
  assert_success
  jq_e '.ok == true and .errors == 0' <<<"$output" || fail "$output"
  [[ -z $stderr ]] || fail "smb-login-storm wrote to stderr: $stderr"
  ops=$(jq '.ops + .late_ops' <<<"$output")
  echo "# smb-login-storm -w 2 -d 1: logins $ops; requests by command: $(sort -n "$BATS_TEST_TMPDIR/storm.req" | tr '\n' ' ')" >&3
  # command number -> requests per login: negotiate 1, session setup 2, tree connect 1,
  # tree disconnect 1, create 1, close 1, getinfo 1
  declare -A per=([0]=1 [1]=2 [3]=1 [4]=1 [5]=1 [6]=1 [16]=1)
  while read -r cmd got; do
    want=$((${per[$cmd]:-0} * ops))
    [[ $got == "$want" ]] || bad+=" command $cmd: $got requests, expected $want;"
  done <"$BATS_TEST_TMPDIR/storm.req"
  for cmd in "${!per[@]}"; do
    grep -q "^$cmd " "$BATS_TEST_TMPDIR/storm.req" || bad+=" command $cmd: none;"
  done
  got=$(wire_getinfo_classes "$BATS_TEST_TMPDIR/storm.pcapng" "$PORT")
  echo "# GETINFO requests by class: $(tr '\n' ' ' <<<"$got")" >&3
  [[ $got == "0x02 $ops" ]] || bad+=" GETINFO classes '$(tr '\n' ' ' <<<"$got")', expected only 0x02 (file system), $ops;"
  [[ -z $bad ]] || fail "per login:$bad"
}

# The same counts as the wire tests, from smbd's own profile, with the same (exact) tolerances.
# Exact: smb-bigdir's opens (one CREATE per listing and per lookup or create, and the one of
# libsmbclient's tree connect) are the CREATE requests on the wire and smbd's smb2_create count;
# a listing's QUERY_DIRECTORY requests, which the client library does not show, are on the wire
# as many as smbd's smb2_find count, and at least two per listing (entries, then "no more").
@test "wire and profile: smb-bigdir's opens equal the CREATEs on the wire and smbd's; QUERY_DIRECTORY equals smbd's Find" {
  local opens creates finds pc pf
  need_profile
  mkdir -m 0777 "$SMBD_SHARE/big"
  (cd "$SMBD_SHARE/big" && seq -f 'Report_%05g.Docx' 1 3000 | xargs touch && chmod 666 ./*)
  settle
  profile_snap "$BATS_TEST_TMPDIR/big.before"
  on_wire big "$H/smb-bigdir" -A "$SMBD_CREDS" -l 3 -n 10 "$UNC/big"
  profile_snap "$BATS_TEST_TMPDIR/big.after"
  assert_success
  jq_e '.ok == true and .errors == 0 and .listing.ops == 3 and .entries == 3000' <<<"$output" || fail "$output"
  opens=$(jq .opens <<<"$output")
  creates=$(wire_req "$BATS_TEST_TMPDIR/big.req" 5)
  finds=$(wire_req "$BATS_TEST_TMPDIR/big.req" 14)
  pc=$(profile_delta "$BATS_TEST_TMPDIR"/big.{before,after} smb2_create)
  pf=$(profile_delta "$BATS_TEST_TMPDIR"/big.{before,after} smb2_find)
  echo "# smb-bigdir -l 3 -n 10 on 3000 files: opens $opens, CREATE on the wire $creates, smbd smb2_create $pc; QUERY_DIRECTORY on the wire $finds, smbd smb2_find $pf" >&3
  assert_equal "$creates" "$opens"
  assert_equal "$pc" "$opens"
  assert_equal "$pf" "$finds"
  ((finds >= 2 * 3)) || fail "want at least 2 QUERY_DIRECTORY per listing, saw $finds"
  rm -rf "$SMBD_SHARE/big"
}

@test "profile: smbd's smb2_read count equals smb-readers' ops" {
  local ops reads
  with_profile readers "$H/smb-readers" -A "$SMBD_CREDS" -c 2 -d 1 "$UNC/data.0"
  assert_success
  jq_e '.ok == true and .errors == 0' <<<"$output" || fail "$output"
  ops=$(jq '.ops + .late_ops' <<<"$output")
  reads=$(profile_delta "$BATS_TEST_TMPDIR"/readers.{before,after} smb2_read)
  echo "# smb-readers -c 2 -d 1: ops $ops, smbd smb2_read $reads, difference $((reads - ops))" >&3
  assert_equal "$reads" "$ops"
}

@test "profile: smbd's smb2_write and smb2_create counts agree with smb-files" {
  local files writes creates want
  with_profile files "$H/smb-files" -A "$SMBD_CREDS" -w 2 -d 1 -s 4 "$UNC/files"
  assert_success
  jq_e '.ok == true and .create.errors == 0 and .delete.errors == 0' <<<"$output" || fail "$output"
  files=$(jq '.create.ops + .late_ops' <<<"$output")
  writes=$(profile_delta "$BATS_TEST_TMPDIR"/files.{before,after} smb2_write)
  creates=$(profile_delta "$BATS_TEST_TMPDIR"/files.{before,after} smb2_create)
  want=$((2 * files + 3 * 2))
  echo "# smb-files -w 2 -d 1: files $files, smbd smb2_write $writes; smb2_create $creates, expected 2*$files+3*2 = $want" >&3
  assert_equal "$writes" "$files"
  assert_equal "$creates" "$want"
}

@test "profile: smbd's smb2_tcon and smb2_sesssetup counts agree with smb-login-storm" {
  local ops tcons sess
  with_profile storm "$H/smb-login-storm" -A "$SMBD_CREDS" -w 2 -d 1 "$UNC"
  assert_success
  jq_e '.ok == true and .errors == 0' <<<"$output" || fail "$output"
  ops=$(jq '.ops + .late_ops' <<<"$output")
  tcons=$(profile_delta "$BATS_TEST_TMPDIR"/storm.{before,after} smb2_tcon)
  sess=$(profile_delta "$BATS_TEST_TMPDIR"/storm.{before,after} smb2_sesssetup)
  echo "# smb-login-storm -w 2 -d 1: logins $ops, smbd smb2_tcon $tcons, smb2_sesssetup $sess (2 per login: $((2 * ops)))" >&3
  assert_equal "$tcons" "$ops"
  assert_equal "$sess" "$((2 * ops))"
}

# tree_pids ROOT: ROOT and its live descendants
tree_pids() {
  local p
  echo "$1"
  for p in $(pgrep -P "$1"); do
    tree_pids "$p"
  done
}

# proc_tree_us ROOT: utime+stime+cutime+cstime of ROOT's tree, from /proc/PID/stat, in µs
# (the fields after the ')' that ends the command name: 'smbd[127.0.0.1]' may hold spaces)
proc_tree_us() {
  local p tick sum=0 f
  tick=$(getconf CLK_TCK)
  for p in $(tree_pids "$1"); do
    f=$(cat "/proc/$p/stat" 2>/dev/null) || continue
    read -ra f <<<"${f##*) }"
    sum=$((sum + f[11] + f[12] + f[13] + f[14]))
  done
  echo $((sum * 1000000 / tick))
}

# cg_usage_us: usage_usec of the test's cgroup, read by the test
cg_usage_us() {
  awk '$1 == "usage_usec" { print $2 }' "$CG/cpu.stat"
}

# within PCT ABS_US A B: A and B differ by at most PCT % of the larger plus ABS_US
within() {
  awk -v p="$1" -v s="$2" -v a="$3" -v b="$4" 'BEGIN { m = a > b ? a : b; d = a - b; if (d < 0) d = -d;
    exit !(d <= m * p / 100 + s) }' || fail "$3 and $4 differ by more than $1 % + $2 µs"
}

# smbd's CPU over a smb-readers run, four ways: cgcpu -p and the test's own /proc sum (main's
# cutime/cstime hold the connection children once reaped: settle), cgcpu -g and the cgroup's
# cpu.stat read by the test. Same source, read a moment apart while smbd idles: 1 % + 20 ms.
# /proc against the cgroup: /proc has clock ticks (10 ms) and floors each of 4 fields of
# each process, twice (before, after): 2 % + 80 ms per process of the tree.
@test "cpu: cgcpu -p and -g on smbd agree with /proc and cpu.stat summed by the test" {
  local p0 p1 t0 t1 g0 g1 c0 c1 n dp dt dg dc
  [[ -n $CG ]] || skip "no cgroup v2 of the test's own: ${CG_ERR:-no cgroup2 mount}"
  [[ -z ${CG_ERR:-} ]] || skip "$CG_ERR"
  settle
  p0=$(jq_e .cpu_us < <("$H/cgcpu" -p "$MAIN")) || fail "cgcpu -p failed"
  t0=$(proc_tree_us "$MAIN")
  g0=$(jq_e .cpu_us < <("$H/cgcpu" -g "$CG")) || fail "cgcpu -g failed"
  c0=$(cg_usage_us)
  run --separate-stderr "$H/smb-readers" -A "$SMBD_CREDS" -c 2 -d 2 "$UNC/data.0"
  assert_success
  settle
  p1=$(jq_e .cpu_us < <("$H/cgcpu" -p "$MAIN")) || fail "cgcpu -p failed"
  t1=$(proc_tree_us "$MAIN")
  g1=$(jq_e .cpu_us < <("$H/cgcpu" -g "$CG")) || fail "cgcpu -g failed"
  c1=$(cg_usage_us)
  n=$(tree_pids "$MAIN" | wc -l)
  dp=$((p1 - p0)) dt=$((t1 - t0)) dg=$((g1 - g0)) dc=$((c1 - c0))
  echo "# smbd CPU over smb-readers -c 2 -d 2 (µs): cgcpu -p $dp, /proc by the test $dt; cgcpu -g $dg, cpu.stat by the test $dc; /proc vs cgroup $((dt - dc)) ($n processes)" >&3
  ((dc > 100000)) || fail "smbd used only $dc µs: not a measurement"
  within 1 20000 "$dp" "$dt"
  within 1 20000 "$dg" "$dc"
  within 2 $((80000 * n)) "$dt" "$dc"
}

# smaps_sum FIELD PID...: FIELD (Pss, Rss) summed over /proc/PID/smaps_rollup, in kB
smaps_sum() {
  local field=$1 p sum=0 v
  shift
  for p in "$@"; do
    v=$(awk -v f="$field:" '$1 == f { print $2 }' "/proc/$p/smaps_rollup" 2>/dev/null) || continue
    sum=$((sum + ${v:-0}))
  done
  echo "$sum"
}

# PSS and RSS of smbd while smb-hold holds 10 connections (smbd idle): pss-sum -p against the
# test's sum over the tree, pss-sum -g against its sum over cgroup.procs. RSS of idle
# processes does not move: 1 %. PSS moves when any process on the machine maps or unmaps a
# page smbd shares (other smbds, the libraries): 5 %.
@test "pss: pss-sum -p and -g on smbd agree with smaps_rollup summed by the test" {
  local fifo out pid pids cgpids sp sg tp tr gp gr
  settle
  fifo=$BATS_TEST_TMPDIR/fifo
  out=$BATS_TEST_TMPDIR/hold.json
  mkfifo "$fifo"
  "$H/smb-hold" -A "$SMBD_CREDS" -n 10 "$UNC" <"$fifo" >"$out" 3>&- &
  pid=$!
  exec 5>"$fifo"
  common_wait_until 60 0.1 test -s "$out" || {
    exec 5>&-
    fail "no line from smb-hold within 60 s"
  }
  mapfile -t pids < <(tree_pids "$MAIN")
  sp=$("$H/pss-sum" -p "$MAIN")
  tp=$(smaps_sum Pss "${pids[@]}")
  tr=$(smaps_sum Rss "${pids[@]}")
  if [[ -n $CG && -z ${CG_ERR:-} ]]; then
    mapfile -t cgpids < <(find "$CG" -name cgroup.procs -exec cat {} +)
    sg=$("$H/pss-sum" -g "$CG")
    gp=$(smaps_sum Pss "${cgpids[@]}")
    gr=$(smaps_sum Rss "${cgpids[@]}")
  fi
  exec 5>&-
  wait "$pid"
  jq_e '.held == 10' "$out" || fail "$(cat "$out")"
  echo "# pss-sum -p: $(jq -c '{processes, pss_kb, rss_kb}' <<<"$sp"); the test: ${#pids[@]} processes, pss $tp kB, rss $tr kB" >&3
  jq_e --argjson n "${#pids[@]}" '.ok == true and .processes == $n' <<<"$sp" || fail "$sp"
  within 1 0 "$(jq .rss_kb <<<"$sp")" "$tr"
  within 5 0 "$(jq .pss_kb <<<"$sp")" "$tp"
  [[ -n ${sg:-} ]] || skip "no cgroup v2 of the test's own: ${CG_ERR:-no cgroup2 mount}"
  echo "# pss-sum -g: $(jq -c '{processes, pss_kb, rss_kb}' <<<"$sg"); the test: ${#cgpids[@]} processes, pss $gp kB, rss $gr kB" >&3
  jq_e --argjson n "${#cgpids[@]}" '.ok == true and .source == "cgroup2" and .processes == $n' <<<"$sg" || fail "$sg"
  within 1 0 "$(jq .rss_kb <<<"$sg")" "$gr"
  within 5 0 "$(jq .pss_kb <<<"$sg")" "$gp"
}
