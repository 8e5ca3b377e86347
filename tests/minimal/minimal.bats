#!/usr/bin/env bats
# A new user on a minimal Debian 12: the README's './start-samba.sh && ./test-samba.sh' and
# 'tests/run' in a chroot made by 'debootstrap --variant=minbase' plus git, make and
# ca-certificates (built once by minbase.sh and cached), from a clone of the committed HEAD
# (chroot-run.sh). tests/run there runs every folder but guest/ (the qemu guest needs the
# host's root and ~7 min; run-guest.sh -c checks what it lacks instead) and minimal/ (no
# recursion). Several minutes: package installs, then most of the suite.
# Skips with the reason when debootstrap or the Debian mirror cannot be had, or a kit of
# this machine runs (the chroot shares the kernel and network); MINIMAL_REQUIRE=1 fails instead.
#   MINIMAL_TEST_OUT=DIR    keep the logs, steps and results in DIR (default: the file's temp folder)
#   MINIMAL_TEST_REUSE=DIR  assert on an earlier run's DIR; run nothing

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  local reason='' tar out rc=0 t
  if [[ -n ${MINIMAL_TEST_REUSE:-} ]]; then
    export MINIMAL_TEST_OUT=$MINIMAL_TEST_REUSE
    echo "# reusing the minimal-chroot results in $MINIMAL_TEST_REUSE" >&3
    return 0
  fi
  out=${MINIMAL_TEST_OUT:-$BATS_FILE_TMPDIR/minimal}
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
  elif ss -Hltn 'sport = :4450' 2>/dev/null | grep -q . || ss -Hltn 'sport = :4459' 2>/dev/null | grep -q .; then
    reason="a test smbd of this machine listens on port 4450 or 4459: the chroot shares the network"
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
    echo "# minimal Debian root: ${tar:-none} ($((SECONDS - t)) s)" >&3
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

setup() {
  load ../test_helper/common-setup
  _common_setup
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

@test "minimal Debian 12: the chroot was set up and every step ran" {
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

@test "minimal Debian 12: ./start-samba.sh installs what it needs, builds the helpers and starts" {
  run step_status start
  [[ $output == 0 ]] || show "$R/start.log"
  assert_output 0
  run cat "$R/start.log"
  assert_output --partial "packages: installing "
  assert_line --regexp '^helpers: building'
  assert_line --partial "test smbd is running"
  refute_output --partial "warning:"
}

@test "minimal Debian 12: ./test-samba.sh runs every metric and reports" {
  local rc res m
  rc=$(step_status test)
  [[ $rc == 0 || $rc == 1 ]] || {
    show "$R/test.log"
    fail "test-samba.sh exit $rc"
  }
  res=$(find "$R/results" -name results.json | sort | tail -n 1)
  [[ -n $res ]] || fail "no results.json"
  [[ ! -e ${res%/*}/INCOMPLETE ]] || fail "the run is marked INCOMPLETE"
  [[ -s ${res%/*}/report.md ]] || fail "no report.md"
  for m in startup login seqwrite seqread randread randwrite latency errors metadata concurrency cpu memory; do
    run jq -r --arg m "$m" '.metrics[$m].status' "$res"
    assert_output --regexp '^(PASS|FAIL|SKIP)$'
  done
  # the libsmbclient metrics need no mount: numbers, not skips
  for m in startup login metadata concurrency cpu memory; do
    run jq -e --arg m "$m" '.metrics[$m].value | type == "number"' "$res"
    assert_success
  done
  # the exit status agrees with the verdict
  run jq -r .verdict "$res"
  if [[ $output == FAIL ]]; then assert_equal "$rc" 1; else assert_equal "$rc" 0; fi
}

@test "minimal Debian 12: the samba install left no distribution smbd, nmbd or samba-ad-dc enabled or running" {
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
  run grep -v 'perf-test/smb.conf' "$R/samba-after-procs.txt"
  assert_output ''
  run grep -v 'perf-test' "$R/samba-end-procs.txt"
  assert_output ''
  # the start says what it did
  run cat "$R/start.log"
  assert_line --regexp "packages: the distribution's smbd nmbd.* \(installed with samba just now\) left stopped and disabled"
  assert_line --regexp "^  packages: +the distribution's smbd nmbd"
}

@test "minimal Debian 12: before tests/run installed them, the guest names the package it lacks" {
  run step_status guest-check
  assert_output 125
  run cat "$R/guest-check.log"
  assert_output --regexp "not found \(package [a-z0-9-]+\)"
  refute_output --partial "panic"
  run step_status guest-ready
  [[ $output == 0 ]] || show "$R/guest-ready.log"
  assert_output 0
}

@test "minimal Debian 12: tests/run (all but the guest and this file) passes" {
  run grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$R/suite.log"
  assert_success
  [[ $output =~ ^[0-9]+\ passed,\ 0\ failed ]] || {
    # each failed test with what it printed (its '# ' lines), 40 lines at most a test
    awk '/^not ok/ { on = 1; n = 0; print; next } /^(ok|not ok) / { on = 0 }
      on && /^#/ && n++ < 40 { print }' "$R/suite.log"
    fail "in the chroot: $output"
  }
  run step_status suite
  assert_output 0
}

# CI runs the suite only in the chroot, and on this machine the files of host-tests (.ci/run):
# a test the chroot skips must be in one of them, or CI would never run it.
@test "minimal Debian 12: every test skipped in the chroot is in tests/minimal/host-tests, which CI runs here" {
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

@test "minimal Debian 12: nothing of the chroot kept running or stayed mounted" {
  run cat "$R/leftover.txt"
  assert_output ''
  run cat "$R/mounts.txt"
  assert_output ''
  run awk -v r="$R/root" 'index($5, r) == 1' /proc/self/mountinfo
  assert_output ''
  assert [ ! -e "$R/root" ]
}

@test "minimal Debian 12: TERM during the start ends the chroot run at once, leaving no process, mount or folder" {
  [[ -f $BATS_FILE_TMPDIR/tar ]] || skip "reusing an earlier run: no chroot here"
  local out=$BATS_TEST_TMPDIR/intr pid i rc=0 p t0
  "$KIT_ROOT/tests/minimal/chroot-run.sh" -o "$out" "$(cat "$BATS_FILE_TMPDIR/tar")" 2>"$BATS_TEST_TMPDIR/err" &
  pid=$!
  for ((i = 0; i < 600; i++)); do # the start is under way: it has written its first lines
    [[ -s $out/start.log ]] && break
    sleep 0.1
  done
  [[ -s $out/start.log ]] || fail "the start did not begin: $(cat "$BATS_TEST_TMPDIR/err")"
  sleep 2
  t0=$SECONDS
  kill -TERM "$pid"
  wait "$pid" || rc=$?
  assert_equal "$rc" 130
  ((SECONDS - t0 <= 15)) || fail "took $((SECONDS - t0)) s to end"
  run awk -v r="$out/root" 'index($5, r) == 1' /proc/self/mountinfo
  assert_output ''
  assert [ ! -e "$out/root" ]
  for p in /proc/[0-9]*; do
    [[ $(readlink "$p/root" 2>/dev/null) != "$out/root" ]] || fail "process ${p#/proc/} still runs in the chroot"
  done
  # what was ended is named
  run cat "$out/leftover.txt"
  assert_output --partial "start-samba.sh"
}
