#!/usr/bin/env bats
# tests/unit/size.bats: no shell file of the kit (lib/ and its folders, libexec/, the entry
# scripts at the top) is longer than 300 lines unless a line '# Long because: WHY' in its first
# 15 lines says why (issue 18): a longer file is split where it does two jobs. The tests' own
# files are not checked here. No root, no server.

MAX_LINES=300

setup() {
  load '../test_helper/common-setup'
  _common_setup
}

# size_offenders ROOT: print 'FILE LINES' for every shell file under ROOT (lib/ at any depth,
# libexec/, ROOT/*.sh) longer than MAX_LINES without a '# Long because:' line in its first 15.
size_offenders() {
  local f n
  {
    while IFS= read -r -d '' f; do
      case $f in
        *.sh) ;;
        *) if ! [[ -x $f ]] || ! head -n 1 "$f" | grep -qE '^#!.*(ba)?sh'; then continue; fi ;;
      esac
      n=$(wc -l <"$f")
      ((n > MAX_LINES)) || continue
      head -n 15 "$f" | grep -qE '^# Long because: [^[:space:]]' && continue
      printf '%s %s\n' "${f#"$1"/}" "$n"
    done < <(find "$1/lib" "$1/libexec" -type f -print0 2>/dev/null
      find "$1" -maxdepth 1 -type f -name '*.sh' -print0)
  } | sort
}

@test "size: no shell file of the kit is over 300 lines without '# Long because:' at its top" {
  run size_offenders "$KIT_ROOT"
  assert_success
  assert_output ''
}

@test "size: the check names a long file, an executable without .sh, and accepts a written reason" {
  local r=$BATS_TEST_TMPDIR/kit
  mkdir -p "$r/lib/sub" "$r/libexec"
  { echo '# lib/sub/long.sh: a library'; yes 'true' | head -n 300; } >"$r/lib/sub/long.sh"
  { echo '#!/usr/bin/env bash'; yes 'true' | head -n 300; } >"$r/libexec/tool"
  chmod +x "$r/libexec/tool"
  yes 'true' | head -n 300 >"$r/short.sh"
  yes 'x' | head -n 400 >"$r/lib/data.txt"
  { echo '# top.sh: an entry script'; echo '# Long because: one long case table'; yes 'true' | head -n 400; } >"$r/top.sh"
  run size_offenders "$r"
  assert_success
  assert_output "$(printf '%s\n' 'lib/sub/long.sh 301' 'libexec/tool 301' | sort)"
}
