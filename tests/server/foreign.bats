#!/usr/bin/env bats
# Never harm the host, round 2 (issue 24): each test plants a hostile folder, file, value or
# process of another user or another kit, and checks that the kit refuses with one line naming
# the key or the path, and that nothing foreign changed. Classes as the issue numbers them.
# shellcheck disable=SC2016 # the bash -c programs expand in the child

setup_file() {
  load ../test_helper/common-setup
  _common_setup
  load server-setup
  [[ $(id -u) -eq 0 ]] || return 0
  srv_setup_file f24 127.0.0.24
  make -C "$KIT_ROOT/helpers" >/dev/null
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
  kit_require_cmd smbd smbclient nft ss python3 flock
}

teardown() {
  # a second kit a test made: cleaned up with its own settings
  if [[ -n ${KITB:-} ]]; then KIT_SETTINGS=$KITB.conf "$KIT_ROOT/test-samba.sh" cleanup >/dev/null 2>&1 || true; fi
  if [[ -n ${RUNPID:-} ]]; then kill "$RUNPID" 2>/dev/null || true; fi
  local m
  for m in "$BATS_TEST_TMPDIR/theirs" "$BATS_TEST_TMPDIR/open"; do
    if mountpoint -q "$m"; then umount "$m" || true; fi
  done
  return 0
}

# kitb_settings: write KITB.conf, a second kit's settings file: its own folders (under KITB),
# port, address and names (the file's kit's with a 'b').
kitb_settings() {
  KITB=$BATS_TEST_TMPDIR/kitb
  sed -e "s#$SRV_ROOT#$KITB#g" -e "s/^TEST_PORT=.*/TEST_PORT=$(kit_free_port 4451 4459)/" \
    -e "s/^CLIENT_ADDR=.*/CLIENT_ADDR=127.0.0.25/" -e "s/^SERVICE_NAME=.*/SERVICE_NAME=${SRV_SERVICE}b/" \
    -e "s/^TEST_USER=.*/TEST_USER=${SRV_USER}b/" -e "s/^NFT_TABLE=.*/NFT_TABLE=${SRV_TABLE}b/" \
    "$SRV_SETTINGS" >"$KITB.conf"
}

# assert_names TEXT: the output names TEXT.
assert_names() {
  [[ $output == *"$1"* ]] || fail "the message does not name '$1': $output"
}

# ---- 1. folders someone else owns -------------------------------------------------------------

@test "1 a RESULTS_DIR of another user, in another user's folder or writable by others is refused; nothing written" {
  local nobody d before
  nobody=$(id -u nobody)
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  d=$SRV_ROOT/theirs
  mkdir -m 0755 "$d" "$SRV_ROOT/alice" "$SRV_ROOT/open"
  chown nobody:nogroup "$d" "$SRV_ROOT/alice"
  chmod 0777 "$SRV_ROOT/open"
  before=$(stat -c '%u %g %a' "$d" "$SRV_ROOT/alice" "$SRV_ROOT/open")
  run env RESULTS_DIR="$d" DURATION=1 "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_names "error: '$d' (setting 'RESULTS_DIR') is owned by uid $nobody, not root: refusing to use it"
  run env RESULTS_DIR="$SRV_ROOT/alice/results" DURATION=1 "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_names "error: '$SRV_ROOT/alice' (the folder of setting 'RESULTS_DIR') is owned by uid $nobody, not root: refusing to use it"
  run env RESULTS_DIR="$SRV_ROOT/open" DURATION=1 "$KIT_ROOT/test-samba.sh" login
  assert_failure 1
  assert_names "error: '$SRV_ROOT/open' (setting 'RESULTS_DIR') is writable by group or others (mode 777): refusing to use it"
  run env RESULTS_DIR="$SRV_ROOT/open" "$KIT_ROOT/test-samba.sh" sweep --variant SIGNING=mandatory --variant SIGNING=default login
  assert_failure 1
  assert_names "error: '$SRV_ROOT/open' (setting 'RESULTS_DIR') is writable by group or others (mode 777): refusing to use it"
  assert_equal "$(stat -c '%u %g %a' "$d" "$SRV_ROOT/alice" "$SRV_ROOT/open")" "$before"
  assert_equal "$(find "$d" "$SRV_ROOT/alice" "$SRV_ROOT/open" -mindepth 1)" ""
  rm -rf "${SRV_ROOT:?}/theirs" "${SRV_ROOT:?}/alice" "${SRV_ROOT:?}/open"
}

@test "1 the local-disk baseline follows no link planted in the share: its folder, its data files" {
  local t=$BATS_TEST_TMPDIR
  mkdir -m 0755 "$t/decoy" "$t/share" "$t/share2" "$t/share2/local-baseline"
  printf 'keep\n' >"$t/decoy/data.0"
  chown nobody:nogroup "$t/share" "$t/share2"
  ln -s "$t/decoy" "$t/share/local-baseline"
  ln -s "$t/decoy/data.0" "$t/share2/local-baseline/data.0"
  for s in share share2; do
    run env SHARE_DIR="$t/$s" DATA_FILE_MB=1 SEQ_STREAMS=1 RANDOM_JOBS=1 bash -c 'set -euo pipefail; KIT_ROOT=$1
      source "$KIT_ROOT/lib/common.sh"
      common_source_libs "$KIT_ROOT" run/baseline
      source "$KIT_ROOT/lib/metrics/seqread.sh"
      baseline_prepare seqread
      echo "dir=$BASELINE_DIR why=$BASELINE_WHY"' hs-baseline "$KIT_ROOT"
    assert_success
    assert_names "removed '$t/$s/local-baseline"
    [[ -f $t/$s/local-baseline/data.0 && ! -L $t/$s/local-baseline/data.0 ]] || fail "$s: no data file of its own: $output"
  done
  assert_equal "$(cat "$t/decoy/data.0")" keep
  assert_equal "$(find "$t/decoy" -mindepth 1)" "$t/decoy/data.0"
}

# ---- 6. two kits on one host ------------------------------------------------------------------

@test "6 two kits with different settings files: neither takes nor removes the other's user, table or run" {
  local table passwd key value
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  kitb_settings
  table=$(nft list table ip "$SRV_TABLE")
  passwd=$(getent passwd "$SRV_USER")
  # kit B given kit A's user, table or client address: its start is refused, its cleanup keeps them
  for key in TEST_USER NFT_TABLE CLIENT_ADDR; do
    case $key in
      TEST_USER) value=$SRV_USER ;;
      NFT_TABLE) value=$SRV_TABLE ;;
      CLIENT_ADDR) value=$SRV_ADDR ;;
    esac
    run env KIT_SETTINGS="$KITB.conf" "$key=$value" "$KIT_ROOT/start-samba.sh"
    assert_failure 1
    assert_equal "${#lines[@]}" 1
    case $key in
      TEST_USER) assert_names "error: setting 'TEST_USER': user '$SRV_USER' exists and is another kit's (STATE_DIR '$SRV_ROOT/state'): set TEST_USER to a new name" ;;
      NFT_TABLE) assert_names "error: setting 'NFT_TABLE' names the nftables table 'ip $SRV_TABLE', which is another kit's (STATE_DIR '$SRV_ROOT/state'): set NFT_TABLE to a new name" ;;
      CLIENT_ADDR) assert_names "error: setting 'CLIENT_ADDR' has bad value '$SRV_ADDR': the nftables table 'ip $SRV_TABLE' already redirects its port 445" ;;
    esac
    run env KIT_SETTINGS="$KITB.conf" "$key=$value" "$KIT_ROOT/test-samba.sh" cleanup
    assert_success
    assert_equal "$(getent passwd "$SRV_USER")" "$passwd"
    assert_equal "$(nft list table ip "$SRV_TABLE")" "$table"
    [[ $key != TEST_USER ]] || assert_names "kept user '$SRV_USER': another kit's (STATE_DIR '$SRV_ROOT/state')"
  done
  # kit B with kit A's SERVICE_NAME while A measures: B neither stops A's run nor waits for it
  DURATION=8 "$KIT_ROOT/test-samba.sh" login >"$BATS_TEST_TMPDIR/run.out" 2>&1 &
  RUNPID=$!
  for _ in {1..100}; do grep -q ' run$' "/run/samba-perf-test/$SRV_SERVICE.lock.holder" 2>/dev/null && break; sleep 0.1; done
  for cmd in start-samba.sh stop-samba.sh "test-samba.sh cleanup"; do
    # shellcheck disable=SC2086 # the command and its argument
    run env KIT_SETTINGS="$KITB.conf" SERVICE_NAME="$SRV_SERVICE" KIT_LOCK_WAIT_S=2 $KIT_ROOT/$cmd
    assert_failure 1
    assert_names "error: setting 'SERVICE_NAME' has bad value '$SRV_SERVICE': another kit (STATE_DIR '$SRV_ROOT/state') uses that name and holds its lock ('run', pid $RUNPID)"
  done
  kill -0 "$RUNPID" || fail "kit A's run was stopped: $(cat "$BATS_TEST_TMPDIR/run.out")"
  wait "$RUNPID" || true
  RUNPID=''
  run grep -c interrupted "$BATS_TEST_TMPDIR/run.out"
  assert_output 0
  run srv_login "$SRV_ADDR"
  assert_success
  assert_equal "$(getent passwd "$SRV_USER")" "$passwd"
  run "$KIT_ROOT/test-samba.sh" cleanup
  assert_success
}

@test "6 a SIGKILLed run leaves no helper holding the kit's lock; the next start stops its helpers, named" {
  local runpid t0
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  DURATION=30 "$KIT_ROOT/test-samba.sh" login >"$BATS_TEST_TMPDIR/run.out" 2>&1 &
  runpid=$!
  # killed while its helper measures
  for _ in {1..200}; do pgrep -f -- "smb-login-storm.*//$SRV_ADDR/" >/dev/null && break; sleep 0.1; done
  pgrep -f -- "smb-login-storm.*//$SRV_ADDR/" >/dev/null || fail "the helper did not start: $(cat "$BATS_TEST_TMPDIR/run.out")"
  kill -KILL "$runpid"
  wait "$runpid" || true
  # the next start stops the helpers the killed run left (they would load the server for 30 s)
  run "$KIT_ROOT/start-samba.sh"
  assert_success
  assert_names "cleaned up after a killed run: stopped "
  assert_names "'smb-login-storm'"
  for _ in {1..50}; do pgrep -f -- "smb-login-storm.*//$SRV_ADDR/" >/dev/null || break; sleep 0.1; done
  run pgrep -f -- "smb-login-storm.*//$SRV_ADDR/"
  assert_failure
  t0=$SECONDS
  run env KIT_LOCK_WAIT_S=3 "$KIT_ROOT/stop-samba.sh"
  assert_success
  ((SECONDS - t0 <= 25)) || fail "stop took $((SECONDS - t0)) s"
  run env KIT_LOCK_WAIT_S=3 "$KIT_ROOT/test-samba.sh" cleanup
  assert_success
  srv_assert_clean
}

# ---- 7. test hooks and the environment ------------------------------------------------------

@test "7 a TMPDIR another user owns or can write is not used: a warning naming it, nothing made there" {
  local t=$BATS_TEST_TMPDIR s out
  cp -r "$KIT_ROOT/tests/fixtures/run-pass" "$t/run"
  mkdir -p "$t/theirs" "$t/open"
  # read-only file systems: whatever the kit made there would fail (root may write anywhere else)
  mount -t tmpfs -o ro,uid=65534,mode=0755 tmpfs "$t/theirs"
  mount -t tmpfs -o ro,mode=0777 tmpfs "$t/open"
  for s in theirs open; do
    case $s in
      theirs) out="'$t/theirs' is owned by uid $(id -u nobody)" ;;
      open) out="'$t/open' is writable by group or others (mode 777)" ;;
    esac
    run env TMPDIR="$t/$s" "$KIT_ROOT/test-samba.sh" report "$t/run"
    assert_success
    assert_line "warning: ignoring TMPDIR='$t/$s': $out; temporary files go to /tmp"
    refute_output --partial 'Read-only file system'
    run env TMPDIR="$t/$s" "$KIT_ROOT/stop-samba.sh" --version
    assert_line "warning: ignoring TMPDIR='$t/$s': $out; temporary files go to /tmp"
  done
  # the caller's own folder (root's, 0700) is used without a word
  run env TMPDIR="$t" "$KIT_ROOT/test-samba.sh" report "$t/run"
  assert_success
  refute_output --partial 'TMPDIR'
}

# ---- 2. run folders are data, from anyone ---------------------------------------------------

@test "2 report and compare -o write into no folder another user owns or can change; nothing there changes" {
  local t=$BATS_TEST_TMPDIR before
  cp -r "$KIT_ROOT/tests/fixtures/run-pass" "$t/theirs"
  chown -R nobody "$t/theirs"
  mkdir -m 0755 "$t/alice"
  cp -r "$KIT_ROOT/tests/fixtures/run-pass" "$t/alice/mine"
  chown nobody "$t/alice"
  mkdir -m 0777 "$t/open"
  before=$(find "$t/theirs" "$t/alice" "$t/open" -printf '%p %u %m %s %T@\n' | sort)
  run "$KIT_ROOT/test-samba.sh" report "$t/theirs"
  assert_failure 1
  assert_equal "${#lines[@]}" 1
  assert_output "error: cannot write the report into '$t/theirs': '$t/theirs' is owned by uid $(id -u nobody): copy the run folder into a folder of your own (cp -r) and report the copy"
  run "$KIT_ROOT/test-samba.sh" report "$t/alice/mine"
  assert_failure 1
  assert_output --partial "error: cannot write the report into '$t/alice/mine': '$t/alice' is owned by uid $(id -u nobody)"
  run "$KIT_ROOT/test-samba.sh" compare -o "$t/open" "$t/theirs" "$t/alice/mine"
  assert_failure 2
  assert_output --partial "error: cannot write the comparison into '$t/open': '$t/open' is writable by group or others (mode 777)"
  assert_equal "$(find "$t/theirs" "$t/alice" "$t/open" -printf '%p %u %m %s %T@\n' | sort)" "$before"
  # a copy of one's own is reported
  cp -r "$t/theirs" "$t/copy"
  chown -R root "$t/copy"
  run "$KIT_ROOT/test-samba.sh" report "$t/copy"
  assert_success
  [[ -s $t/copy/report.md ]] || fail "no report in the copy"
}
