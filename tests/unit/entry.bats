#!/usr/bin/env bats
# shellcheck disable=SC2154 # $stderr is set by 'run --separate-stderr'
# tests/unit/entry.bats: what the three entry scripts say about themselves without doing
# anything: --version, -h of each subcommand. No root, no server.

bats_require_minimum_version 1.5.0

setup() {
  load '../test_helper/common-setup'
  _common_setup
  VERSION=$(head -n 1 "$KIT_ROOT/VERSION")
}

# bare_kit DIR: copy the kit's scripts, lib/ and VERSION (no .git) into DIR.
bare_kit() {
  mkdir -p "$1"
  cp -R "$KIT_ROOT/lib" "$KIT_ROOT/VERSION" "$KIT_ROOT"/*.sh "$1/"
}

@test "entry: --version on the three scripts prints the kit's version and git describe" {
  local s want=$VERSION
  [[ $VERSION =~ ^[0-9]+\.[0-9]+\.[0-9]+$ ]] || fail "VERSION is '$VERSION'"
  if [[ -e $KIT_ROOT/.git ]]; then want+=" ($(git -C "$KIT_ROOT" describe --always --dirty))"; fi
  for s in start-samba.sh stop-samba.sh test-samba.sh; do
    run --separate-stderr "$KIT_ROOT/$s" --version
    assert_success
    assert_output "samba-perf-test $want"
    assert_equal "$stderr" ''
  done
}

@test "entry: outside a git checkout --version is VERSION alone, even inside another repository" {
  local outer="$BATS_TEST_TMPDIR/other repo"
  mkdir -p "$outer"
  git -C "$outer" init -q
  git -C "$outer" -c user.name=t -c user.email=t@t commit -q --allow-empty -m outer
  bare_kit "$outer/kit"
  run "$outer/kit/test-samba.sh" --version
  assert_success
  assert_output "samba-perf-test $VERSION"
  run "$outer/kit/start-samba.sh" --version
  assert_output "samba-perf-test $VERSION"
}

@test "entry: 'report -h' and 'cleanup -h' print the usage on stdout and exit 0" {
  local sub
  for sub in report cleanup; do
    run --separate-stderr "$KIT_ROOT/test-samba.sh" "$sub" -h
    assert_success
    assert_line --index 0 --partial 'Usage: test-samba.sh'
    assert_line --partial "test-samba.sh $sub [-h]"
    assert_equal "$stderr" ''
  done
  run --separate-stderr "$KIT_ROOT/test-samba.sh" cleanup --now
  assert_failure 2
  assert_output ''
  assert_equal "${stderr%%$'\n'*}" 'error: cleanup takes no arguments'
}

@test "entry: test-samba.sh -h lists each command's synopsis and summary once, from the command's own header" {
  local sub file syn summary
  run "$KIT_ROOT/test-samba.sh" -h
  assert_success
  for sub in sweep compare cleanup report; do
    assert_equal "$(grep -c "^ *test-samba.sh $sub " <<<"$output")" 1
  done
  for file in "$KIT_ROOT"/libexec/test-samba-*; do
    syn=$(sed -n 's/^# Usage: //p' "$file")
    summary=$(sed -n 's/^# Summary: //p' "$file")
    assert_line "  $syn"
    assert_line "      $summary"
  done
  assert_line --partial '--version'
}

@test "entry: every command is an executable libexec/test-samba-NAME with a Usage and Summary header; -h prints it and exits 0" {
  local file sub n=0
  for file in "$KIT_ROOT"/libexec/*; do
    sub=${file##*/test-samba-}
    [[ -x $file ]] || fail "$file is not executable"
    [[ $(sed -n 2p "$file") == "# Usage: test-samba.sh "* ]] || fail "$file: line 2 is not '# Usage: test-samba.sh ...'"
    grep -q '^# Summary: ' "$file" || fail "$file has no '# Summary:' line"
    run --separate-stderr "$KIT_ROOT/test-samba.sh" "$sub" -h
    assert_success
    assert_line --index 0 "$(sed -n 's/^# //; 2p' "$file")"
    assert_equal "$stderr" ''
    n=$((n + 1))
  done
  assert_equal "$n" 5
}

@test "entry: every error the kit prints goes through common.sh's error, die, bad or usage_die" {
  # a hand-written 'error:' skips the colour, the wording and the exit status the trio gives
  run grep -nE "(printf|echo)[^|;]*['\"](%s)?error:" "$KIT_ROOT"/*.sh "$KIT_ROOT"/lib/*.sh "$KIT_ROOT"/lib/*/*.sh "$KIT_ROOT"/libexec/*
  assert_success
  # the one place that prints it: error() in common.sh
  assert_equal "${#lines[@]}" 1
  assert_output --regexp "/lib/common\.sh:[0-9]+:  printf '%serror:%s %s.n'"
}

@test "entry: test hooks (DEPS_ROOT, FIO_DROP_CACHES_FILE) are dropped with a warning unless KIT_TEST_HOOKS=1" {
  local s
  for s in test-samba.sh start-samba.sh stop-samba.sh; do
    run env DEPS_ROOT=/tmp/fake-root FIO_DROP_CACHES_FILE=/tmp/fake-drop "$KIT_ROOT/$s" --version
    assert_success
    assert_line "warning: ignoring DEPS_ROOT='/tmp/fake-root': a test hook (KIT_TEST_HOOKS=1 is not set)"
    assert_line "warning: ignoring FIO_DROP_CACHES_FILE='/tmp/fake-drop': a test hook (KIT_TEST_HOOKS=1 is not set)"
    run env KIT_TEST_HOOKS=1 DEPS_ROOT=/tmp/fake-root "$KIT_ROOT/$s" --version
    refute_output --partial 'ignoring'
  done
}

@test "docs: README is a front door (at most 15 KB) and every relative link in it and in docs/ resolves" {
  local f link target anchor missing=''
  (($(wc -c <"$KIT_ROOT/README.md") <= 15360)) || fail "README.md is $(wc -c <"$KIT_ROOT/README.md") bytes"
  for f in "$KIT_ROOT/README.md" "$KIT_ROOT"/docs/*.md "$KIT_ROOT/helpers/README.md"; do
    # shellcheck disable=SC2016 # the backquotes of inline code, not an expansion
    while IFS= read -r link; do
      target=${link%%#*} anchor=''
      [[ $link == *'#'* ]] && anchor=${link#*#}
      if [[ -z $target ]]; then target=$f; else target=$(dirname "$f")/$target; fi
      [[ -e $target ]] || {
        missing+=" ${f#"$KIT_ROOT"/}:$link"
        continue
      }
      # an anchor must be a heading of the target, as GitHub spells it
      if [[ -n $anchor ]] && ! sed -n 's/^#\{1,6\} //p' "$target" | tr '[:upper:]' '[:lower:]' |
        sed 's/[^a-z0-9 _-]//g; s/ /-/g' | grep -qx -- "$anchor"; then
        missing+=" ${f#"$KIT_ROOT"/}:$link"
      fi
    done < <(sed 's/`[^`]*`//g' "$f" | grep -o '](\([^)]*\))' | sed 's/^](//; s/)$//' | grep -v '^[a-z]*:' | sort -u)
  done
  [[ -z $missing ]] || fail "links that do not resolve:$missing"
}

@test "man: the three scripts' pages are made from their -h and are current, and render without a warning" {
  run "$KIT_ROOT/man/make.sh" --check
  assert_success
  kit_require_cmd groff
  local s
  for s in start-samba.sh stop-samba.sh test-samba.sh; do
    run groff -man -Tutf8 -ww -z "$KIT_ROOT/man/$s.1"
    assert_success
    assert_output ''
    grep -q "^$s \\\\- " "$KIT_ROOT/man/$s.1" || fail "man/$s.1 has no NAME line"
  done
  # a page that no longer says what -h says is found
  mkdir "$BATS_TEST_TMPDIR/kit"
  (cd "$KIT_ROOT" && cp -R start-samba.sh stop-samba.sh test-samba.sh VERSION settings.conf lib libexec man "$BATS_TEST_TMPDIR/kit/")
  sed -i 's/^\.SH NAME$/.SH NAME\nstale/' "$BATS_TEST_TMPDIR/kit/man/stop-samba.sh.1"
  run "$BATS_TEST_TMPDIR/kit/man/make.sh" --check
  assert_failure 1
  assert_output "error: man/stop-samba.sh.1 differs from 'stop-samba.sh -h': run man/make.sh"
}
