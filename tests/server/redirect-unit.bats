#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr is set by 'run --separate-stderr'
# tests/server/redirect-unit.bats: lib/server/redirect.sh's time limit on nft, with a stand-in nft on
# PATH (a slow one cannot be made from the real nft). The qemu guest's first 'nft -f' (it loads
# the nf_tables and nat modules on an emulated CPU) took over the old 10 s on a busy host, and
# start-samba.sh stopped with "could not add the nftables table".

bats_require_minimum_version 1.5.0

setup() {
  load '../test_helper/common-setup'
  _common_setup
  mkdir -p "$BATS_TEST_TMPDIR/bin"
  # the stand-in: 'list table' finds nothing; '-f -' reads the script and takes NFT_SLEEP s
  cat >"$BATS_TEST_TMPDIR/bin/nft" <<'STUB'
#!/bin/bash
echo "nft $*" >>"$STUB_LOG"
case $1 in
  list) echo "Error: No such file or directory" >&2; exit 1 ;;
  -f) cat >/dev/null; sleep "${NFT_SLEEP:-0}" ;;
esac
STUB
  chmod +x "$BATS_TEST_TMPDIR/bin/nft"
  export STUB_LOG=$BATS_TEST_TMPDIR/nft.log
}

# add: redirect_add with the stand-in nft and the state set aside; $1: REDIRECT_NFT_TIMEOUT or ''.
add() {
  PATH=$BATS_TEST_TMPDIR/bin:$PATH bash -c 'source "$1/lib/common.sh"; source "$1/lib/run/clienthosts.sh"; source "$1/lib/server/redirect.sh"
    state_set() { :; }
    NFT_TABLE=samba_perf_test_u CLIENT_ADDR=127.0.0.2 SERVER_ADDR=127.0.0.1 TEST_PORT=4450
    [[ -z $2 ]] || REDIRECT_NFT_TIMEOUT=$2
    redirect_add' _ "$KIT_ROOT" "${1:-}"
}

@test "redirect: an nft that takes 12 s to load its modules still adds the table" {
  NFT_SLEEP=12 run --separate-stderr add
  assert_success
  assert_equal "$stderr" "redirect: nftables table 'ip samba_perf_test_u': 127.0.0.2:445 -> 127.0.0.1:4450"
  run grep -c '^nft -f -$' "$STUB_LOG"
  assert_output 1
}

@test "redirect: an nft that does not finish in its limit is named, and the start stops" {
  NFT_SLEEP=10 run --separate-stderr add 1
  assert_failure
  assert_equal "$stderr" "warning: 'nft -f' did not finish in 1 s"$'\n'"error: could not add the nftables table 'ip samba_perf_test_u'"
}
