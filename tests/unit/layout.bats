#!/usr/bin/env bats
# tests/unit/layout.bats: lib/'s folders show the architecture (issue 18, docs/contributing.md
# "Where the code is"): lib/server/ the test server's life, lib/run/ the run, lib/report/ the
# views, lib/metrics/ and lib/probes/ the plug-ins; only the basics every stage uses sit in lib/
# itself. A new file dropped into lib/ fails here: put it in its stage's folder. Each library
# names its own path in its header, so a moved file says where it is. No root, no server.

# the basics of lib/ and its folders; a change here is a change of docs/contributing.md's map
LAYOUT_TOP='common-traps.sh common.sh format.jq lock.sh metrics probes registry.sh report run server
settings-check.sh settings.sh'

setup() {
  load '../test_helper/common-setup'
  _common_setup
}

# layout_strays ROOT: print each entry of ROOT/lib/ that is not in LAYOUT_TOP, one a line.
layout_strays() {
  local f
  for f in "$1"/lib/* "$1"/lib/.[!.]*; do
    [[ -e $f ]] || continue
    f=${f##*/}
    [[ " ${LAYOUT_TOP//$'\n'/ } " == *" $f "* ]] || printf '%s\n' "$f"
  done
}

# layout_headers ROOT: print each library under ROOT/lib/ (.sh, .jq, .gp) whose first 3 lines
# do not name its own path ('# lib/run/fio.sh: ...', or '# Usage: lib/report/charts.sh ...').
layout_headers() {
  local f rel top
  while IFS= read -r -d '' f; do
    rel=${f#"$1"/}
    top=$'\n'$(head -n 3 "$f")
    [[ $top == *$'\n'"# $rel: "* || $top == *$'\n'"# Usage: $rel "* ]] || printf '%s\n' "$rel"
  done < <(find "$1/lib" -type f \( -name '*.sh' -o -name '*.jq' -o -name '*.gp' \) -print0 | sort -z)
}

@test "layout: lib/ holds only the basics and the folders server, run, report, metrics, probes" {
  run layout_strays "$KIT_ROOT"
  assert_success
  assert_output ''
}

@test "layout: every library under lib/ names its own path at its top" {
  run layout_headers "$KIT_ROOT"
  assert_success
  assert_output ''
}

@test "layout: the checks name a file dropped into lib/ and a header naming the old place" {
  local r=$BATS_TEST_TMPDIR/kit
  mkdir -p "$r/lib/run"
  echo '# lib/common.sh: messages' >"$r/lib/common.sh"
  echo '# lib/fio.sh: fio' >"$r/lib/fio.sh"
  touch "$r/lib/.hidden"
  mkdir "$r/lib/core"
  run layout_strays "$r"
  assert_output "$(printf '%s\n' core fio.sh .hidden)"
  echo '# lib/fio.sh: fio' >"$r/lib/run/fio.sh"
  printf '#!/usr/bin/env bash\n# Usage: lib/run/tool.sh DIR\n' >"$r/lib/run/tool.sh"
  echo '# lib/run/steady.jq: the steady run' >"$r/lib/run/steady.jq"
  echo '# lib/run/steady.jqx: not its name' >"$r/lib/run/other.jq"
  run layout_headers "$r"
  assert_output "$(printf '%s\n' lib/run/fio.sh lib/run/other.jq)"
}
