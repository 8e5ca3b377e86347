# tests/minimal/chroot.bash: what minimal.bats (Debian 12, the whole suite) and debian13.bats
# (Debian 13, the README run and the unit and helper tests) share: the chroot run in
# setup_file and the checks of its steps.
#   load chroot                               (from tests/minimal/x.bats)
#   minimal_setup_file [SUBDIR]               (in setup_file, after _common_setup; MINIMAL_SUITE
#                                              and MINIMAL_TESTS as chroot-run.sh takes them)
#   minimal_setup                             (in setup: skips with setup_file's reason, sets R)
# SUBDIR keeps a second file's logs apart under MINIMAL_TEST_OUT and MINIMAL_TEST_REUSE.
# shellcheck disable=SC2154 # output is set by bats' run

# minimal_setup_file [SUBDIR]: build or reuse the minimal root of MINIMAL_SUITE and run
# chroot-run.sh once; the logs stay in MINIMAL_TEST_OUT[/SUBDIR] (exported).
minimal_setup_file() {
  local sub=${1:-} reason='' tar out rc=0 t
  if [[ -n ${MINIMAL_TEST_REUSE:-} ]]; then
    export MINIMAL_TEST_OUT=$MINIMAL_TEST_REUSE${sub:+/$sub}
    echo "# reusing the minimal-chroot results in $MINIMAL_TEST_OUT" >&3
    return 0
  fi
  out=${MINIMAL_TEST_OUT:-$BATS_FILE_TMPDIR/minimal}${sub:+/$sub}
  export MINIMAL_TEST_OUT=$out
  mkdir -p "$out"
  if [[ -e /.samba-perf-test-minimal ]]; then
    printf '%s\n' "inside the minimal chroot already: no recursion" >"$BATS_FILE_TMPDIR/skip-reason"
    return 0
  fi
  if [[ $(id -u) -ne 0 ]]; then
    reason="needs root"
  elif ! git -C "$KIT_ROOT" rev-parse --verify -q HEAD >/dev/null 2>&1; then
    reason="the kit is not a git checkout (or git is missing): nothing to clone into the chroot"
  elif ss -Hltn 'sport = :4450' 2>/dev/null | grep -q . || ss -Hltn "sport = :${MINIMAL_PORT:-4459}" 2>/dev/null | grep -q .; then
    reason="a test smbd of this machine listens on port 4450 or ${MINIMAL_PORT:-4459}: the chroot shares the network"
  elif nft list table ip samba_perf_test >/dev/null 2>&1; then
    reason="this machine's kit runs (nft table 'ip samba_perf_test'): the chroot shares the kernel"
  else
    t=$SECONDS
    tar=$("$KIT_ROOT/tests/minimal/minbase.sh" 2>"$out/minbase.log") || rc=$?
    if ((rc == 3)); then
      reason=$(sed -n 's/^minbase: cannot: //p' "$out/minbase.log" | tail -n 1)
    elif ((rc != 0)); then
      reason="minbase.sh failed (exit $rc): $(tail -n 1 "$out/minbase.log")"
    fi
    echo "# minimal Debian root (${MINIMAL_SUITE:-bookworm}): ${tar:-none} ($((SECONDS - t)) s)" >&3
  fi
  if [[ -n $reason ]]; then
    [[ ${MINIMAL_REQUIRE:-0} == 1 ]] && {
      echo "minimal test cannot run (MINIMAL_REQUIRE=1): $reason" >&3
      return 1
    }
    printf '%s\n' "$reason" >"$BATS_FILE_TMPDIR/skip-reason"
    return 0
  fi
  echo "$tar" >"$BATS_FILE_TMPDIR/tar"
  rm -rf "$out/run"
  rc=0
  timeout -k 60 3000 "$KIT_ROOT/tests/minimal/chroot-run.sh" -o "$out/run" "$tar" >"$out/chroot-run.log" 2>&1 || rc=$?
  echo "$rc" >"$out/run-status"
  echo "# minimal chroot: $(awk '{ printf "%s=%s(%ss) ", $1, $2, $3 }' "$out/run/steps.tsv" 2>/dev/null)" >&3
  echo "# minimal chroot suite: $(grep -E '^[0-9]+ passed, [0-9]+ failed' "$out/run/suite.log" 2>/dev/null | tail -n 1)" >&3
}

# minimal_setup: skip with setup_file's reason; R is the chroot run's folder.
minimal_setup() {
  if [[ -f $BATS_FILE_TMPDIR/skip-reason ]]; then
    skip "$(cat "$BATS_FILE_TMPDIR/skip-reason")"
  fi
  R=$MINIMAL_TEST_OUT/run
}

# step_status NAME: the exit status of a chroot-run.sh step ('none' when it did not run).
step_status() {
  awk -v s="$1" '$1 == s { print $2; found = 1 } END { if (!found) print "none" }' "$R/steps.tsv"
}

# show FILE...: the end of files, for a failing test's output.
show() {
  local f
  for f in "$@"; do
    echo "--- $f"
    tail -n 40 "$f" 2>&1
  done
}

# check_steps_ran: chroot-run.sh ended 0 and ran every step.
check_steps_ran() {
  run cat "$MINIMAL_TEST_OUT/run-status"
  [[ $output == 0 ]] || show "$MINIMAL_TEST_OUT/chroot-run.log"
  assert_output 0
  run cut -f1 "$R/steps.tsv"
  assert_output "setup
samba-before
start
test
samba-after
cleanup
guest-check
suite
guest-ready
samba-end
total"
}

# check_start: ./start-samba.sh installed, built, started, and warned of nothing, in at most 40 lines.
check_start() {
  run step_status start
  [[ $output == 0 ]] || show "$R/start.log"
  assert_output 0
  run cat "$R/start.log"
  assert_output --partial "packages: installing "
  assert_line --regexp '^helpers: building'
  assert_line --partial "test smbd is running"
  refute_output --partial "warning:"
  # issue 21: on a fresh machine the start prints at most about 40 lines (the package
  # manager's output goes to its log; 24 lines in CI's Debian 12 and 13 chroots)
  local n
  n=$(wc -l <"$R/start.log")
  echo "# start-samba.sh printed $n lines" >&3
  ((n <= 40)) || fail "start-samba.sh printed $n lines, more than 40: $(head -n 60 "$R/start.log")"
}

# check_test_run: ./test-samba.sh exited 0 or 1, wrote a complete report, every metric is
# PASS, FAIL or SKIP and the libsmbclient metrics have numbers; prints nothing, sets RES to
# the results.json.
check_test_run() {
  local rc m
  rc=$(step_status test)
  [[ $rc == 0 || $rc == 1 ]] || {
    show "$R/test.log"
    fail "test-samba.sh exit $rc"
  }
  RES=$(find "$R/results" -name results.json | sort | tail -n 1)
  [[ -n $RES ]] || fail "no results.json"
  [[ ! -e ${RES%/*}/INCOMPLETE ]] || fail "the run is marked INCOMPLETE"
  [[ -s ${RES%/*}/report.md ]] || fail "no report.md"
  for m in startup login seqwrite seqread randread randwrite latency errors metadata concurrency cpu memory; do
    run jq -r --arg m "$m" '.metrics[$m].status' "$RES"
    assert_output --regexp '^(PASS|FAIL|SKIP)$'
  done
  # the libsmbclient metrics need no mount: numbers, not skips
  for m in startup login metadata concurrency cpu memory; do
    run jq -e --arg m "$m" '.metrics[$m].value | type == "number"' "$RES"
    assert_success
  done
  # the exit status agrees with the verdict
  run jq -r .verdict "$RES"
  if [[ $output == FAIL ]]; then assert_equal "$rc" 1; else assert_equal "$rc" 0; fi
}

# not_the_kits PROCS: the lines of a chroot-run.sh PROCS file ('PID PPID COMMAND LINE') of a
# Samba daemon that is neither the kit's smbd (its config under /etc/samba/perf-test) nor its
# child.
not_the_kits() {
  awk 'NR == FNR { if (index($0, "/etc/samba/perf-test/")) kit[$1] = 1; next }
    !($1 in kit) && !($2 in kit)' "$1" "$1"
}

# check_samba_services: the distribution's smbd, nmbd and samba-ad-dc present at most, never
# enabled or running, and the start says so.
check_samba_services() {
  run cat "$R/samba-before.log"
  assert_output "smbd no no no
nmbd no no no
samba-ad-dc no no no"
  run cat "$R/samba-after.log"
  assert_line --regexp '^smbd yes no no$'
  assert_line --regexp '^nmbd yes no no$'
  assert_line --regexp '^samba-ad-dc (yes|no) no no$'
  # after the whole suite too: present at most, never enabled or running
  run grep -cvE '^(smbd|nmbd|samba-ad-dc) (yes|no) no no$' "$R/samba-end.log"
  assert_output 0
  # no Samba daemon in the chroot but the kit's own (its config under /etc/samba/perf-test)
  # and its children ('smbd: notifyd .' and 'smbd: cleanupd' on Samba >= 4.18)
  run grep -c 'perf-test/smb.conf' "$R/samba-after-procs.txt"
  refute_output 0
  run not_the_kits "$R/samba-after-procs.txt"
  assert_output ''
  run not_the_kits "$R/samba-end-procs.txt"
  assert_output ''
  # the start says what it did
  run cat "$R/start.log"
  assert_line --regexp "packages: the distribution's smbd nmbd.* \(installed with samba just now\) left stopped and disabled"
  assert_line --regexp "^  packages: +the distribution's smbd nmbd"
}

# check_guest_packages: run-guest.sh -c named the package it lacked before tests/run, and
# found all after.
check_guest_packages() {
  run step_status guest-check
  assert_output 125
  run cat "$R/guest-check.log"
  assert_output --regexp "not found \(package [a-z0-9-]+\)"
  refute_output --partial "panic"
  run step_status guest-ready
  [[ $output == 0 ]] || show "$R/guest-ready.log"
  assert_output 0
}

# check_suite_passed: tests/run in the chroot ended 'N passed, 0 failed' and exit 0.
check_suite_passed() {
  run grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$R/suite.log"
  assert_success
  [[ $output =~ ^[0-9]+\ passed,\ 0\ failed ]] || {
    # each failed test with what it printed: its '# ' lines after it and, for a setup_file that
    # failed, what came before it since the last test (private_kit_start's start.log), 40 lines
    # at most each
    awk '/^not ok/ { for (i = 0; i < b; i++) print buf[i]; b = 0; on = 1; n = 0; print; next }
      /^(ok|not ok) / { on = 0; b = 0; next }
      on && /^#/ && n++ < 40 { print; next } !on && b < 40 { buf[b++] = "# " $0 }' "$R/suite.log"
    fail "in the chroot: $output"
  }
  run step_status suite
  assert_output 0
}

# check_skips_listed: every test skipped in the chroot is in tests/minimal/host-tests, which
# CI runs on this machine (.ci/run): else CI would never run it.
check_skips_listed() {
  local name f missing=''
  run grep -cE '^ok [0-9]+ ' "$R/suite.log"
  [[ $output -gt 0 ]] || fail "no test ran in the chroot"
  while IFS= read -r name; do
    f=$(grep -rlF --include='*.bats' -- "@test \"$name\"" "$KIT_ROOT/tests" | head -n 1)
    f=${f#"$KIT_ROOT"/}
    sed -e 's/#.*//' -e 's/[[:space:]]*$//' "$KIT_ROOT/tests/minimal/host-tests" | grep -qxF -- "${f:-none}" ||
      missing+="  ${f:-no file}: $name"$'\n'
  done < <(sed -nE 's/^ok [0-9]+ (.*) in [0-9]+ms # skip.*/\1/p' "$R/suite.log")
  [[ -z $missing ]] || fail "skipped in the chroot and not in tests/minimal/host-tests:"$'\n'"$missing"
}

# check_nothing_left: no process of the chroot kept running, nothing stayed mounted, the root
# is gone.
check_nothing_left() {
  run cat "$R/leftover.txt"
  assert_output ''
  run cat "$R/mounts.txt"
  assert_output ''
  run awk -v r="$R/root" 'index($5, r) == 1' /proc/self/mountinfo
  assert_output ''
  assert [ ! -e "$R/root" ]
}
