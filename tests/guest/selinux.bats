#!/usr/bin/env bats
# The kit under SELinux enforcing (issue 25): a qemu guest booted from an ext4 image of Debian
# 12 labelled for the reference policy (tests/guest/selinux-image.sh, kernel 'security=selinux
# enforcing=1'), running tests/guest/selinux-scenario.sh: start-samba.sh, test-samba.sh (small
# sizes), stop-samba.sh, test-samba.sh cleanup. Asserts smbd ran in smbd_t, the kit's folders
# carry the samba types, port TEST_PORT is smbd_port_t while the kit runs and not after cleanup
# (real semanage), and auditd saw no AVC denial from the kit's start to the end of cleanup.
# Runs only when asked: SELINUX_GUEST=1 (CI asks, with SEL_METRICS=seqwrite: about 8 min; all
# metrics take over 15 min under TCG); then it skips when qemu, the kernel package or the
# minimal Debian root cannot be had, unless REQUIRE_GUEST=1 (then fails).
#   SEL_METRICS='m ...' run only these metrics (default: all)
#   GUEST_TEST_OUT=DIR   keep the guest's results in DIR (default: the file's temp folder)
#   GUEST_TEST_REUSE=DIR assert on the results of an earlier run in DIR; boot nothing

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  local reason='' out img rc=0
  if [[ -n ${GUEST_TEST_REUSE:-} ]]; then
    export GUEST_TEST_OUT=$GUEST_TEST_REUSE
    return 0
  fi
  out=${GUEST_TEST_OUT:-$BATS_FILE_TMPDIR/selinux-guest}
  export GUEST_TEST_OUT=$out
  rm -rf "$out"
  mkdir -p "$out"
  if [[ ${SELINUX_GUEST:-0} != 1 ]]; then
    printf '%s\n' "the SELinux guest runs only with SELINUX_GUEST=1" >"$BATS_FILE_TMPDIR/skip-reason"
    return 0
  elif [[ $(id -u) -ne 0 ]]; then
    reason="needs root"
  elif ! "$KIT_ROOT/tests/guest/run-guest.sh" -c 2>"$out/check.log"; then
    reason=$(sed 's/^run-guest: error: //' "$out/check.log")
  elif ! "$KIT_ROOT/tests/guest/prepare-guest.sh" >/dev/null 2>"$out/prepare.log"; then
    reason="cannot prepare the guest kernel: $(grep -m1 'error:' "$out/prepare.log" || tail -n 1 "$out/prepare.log")"
  else
    img=$("$KIT_ROOT/tests/guest/selinux-image.sh" 2>"$out/image.log") || rc=$?
    ((rc == 0)) || reason="no SELinux image (selinux-image.sh exit $rc): $(tail -n 1 "$out/image.log")"
  fi
  if [[ -n $reason ]]; then
    if [[ ${REQUIRE_GUEST:-0} == 1 ]]; then
      echo "SELinux guest test cannot run (REQUIRE_GUEST=1): $reason" >&3
      return 1
    fi
    printf '%s\n' "$reason" >"$BATS_FILE_TMPDIR/skip-reason"
    return 0
  fi
  echo "# SELinux image: $img; results: $out" >&3
  rc=0
  local -a envs=()
  [[ -n ${SEL_METRICS:-} ]] && envs=(-e "SEL_METRICS=$SEL_METRICS")
  (cd "$KIT_ROOT" && GUEST_IMAGE=$img GUEST_CPUS=${GUEST_CPUS:-1} \
    GUEST_KERNEL_ARGS="security=selinux selinux=1 enforcing=1 ${GUEST_KERNEL_ARGS:-}" \
    timeout -k 30 "${GUEST_TEST_TIMEOUT:-3600}" tests/guest/run-guest.sh -t "${GUEST_TEST_TIMEOUT:-3600}" \
    "${envs[@]}" -r "$out" -- tests/guest/selinux-scenario.sh) >"$out/harness.log" 2>&1 || rc=$?
  echo "$rc" >"$out/harness-status"
  echo "# guest: $(cat "$out/guest-timing.json" 2>/dev/null || echo 'no timing')" >&3
  echo "# $(cat "$out/selinux/summary.txt" 2>/dev/null || echo 'selinux: no summary')" >&3
}

setup() {
  load ../test_helper/common-setup
  _common_setup
  if [[ -f $BATS_FILE_TMPDIR/skip-reason ]]; then
    skip "$(cat "$BATS_FILE_TMPDIR/skip-reason")"
  fi
  OUT=$GUEST_TEST_OUT
  S=$OUT/selinux
}

@test "selinux guest: enforcing, and every step of the kit did its job" {
  run cat "$OUT/harness-status"
  [[ $output == 0 ]] || { tail -n 40 "$OUT/harness.log" "$OUT/steps.tsv"; }
  assert_output 0
  run head -n 1 "$S/mode.txt"
  assert_output Enforcing
  run cut -f1,2 "$OUT/steps.tsv"
  assert_line --index 0 $'start\t0'
  assert_line --index 1 --regexp $'^test\t[01]$'
  assert_line --index 2 $'stop\t0'
  assert_line --index 3 $'cleanup\t0'
}

@test "selinux guest: smbd ran in smbd_t" {
  run cat "$S/after-start-ps.txt"
  assert_output --regexp ':smbd_t:'
  run awk '$1 !~ /:smbd_t:/' "$S/after-start-ps.txt"
  assert_output ''
}

@test "selinux guest: the share, config, state and log folders carry the samba types" {
  run cat "$S/after-start-labels.txt"
  assert_line --regexp ':samba_share_t:s0 /srv/samba-perf-test$'
  assert_line --regexp ':samba_etc_t:s0 /etc/samba/perf-test$'
  assert_line --regexp ':samba_var_t:s0 /var/lib/samba/perf-test$'
  assert_line --regexp ':samba_var_t:s0 /var/lib/samba/perf-test/private$'
  assert_line --regexp ':samba_log_t:s0 /var/log/samba/perf-test$'
}

@test "selinux guest: port 4450 is smbd_port_t while the kit runs, and not after cleanup" {
  local when
  for when in before after-start after-cleanup; do # semanage's list was read each time
    run grep -cE '^smbd_port_t +tcp ' "$S/$when-port-all.txt"
    assert_output 1
  done
  run cat "$S/before-port.txt"
  assert_output ''
  run cat "$S/after-start-port.txt"
  assert_output --regexp '^smbd_port_t +tcp +.*\b4450\b'
  run cat "$S/after-cleanup-port.txt"
  assert_output ''
}

@test "selinux guest: no AVC denial from the kit's start to the end of cleanup" {
  local n
  n=$(grep -c . "$S/avc.txt" || true) # grep -c exits 1 on an empty file
  echo "selinux: enforcing, $n AVC denials" >&3
  ((n == 0)) || cat "$S/avc.txt" >&3
  run cat "$S/summary.txt"
  assert_output "selinux: enforcing, 0 AVC denials"
}
