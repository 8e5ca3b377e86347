#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr is set by 'run --separate-stderr'
# tests/metrics/repeat-sweep.bats: REPEAT=N (median, min-max, spread and the repeats of every
# figure; raw/NAME.rK.*) and 'test-samba.sh sweep' (variants applied and compared, the server's
# settings restored, also after Ctrl-C) against a private kit started here (port 4500-4509,
# client 127.0.0.14, own user, table and service).

bats_require_minimum_version 1.5.0

setup_file() {
  load '../test_helper/common-setup'
  _common_setup
  [[ $(id -u) -eq 0 ]] || return 0
  load '../test_helper/private-kit'
  private_kit_setup t 4500 4509 127.0.0.14 small </dev/null || return 1
  T_ROOT=$PK_ROOT
  export T_ROOT
  private_kit_start || return 1
}

teardown_file() {
  load '../test_helper/private-kit'
  private_kit_teardown
}

setup() {
  load '../test_helper/common-setup'
  _common_setup
}

# last_run: print the newest run folder.
last_run() {
  find "$T_ROOT/results" -mindepth 1 -maxdepth 1 -type d -name '[0-9]*' | sort | tail -n 1
}

# last_sweep: print the newest sweep folder.
last_sweep() {
  find "$T_ROOT/results" -mindepth 1 -maxdepth 1 -type d -name 'sweep-*' | sort | tail -n 1
}

# signing_now: the running test server's 'server signing' as testparm reads its smb.conf.
signing_now() {
  testparm -s --parameter-name 'server signing' "$T_ROOT/conf/smb.conf" 2>/dev/null
}

# server_restarted_last LOG: the smbd running now is the one start-samba.sh started last in LOG
# (the restore), it runs, and smbstatus reaches it through the running smb.conf.
server_restarted_last() {
  local started pid
  started=$(sed -n 's/.*started smbd (pid \([0-9]*\)).*/\1/p' "$1" | tail -n 1)
  pid=$(sed -n 's/^KIT_SMBD_PID=//p' "$T_ROOT/state/kit.env")
  [[ -n $started && $started == "$pid" ]] || fail "smbd pid $pid is not the last one started ($started): $(cat "$1")"
  kill -0 "$pid" || fail "smbd $pid does not run"
  [[ $(grep -c 'started smbd' "$1") -ge 2 ]] || fail "the server was not restarted for a variant and back: $(cat "$1")"
  timeout 10 smbstatus -s "$T_ROOT/conf/smb.conf" -b >/dev/null || fail "smbstatus cannot reach the running smbd"
}

# session_signing: what smbstatus says of a session's signing on the running server, as the
# kit records it (system.json of a short login run: one held connection, smbstatus -b): with
# server signing = default a session is signed "(partial)", with mandatory "(full)".
session_signing() {
  DURATION=1 REPEAT=1 "$KIT_ROOT/test-samba.sh" login >/dev/null 2>&1 || true
  jq -r '.sessions.signing' "$(last_run)/system.json"
}

# sweep_and_interrupt WAIT_FOR DELAY_S ARG...: run 'test-samba.sh sweep ARG...' as its own
# process group (SIGINT not ignored, as in a terminal); once the running smb.conf contains
# WAIT_FOR and that variant's run has begun (a run folder in RESULTS_DIR: the sweep moves each
# finished one into its own folder; on a slow machine the variant's start-samba.sh alone takes
# longer than DELAY_S), wait DELAY_S and send SIGINT to the whole group, as Ctrl-C does; print
# the exit status last.
sweep_and_interrupt() {
  python3 - "$T_ROOT/conf/smb.conf" "$1" "$2" "$T_ROOT/results" "$KIT_ROOT/test-samba.sh" sweep "${@:3}" <<'PY'
import glob, os, signal, subprocess, sys, time
conf, want, delay, results, cmd = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], sys.argv[5:]
before = set(glob.glob(os.path.join(results, "2*")))
p = subprocess.Popen(cmd, start_new_session=True, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
t0 = time.time()
while time.time() - t0 < 120 and p.poll() is None:
    try:
        if want in open(conf).read() and set(glob.glob(os.path.join(results, "2*"))) - before:
            break
    except OSError:
        pass
    time.sleep(0.1)
time.sleep(delay)
try:
    os.killpg(p.pid, signal.SIGINT)
except ProcessLookupError:
    pass
_, err = p.communicate(timeout=180)
sys.stderr.write(err.decode())
print(p.returncode)
PY
}

@test "repeats: -r 2 gives median, min-max, spread and the repeats of every figure; raw/NAME.rK.*" {
  kit_require_root
  kit_require_cmd jq
  local dir m rc
  run --separate-stderr "$KIT_ROOT/test-samba.sh" -r 2 startup login metadata concurrency cpu memory
  rc=$status
  [[ $rc -eq 0 || $rc -eq 1 ]] || fail "exit status $rc: $stderr"
  dir=$(last_run)
  [[ ! -e $dir/INCOMPLETE ]] || fail "the run is marked incomplete: $(cat "$dir/INCOMPLETE")"
  grep -qx 'REPEAT=2' "$dir/settings.env"
  for m in login metadata concurrency cpu; do
    # value = median of the repeats (of 2: the lower, a measured value), spread = their min, max
    # and half range in % of the median
    run jq -e '(.repeats | length) == 2 and (.repeats | all(type == "number"))
      and .value == (.repeats | min) and .spread.n == 2
      and .spread.min == (.repeats | min) and .spread.max == (.repeats | max)
      and (.spread.median == .value)
      and (if .value != 0 then (.spread.half_range_pct - ((.spread.max - .spread.min) / 2 / .value * 100) | fabs) < 1e-9 else true end)
      and ([.details.repeats[].repeat] == [1, 2])
      and (.status == "PASS" or .status == "FAIL")' "$dir/metrics/$m.json"
    [[ $status -eq 0 ]] || fail "$m: $(cat "$dir/metrics/$m.json")"
    # the report shows median (range min–max, n=2)
    run grep -E "^\| \[$m\]\(#[a-z0-9_-]+\) \| [0-9.]+ [^|]*\(range [0-9.]+–[0-9.]+, n=2\)" "$dir/report.md"
    assert_success
  done
  # every figure of the details that changed between the repeats has its median, min and max
  run jq -e '.details.figures | length > 0 and all(.[]; .median != null and .min <= .median and .median <= .max)' "$dir/metrics/login.json"
  assert_success
  # startup runs once, its rounds are its repeats (value: the slowest); memory runs in every round
  run jq -e '(.repeats | length) == (.details.rounds | length) and .value == (.repeats | max)' "$dir/metrics/startup.json"
  assert_success
  run jq -e '(.repeats | length) == 2 and .spread.n == 2' "$dir/metrics/memory.json"
  assert_success
  # raw files: the repeat after the measurement's name; no repeat folder left behind
  for m in login.r1.json login.r2.json login.r2.evidence.json metadata.r1.json concurrency.4.r2.json \
    concurrency.1.r1.evidence.json cpu.readers.r2.json startup.1.json memory.hold.r1.json memory.hold.r2.json; do
    [[ -f $dir/raw/$m ]] || fail "no raw/$m: $(ls "$dir/raw")"
  done
  [[ ! -e $dir/raw/login.json ]] || fail "raw/login.json without its repeat"
  run find "$dir" -name '.repeat.*'
  assert_output ''
  # cpu per login comes from login's own repeats (not from runs of its own)
  [[ ! -e $dir/raw/cpu.login.r1.json ]] || fail "cpu ran a login storm of its own"
  # interleaved: login r1, metadata r1, ... then login r2
  run jq -r '.started_at' "$dir/raw/metadata.r1.evidence.json" "$dir/raw/login.r2.evidence.json"
  [[ ${lines[0]} < "${lines[1]}" || ${lines[0]} == "${lines[1]}" ]] || fail "not interleaved: ${lines[*]}"
  # the repeats format is what compare reads: two such runs compare with n=2+2
  run --separate-stderr "$KIT_ROOT/test-samba.sh" compare -o "$BATS_TEST_TMPDIR/cmp" "$dir" "$dir"
  assert_success
  run jq -e '.metrics[] | select(.metric == "login") | .runs[0].n == 2 and .versus[0].n == [2, 2]' "$BATS_TEST_TMPDIR/cmp/compare.json"
  assert_success
}

@test "repeats: REPEAT outside 1-50 is refused naming the key, before a run folder is made" {
  kit_require_root
  run "$KIT_ROOT/test-samba.sh" -r 0 login
  assert_failure 1
  assert_output --partial "setting 'REPEAT' has bad value '0'"
  REPEAT=x run "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_output --partial "setting 'REPEAT' has bad value 'x'"
}

@test "sweep: a second sweep of the same kit is refused at once, naming the first (lib/lock.sh)" {
  kit_require_root
  local f=/run/samba-perf-test/$PK_SERVICE.sweep.lock holder before
  before=$(find "$T_ROOT/results" -maxdepth 1 -name 'sweep-*' | wc -l)
  # a first sweep, as far as the lock can tell: its lock held, its pid beside it
  # (the subshell becomes the sleep, so killing it lets go of the lock: a sleep of its own
  # would keep fd 9, and the lock, for the next tests)
  (
    exec 9>>"$f"
    flock 9
    echo "4242 sweep" >"$f.holder"
    exec sleep 30
  ) &
  holder=$!
  for _ in 1 2 3 4 5 6 7 8 9 10; do
    [[ -s $f.holder ]] && break
    sleep 0.2
  done
  run timeout 20 "$KIT_ROOT/test-samba.sh" sweep --variant 'SIGNING=default' --variant 'SIGNING=mandatory' login
  kill "$holder" 2>/dev/null || true
  wait "$holder" 2>/dev/null || true
  rm -f "$f.holder"
  assert_failure 1
  assert_output --partial "another sweep (pid 4242) is running on this test server: wait for it to finish"
  assert_equal "$(find "$T_ROOT/results" -maxdepth 1 -name 'sweep-*' | wc -l)" "$before"
}

@test "sweep: a bad variant is refused naming it, before anything changes" {
  kit_require_root
  local before pid
  before=$(stat -c %Y "$T_ROOT/conf/smb.conf")
  pid=$(sed -n 's/^KIT_SMBD_PID=//p' "$T_ROOT/state/kit.env")
  run "$KIT_ROOT/test-samba.sh" sweep --variant 'SIGNING=default' --variant 'SIGNING=mandatory NOSUCH=1' login
  assert_failure 2
  assert_output "error: sweep: variant 2: unknown setting 'NOSUCH'"
  run "$KIT_ROOT/test-samba.sh" sweep --variant 'SIGNING=default' --variant 'SIGNING=sometimes' login
  assert_failure 2
  assert_output --partial "variant 2: setting 'SIGNING' has bad value 'sometimes'"
  run "$KIT_ROOT/test-samba.sh" sweep --variant 'SIGNING=default' --variant 'SHARE_DIR=/srv/x' login
  assert_failure 2
  assert_output --partial "setting 'SHARE_DIR' cannot vary in a sweep"
  run "$KIT_ROOT/test-samba.sh" sweep --variant 'SIGNING=default' login
  assert_failure 2
  assert_output --partial 'needs at least two variants'
  printf '# comment\nSIGNING=default\nSIGNING="mandatory\n' >"$BATS_TEST_TMPDIR/variants"
  run "$KIT_ROOT/test-samba.sh" sweep -f "$BATS_TEST_TMPDIR/variants" login
  assert_failure 2
  assert_output --partial 'variant 2'
  assert_output --partial 'unclosed " quote'
  run "$KIT_ROOT/test-samba.sh" sweep --variant 'SIGNING=default' --variant 'SIGNING=mandatory' nosuch
  assert_failure 2
  assert_output --partial "unknown metric 'nosuch'"
  # nothing changed: same smb.conf, same smbd, no sweep folder
  assert_equal "$(stat -c %Y "$T_ROOT/conf/smb.conf")" "$before"
  assert_equal "$(sed -n 's/^KIT_SMBD_PID=//p' "$T_ROOT/state/kit.env")" "$pid"
  [[ -z $(last_sweep) ]] || fail "a sweep folder was made: $(last_sweep)"
}

@test "sweep: SIGNING=default vs mandatory over login (file, comments) writes the comparison and restores the settings" {
  kit_require_root
  kit_require_cmd jq testparm smbstatus
  local dir conf_before rc
  conf_before=$(cat "$T_ROOT/conf/smb.conf")
  assert_equal "$(signing_now)" default
  printf '# the two signing settings\nSIGNING=default   # the reference\n\nSIGNING=mandatory\n' >"$BATS_TEST_TMPDIR/variants"
  DURATION=2 run --separate-stderr "$KIT_ROOT/test-samba.sh" sweep -r 2 -f "$BATS_TEST_TMPDIR/variants" login
  rc=$status
  [[ $rc -eq 0 || $rc -eq 1 ]] || fail "exit status $rc: $stderr"
  dir=$(last_sweep)
  [[ -n $dir && ! -e $dir/INCOMPLETE ]] || fail "no finished sweep folder: $stderr"
  [[ -d $dir/1-SIGNING=default && -d $dir/2-SIGNING=mandatory ]] || fail "run folders: $(ls "$dir")"
  # each variant was in effect during its run: its settings and what smbstatus saw
  grep -qx 'SIGNING=mandatory' "$dir/2-SIGNING=mandatory/settings.env"
  grep -q 'server signing = mandatory' "$dir/2-SIGNING=mandatory/smb.conf"
  grep -q 'server signing = default' "$dir/1-SIGNING=default/smb.conf"
  # one comparison of both, the first as the reference, the difference named above the table
  run jq -e '(.runs | length) == 2 and (.runs[0].name == "1-SIGNING=default")
    and any(.differences[]; .kind == "setting" and .key == "SIGNING" and .values == ["default", "mandatory"])
    and any(.differences[]; .kind == "smb.conf" and .key == "[global] server signing" and (.values[1] | IN("required", "mandatory")))
    and .unrecorded == []
    and (.metrics[] | select(.metric == "login") | .runs[0].n == 2 and .runs[1].n == 2
      and (.versus[0].verdict | IN("better", "worse", "no difference shown")) and .versus[0].p != null)' "$dir/compare.json"
  assert_success
  assert_output true
  run cat "$dir/compare.md"
  assert_output --partial '| login |'
  [[ $stderr == *"sweep: done"* ]] || fail "$stderr"
  # the original settings are in effect again: the same smb.conf, testparm, and the smbd that
  # runs now is the one started after it was restored
  assert_equal "$(cat "$T_ROOT/conf/smb.conf")" "$conf_before"
  assert_equal "$(signing_now)" default
  server_restarted_last "$dir/sweep.log"
  # and smbstatus sees sessions signed as under the first variant, not as under mandatory
  run jq -r '.sessions.signing' "$dir/1-SIGNING=default/system.json" "$dir/2-SIGNING=mandatory/system.json"
  [[ ${lines[0]} != "${lines[1]}" ]] || fail "smbstatus did not tell the variants apart: ${lines[*]}"
  assert_equal "$(session_signing)" "${lines[0]}"
}

@test "sweep: Ctrl-C during the second variant stops it and restores the original settings" {
  kit_require_root
  kit_require_cmd jq testparm smbstatus python3
  local dir conf_before run2
  conf_before=$(cat "$T_ROOT/conf/smb.conf")
  DURATION=4 run sweep_and_interrupt 'server signing = mandatory' 3 -r 2 \
    --variant 'SIGNING=default' --variant 'SIGNING=mandatory' login
  [[ ${lines[-1]} != 0 ]] || fail "the sweep was not interrupted: $output"
  assert_equal "${lines[-1]}" 130 # 128 + SIGINT, as README's exit-status table says
  assert_output --partial 'restoring the test server'
  dir=$(last_sweep)
  run cat "$dir/INCOMPLETE"
  assert_output --partial 'interrupted by the user (INT)'
  # the run of the second variant was stopped and says so; no comparison was written
  [[ ! -e $dir/compare.json ]] || fail "a comparison of an interrupted sweep"
  run2=$dir/2-SIGNING=mandatory
  [[ -e $run2/INCOMPLETE ]] || fail "the interrupted run is not in the sweep folder marked incomplete: $(ls "$dir")"
  [[ -f $dir/1-SIGNING=default/metrics/login.json ]] || fail "the first variant's run is missing"
  # the original settings are in effect again
  assert_equal "$(cat "$T_ROOT/conf/smb.conf")" "$conf_before"
  assert_equal "$(signing_now)" default
  server_restarted_last "$dir/sweep.log"
  run jq -r '.sessions.signing' "$dir/1-SIGNING=default/system.json"
  assert_equal "$(session_signing)" "$output"
  run pgrep -f "smb-login-storm.*127.0.0.14"
  assert_failure
}

@test "sweep: a server started with ENCRYPTION=yes: every variant starts from it, and it comes back with it" {
  # the sweep restored settings.conf's values (ENCRYPTION=no) and applied each variant on top
  # of them, so a variant changed two things
  kit_require_root
  kit_require_cmd jq testparm
  local dir rc
  ENCRYPTION=yes "$KIT_ROOT/start-samba.sh" >"$BATS_TEST_TMPDIR/start.log" 2>&1 || fail "$(cat "$BATS_TEST_TMPDIR/start.log")"
  # a variant that cannot go with the server's own settings is refused before anything changes
  local sum
  sum=$(sha256sum <"$T_ROOT/conf/smb.conf")
  run --separate-stderr "$KIT_ROOT/test-samba.sh" sweep -r 1 --variant 'SIGNING=default' --variant 'SIGNING=disabled' login
  assert_failure 2
  [[ $stderr == *"variant 2"*"SIGNING"* ]] || fail "$stderr"
  assert_equal "$(sha256sum <"$T_ROOT/conf/smb.conf")" "$sum"
  DURATION=1 run --separate-stderr "$KIT_ROOT/test-samba.sh" sweep -r 1 \
    --variant 'SIGNING=default' --variant 'SIGNING=mandatory' login
  rc=$status
  [[ $rc -eq 0 || $rc -eq 1 ]] || fail "exit status $rc: $stderr"
  [[ $stderr == *"the test server was started with ENCRYPTION=yes: each variant starts from that"* ]] || fail "$stderr"
  dir=$(last_sweep)
  grep -q 'server smb encrypt = required' "$dir/1-SIGNING=default/smb.conf"
  grep -q 'server smb encrypt = required' "$dir/2-SIGNING=mandatory/smb.conf"
  # back as it was started: encryption on, recorded as from start-samba.sh's environment
  assert_equal "$(testparm -s --parameter-name 'server smb encrypt' "$T_ROOT/conf/smb.conf" 2>/dev/null)" required
  run grep -E '^KIT_SAMBA_SETTINGS(_ENV)?=' "$T_ROOT/state/kit.env"
  assert_line 'KIT_SAMBA_SETTINGS="ENCRYPTION=yes SIGNING=default STRICT_SYNC=yes USE_SENDFILE=no"'
  assert_line 'KIT_SAMBA_SETTINGS_ENV=ENCRYPTION'
  # the tests after this one expect the server of setup_file
  "$KIT_ROOT/start-samba.sh" >"$BATS_TEST_TMPDIR/start.log" 2>&1 || fail "$(cat "$BATS_TEST_TMPDIR/start.log")"
}
