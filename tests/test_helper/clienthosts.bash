# tests/test_helper/clienthosts.bash: the harness of the client-hosts test files
# (tests/server/clienthosts*.bats, issue 23): client hosts as network namespaces (netns.bash)
# and a private kit (private-kit.bash) set up to use them. Where namespaces cannot be made (a
# chroot or a container may refuse them) every test skips naming why: tests/minimal/host-tests
# lists these files, so CI runs them on the host.
#   setup_file()    { load ../test_helper/clienthosts; ch_setup_file 2 0 ch 4570 4579 127.0.0.25; }
#   teardown_file() { load ../test_helper/clienthosts; ch_teardown_file; }
#   setup()         { load ../test_helper/clienthosts; ch_setup ip nft ss smbd; }

load ../test_helper/common-setup
load ../test_helper/netns
load ../test_helper/private-kit

# ch_namespaces N: in setup_file, N namespaces (netns_setup); where they cannot be made, the
# reason for ch_setup to skip on, and 1.
ch_namespaces() {
  netns_setup "$1" 2>"$BATS_FILE_TMPDIR/netns.err" && return 0
  netns_teardown || true
  echo "network namespaces cannot be made here: $(head -n 1 "$BATS_FILE_TMPDIR/netns.err")" >"$BATS_FILE_TMPDIR/netns.skip"
  return 1
}

# ch_setup_file N ASIDE NAME PORT_LO PORT_HI ADDR: in setup_file, as root: N namespaces,
# the last ASIDE of them not client hosts (their names in CH_OTHER: a namespace on the same link
# that 'hosts allow' must refuse), and the private kit NAME (private_kit_setup) with CLIENT_HOSTS,
# CLIENT_SHELL, CLIENT_HOSTS_SERVER_ADDR and WORKERS=2.
ch_setup_file() {
  local n=$1 aside=$2 i
  shift 2
  _common_setup
  [[ $(id -u) -eq 0 ]] || return 0
  command -v ip >/dev/null || return 0
  ch_namespaces "$n" || return 0
  CH_OTHER=''
  for ((i = 0; i < aside; i++)); do
    CH_OTHER="${NETNS_HOSTS##* } $CH_OTHER" NETNS_HOSTS=${NETNS_HOSTS% *}
  done
  CH_OTHER=${CH_OTHER% }
  export CH_OTHER NETNS_HOSTS
  private_kit_setup "$1" "$2" "$3" "$4" small <<CONF
CLIENT_HOSTS="$NETNS_HOSTS"
CLIENT_SHELL="$NETNS_SHELL"
CLIENT_HOSTS_SERVER_ADDR=$NETNS_ADDR
WORKERS=2
CONF
}

# ch_teardown_file: the private kit, then the namespaces, links and address.
ch_teardown_file() {
  private_kit_teardown
  netns_teardown
}

# ch_setup CMD...: in setup: root and CMD... needed; skip where the namespaces could not be made.
ch_setup() {
  _common_setup
  kit_require_root
  kit_require_cmd "$@"
  [[ ! -e $BATS_FILE_TMPDIR/netns.skip ]] || skip "$(cat "$BATS_FILE_TMPDIR/netns.skip")"
}

# ch_kit_dirs: the kit's folders on the client hosts (the namespaces share this file system).
ch_kit_dirs() {
  grep -lx "samba-perf-test kit $PK_ROOT/state" /tmp/samba-perf-test-client.*/.samba-perf-test-client 2>/dev/null || true
}
