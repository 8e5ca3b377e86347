# tests/test_helper/common-setup.bash: loaded by every bats file.
#   load '../test_helper/common-setup'   (from tests/<group>/x.bats)
#   _common_setup                        (in setup or setup_file)
# Loads bats-support and bats-assert, sets KIT_ROOT and points HOME and TMPDIR into the
# test's own temp folder.

_common_setup() {
  bats_load_library bats-support
  bats_load_library bats-assert
  KIT_ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
  export KIT_ROOT
  local tmp=${BATS_TEST_TMPDIR:-${BATS_FILE_TMPDIR:-$BATS_RUN_TMPDIR}}
  export HOME=$tmp/home TMPDIR=$tmp
  mkdir -p "$HOME"
  export NO_COLOR=1
}

# kit_require_root: skip unless root, or fail when KIT_REQUIRE_ROOT=1.
kit_require_root() {
  if [[ $(id -u) -ne 0 ]]; then
    [[ ${KIT_REQUIRE_ROOT:-0} == 1 ]] && fail "needs root (KIT_REQUIRE_ROOT=1)"
    skip "needs root"
  fi
}

# kit_require_cmd CMD...: skip when a command is missing, or fail when KIT_REQUIRE_TOOLS=1.
kit_require_cmd() {
  local c
  for c in "$@"; do
    if ! command -v "$c" >/dev/null 2>&1; then
      [[ ${KIT_REQUIRE_TOOLS:-0} == 1 ]] && fail "'$c' is missing (KIT_REQUIRE_TOOLS=1)"
      skip "'$c' is not installed"
    fi
  done
}

# kit_free_port FIRST LAST: print the first TCP port in [FIRST, LAST] nothing listens on.
kit_free_port() {
  local p
  for ((p = $1; p <= $2; p++)); do
    if ! ss -Hltn "sport = :$p" | grep -q .; then
      echo "$p"
      return 0
    fi
  done
  return 1
}

# public_dir NAME: a folder under /tmp that every user may enter (a test's own temp folder is
# closed to others); set PUB to it and make PUB/nobody for user nobody. public_dir_remove (in
# teardown) removes it.
public_dir() {
  kit_require_root
  PUB=$(mktemp -d "/tmp/kit-$1-perm.XXXXXX")
  chmod 0755 "$PUB"
  mkdir -p "$PUB/nobody/tmp"
  chown -R nobody "$PUB/nobody"
  runuser -u nobody -- test -r "$KIT_ROOT/test-samba.sh" ||
    skip "user nobody cannot read '$KIT_ROOT' (a folder above it is closed to others)"
}

public_dir_remove() {
  [[ -z ${PUB:-} ]] || rm -rf -- "$PUB"
}

# as_nobody CMD...: run CMD as user nobody, with HOME and TMPDIR in PUB/nobody.
as_nobody() {
  runuser -u nobody -- env HOME="$PUB/nobody" TMPDIR="$PUB/nobody/tmp" NO_COLOR=1 "$@"
}

# fs_type_of DIR: the type of the file system DIR is on: findmnt's, or stat -f's where findmnt
# finds no mount (a chroot whose root is no mount point), as the kit's baseline names it.
fs_type_of() {
  findmnt -no FSTYPE --target "$1" 2>/dev/null || stat -f -c %T "$1"
}
