#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr is set by 'run --separate-stderr'
# minbase.sh picks the Debian release from MINIMAL_SUITE, caches one tar per release, and
# finds a mirror for a release this machine's apt sources do not list. debootstrap is a stub
# here (it logs its argv and makes a tiny root): the real one runs in minimal.bats.

bats_require_minimum_version 1.5.0

setup() {
  load ../test_helper/common-setup
  _common_setup
  kit_require_root
  export MINIMAL_CACHE=$BATS_TEST_TMPDIR/cache\ dir MINIMAL_SOURCES=$BATS_TEST_TMPDIR/apt
  export MINIMAL_OS_RELEASE=$BATS_TEST_TMPDIR/os-release
  mkdir -p "$MINIMAL_SOURCES/sources.list.d" "$BATS_TEST_TMPDIR/bin"
  # a Debian 12 machine's deb822 sources: bookworm and its security suite only
  cat >"$MINIMAL_SOURCES/sources.list.d/debian.sources" <<'SRC'
Types: deb
URIs: http://mirror.example/debian
Suites: bookworm bookworm-updates
Components: main

Types: deb
URIs: http://security.example/debian-security
Suites: bookworm-security
Components: main
SRC
  printf 'PRETTY_NAME="Debian GNU/Linux 12 (bookworm)"\nVERSION_CODENAME=bookworm\n' >"$MINIMAL_OS_RELEASE"
  cat >"$BATS_TEST_TMPDIR/bin/debootstrap" <<'STUB'
#!/usr/bin/env bash
printf '%s\n' "$*" >>"$DEBOOTSTRAP_LOG"
target=${*: -2:1}
mkdir -p "$target/etc"
echo "VERSION_CODENAME=${*: -3:1}" >"$target/etc/os-release"
STUB
  chmod +x "$BATS_TEST_TMPDIR/bin/debootstrap"
  export PATH=$BATS_TEST_TMPDIR/bin:$PATH DEBOOTSTRAP_LOG=$BATS_TEST_TMPDIR/debootstrap.log
}

@test "minbase: Debian 13 from the mirror that serves this machine's Debian 12, cached apart from 12" {
  MINIMAL_SUITE=trixie run --separate-stderr "$KIT_ROOT/tests/minimal/minbase.sh"
  assert_success
  assert_output "$MINIMAL_CACHE/minbase-trixie.tar"
  run cat "$DEBOOTSTRAP_LOG"
  assert_output --regexp '^--variant=minbase --include=git,make,ca-certificates trixie .*/root http://mirror.example/debian$'
  run tar -xOf "$MINIMAL_CACHE/minbase-trixie.tar" ./etc/os-release
  assert_output VERSION_CODENAME=trixie
  # the default is still Debian 12, in its own tar; the Debian 13 one is reused, not rebuilt
  run --separate-stderr "$KIT_ROOT/tests/minimal/minbase.sh"
  assert_output "$MINIMAL_CACHE/minbase-bookworm.tar"
  MINIMAL_SUITE=trixie run --separate-stderr "$KIT_ROOT/tests/minimal/minbase.sh"
  assert_output "$MINIMAL_CACHE/minbase-trixie.tar"
  run grep -c . "$DEBOOTSTRAP_LOG"
  assert_output 2
}

@test "minbase: a MINIMAL_SUITE that is no release name is refused in one line, nothing made" {
  MINIMAL_SUITE='../x' run --separate-stderr "$KIT_ROOT/tests/minimal/minbase.sh"
  assert_failure 1
  assert_equal "$stderr" "minbase: error: MINIMAL_SUITE '../x' is not a Debian release name"
  assert [ ! -e "$MINIMAL_CACHE" ]
  assert [ ! -e "$DEBOOTSTRAP_LOG" ]
}

@test "minbase: no mirror for the release nor for this machine's own: exit 3 with the reason" {
  printf 'VERSION_CODENAME=sid\n' >"$MINIMAL_OS_RELEASE"
  MINIMAL_SUITE=trixie run --separate-stderr "$KIT_ROOT/tests/minimal/minbase.sh"
  assert_failure 3
  assert_equal "$stderr" "minbase: cannot: no Debian mirror for 'trixie main' in $MINIMAL_SOURCES/sources.list*"
  assert [ ! -e "$DEBOOTSTRAP_LOG" ]
}
