#!/usr/bin/env bats
# shellcheck disable=SC2016 # the bash -c programs expand in the child
# tests/unit/system.bats: lib/run/system.sh's system record (system.json) with the parts that need a
# started server (the mount, the held session, the name lookup) replaced by fixed answers.

setup() {
  load '../test_helper/common-setup'
  _common_setup
  RUN_DIR=$BATS_TEST_TMPDIR/run
  mkdir -p "$RUN_DIR/raw"
}

# record [VAR=value...]: system_record into RUN_DIR/system.json, in a child bash.
record() {
  env "$@" bash -c 'KIT_ROOT=$1 RUN_DIR=$2
    source "$1/lib/common.sh"
    common_source_libs "$1" run/system
    mount_options_now() { return 1; }
    system_sessions() { echo "{\"signing\":\"AES-128-GMAC (partial)\",\"encryption\":\"-\"}"; }
    system_name_lookup() { echo "{\"name\":\"h\",\"resolves\":true,\"ms\":1,\"error\":null}"; }
    settings_diff_defaults() { :; }
    RUN_CPUS=2 RUN_METRICS=(login) RUN_STARTED_AT=2026-12-03T00:00:00Z RUN_ARGS=(login)
    KIT_UNC=//127.0.0.1/share ENCRYPTION=no SIGNING=default KIT_SELINUX=disabled
    system_record' _ "$KIT_ROOT" "$RUN_DIR"
}

@test "system record: the kit's version (VERSION and git describe) is in system.json" {
  run record
  assert_success
  local want
  want=$(bash -c 'source "$1/lib/common.sh"; common_kit_version "$1"' _ "$KIT_ROOT")
  [[ $want == "$(head -n 1 "$KIT_ROOT/VERSION")"* ]] || fail "common_kit_version said '$want'"
  run jq -r '.kit_version' "$RUN_DIR/system.json"
  assert_output "$want"
}

@test "system record: the CPU's model and crypto flags from /proc/cpuinfo (x86 and arm)" {
  # the first cpu advice is about AES-NI, and nothing said whether this CPU has it
  local f=$BATS_TEST_TMPDIR/cpuinfo
  printf 'processor\t: 0\nmodel name\t: Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz\nflags\t\t: fpu sse2 pclmulqdq aes avx avx2 sha_nix\n\nprocessor\t: 1\nmodel name\t: other\nflags\t\t: fpu\n' >"$f"
  run bash -c 'source "$1/lib/common.sh"; source "$1/lib/run/system.sh"; system_cpu "$2"' _ "$KIT_ROOT" "$f"
  assert_success
  assert_output '{"model":"Intel(R) Xeon(R) Gold 6130 CPU @ 2.10GHz","arch":"x86","crypto":{"aes":true,"pclmulqdq":true,"sha_ni":false,"avx2":true}}'
  printf 'processor\t: 0\nBogoMIPS\t: 50.00\nFeatures\t: fp asimd aes pmull sha1 crc32\nCPU implementer\t: 0x41\n' >"$f"
  run bash -c 'source "$1/lib/common.sh"; source "$1/lib/run/system.sh"; system_cpu "$2"' _ "$KIT_ROOT" "$f"
  assert_output '{"model":null,"arch":"arm","crypto":{"aes":true,"pmull":true,"sha2":false}}'
  # the record has this host's own
  run record
  assert_success
  run jq -e --argjson want "$(bash -c 'source "$1/lib/common.sh"; source "$1/lib/run/system.sh"; system_cpu /proc/cpuinfo' _ "$KIT_ROOT")" \
    '.cpu == $want and (.cpu.crypto | type) == "object"' "$RUN_DIR/system.json"
  assert_success
}
