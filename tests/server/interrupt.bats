#!/usr/bin/env bats
# Ctrl-C during start-samba.sh (SIGINT to its whole process group, at several moments)
# leaves a state that './test-samba.sh cleanup' undoes completely.

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  [[ $(id -u) -eq 0 ]] || return 0
  srv_setup_file s4 127.0.0.6
}

teardown_file() {
  load server-setup
  srv_teardown_file
}

setup() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  kit_require_root
  kit_require_cmd smbd smbclient nft ss python3
}

# start_and_interrupt DELAY_S: run start-samba.sh as its own process group (SIGINT not
# ignored, as in a terminal), send SIGINT to the group after DELAY_S; print the exit status.
start_and_interrupt() {
  python3 - "$1" "$KIT_ROOT/start-samba.sh" <<'PY'
import os, signal, subprocess, sys, time
delay, script = float(sys.argv[1]), sys.argv[2]
p = subprocess.Popen([script], start_new_session=True, stdin=subprocess.DEVNULL,
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                     preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
time.sleep(delay)
try:
    os.killpg(p.pid, signal.SIGINT)
except ProcessLookupError:
    pass
_, err = p.communicate(timeout=60)
sys.stderr.write(err.decode())
print(p.returncode)
PY
}

@test "Ctrl-C at several moments of the start: cleanup leaves nothing behind" {
  local delay interrupted=0 t0 ms k
  # measure one whole start, then interrupt at 10 %, 30 %, ... 90 % of it
  t0=$(date +%s%N)
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  ms=$((($(date +%s%N) - t0) / 1000000))
  run srv_cleanup
  assert_success
  for k in 1 3 5 7 9; do
    printf -v delay '%d.%03d' $((ms * k / 10 / 1000)) $((ms * k / 10 % 1000))
    run start_and_interrupt "$delay"
    [[ ${lines[-1]} == 0 ]] || interrupted=$((interrupted + 1))
    run srv_cleanup
    assert_success
    srv_assert_clean
  done
  ((interrupted > 0)) || fail "no start was interrupted: the delays are too long for this machine"
}

@test "after an interrupted start, a new start works" {
  run start_and_interrupt 0.3
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  run srv_login "$SRV_ADDR"
  assert_success
  run srv_cleanup
  assert_success
  srv_assert_clean
}
