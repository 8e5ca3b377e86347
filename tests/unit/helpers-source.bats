#!/usr/bin/env bats
# tests/unit/helpers-source.bats: the C helpers' sources keep their shape (issue 18): every
# function a module (helpers/NAME.c with its NAME.h) exports starts with NAME_, so a call names
# the file to open; base.c, the basics every helper uses (clocks, options, signals, usage), is
# the one exception, as lib/common.sh is for the scripts. The three pool helpers share one run
# (smbpool_run) instead of each spelling out start, set-up time, release and join. Reads the
# sources; nothing is compiled.

setup() {
  load '../test_helper/common-setup'
  _common_setup
}

# prefix_offenders DIR: print 'FILE: FUNCTION' for each function defined without 'static' in
# a module DIR/NAME.c (one with DIR/NAME.h; base.c excepted) whose name does not start with
# NAME_. The helpers' style puts a definition's name at the start of its line, its type on the
# line before.
prefix_offenders() {
  local c name
  for c in "$1"/*.c; do
    name=${c##*/}
    name=${name%.c}
    [[ -f ${c%.c}.h && $name != base ]] || continue
    awk -v file="${c##*/}" -v want="${name}_" '
      /^[A-Za-z_][A-Za-z0-9_]*\(/ && prev !~ /(^|[^A-Za-z0-9_])static([^A-Za-z0-9_]|$)/ {
        fn = $0; sub(/\(.*/, "", fn)
        if (index(fn, want) != 1) print file ": " fn
      }
      { prev = $0 }' "$c"
  done
}

@test "helpers: every function a module exports starts with its file's name" {
  run prefix_offenders "$KIT_ROOT/helpers"
  assert_success
  assert_output ''
}

@test "helpers: the prefix check names an exported function of another prefix, not a static one" {
  local d=$BATS_TEST_TMPDIR/h
  mkdir -p "$d"
  touch "$d/pool.h" "$d/base.h" "$d/base.c"
  printf '%s\n' 'void' 'pool_go(void)' '{' '}' 'static int' 'worker(void)' '{' '}' \
    'void *' 'shm_alloc(size_t n)' '{' '}' >"$d/pool.c"
  printf '%s\n' 'int' 'main(void)' '{' '}' >"$d/tool.c"
  printf '%s\n' 'int' 'mono_ns(void)' '{' '}' >"$d/base.c"
  run prefix_offenders "$d"
  assert_output 'pool.c: shm_alloc'
}

@test "helpers: the three pool helpers run their workers through smbpool_run alone" {
  local f
  for f in smb-login-storm smb-files smb-readers; do
    run grep -c 'smbpool_run(' "$KIT_ROOT/helpers/$f.c"
    assert_output 1
    run grep -nE '\bpool_(start|cpu|wait_ready|go|join)\(' "$KIT_ROOT/helpers/$f.c"
    assert_output ''
  done
}
