#!/usr/bin/env bats
# tests/unit/registry.bats: a metric is one place (issue 18). A metric's name may appear in the
# kit's product code only in its own files (lib/metrics/NAME.*), lib/metrics/list, its advice
# (lib/report/advice.json), its settings (settings.conf) and its helper (helpers/); docs and fixtures
# are not product code. What still names a metric elsewhere is listed below as known debt: the
# test fails on a file that is not listed, and on a listed one that no longer names it (take the
# line out: the debt was paid). No root, no server.

# 'METRIC FILE' pairs: product files that still name a metric, to be moved into the metric's own
# files (none left: the last, test-samba-run's help example, was paid on 2026-12-07)
DEBT=''

# Names that are ordinary words of the kit's prose and keys (a login, the cpu, memory, errors,
# latency) cannot be told from a use by a word search; their verdict and report tests read the
# registry instead.
WORDS=' login cpu memory errors latency '

setup() {
  load '../test_helper/common-setup'
  _common_setup
  # shellcheck source=lib/common.sh
  source "$KIT_ROOT/lib/common.sh"
  # shellcheck source=lib/registry.sh
  source "$KIT_ROOT/lib/registry.sh"
}

@test "registry: a metric's name appears in no product file outside its own files, but for the listed debt" {
  local m f found='' new='' paid=''
  for m in $(registry_metrics); do
    [[ $WORDS != *" $m "* ]] || continue
    while IFS= read -r f; do
      found+="$m ${f#"$KIT_ROOT"/}"$'\n'
    done < <(grep -lw -- "$m" "$KIT_ROOT"/lib/*.sh "$KIT_ROOT"/lib/*.jq "$KIT_ROOT"/lib/{server,run,report}/*.sh "$KIT_ROOT"/lib/{run,report}/*.jq "$KIT_ROOT"/lib/report/charts/*.gp \
      "$KIT_ROOT"/lib/probes/*.sh "$KIT_ROOT"/libexec/* "$KIT_ROOT"/test-samba.sh "$KIT_ROOT"/start-samba.sh "$KIT_ROOT"/stop-samba.sh)
  done
  new=$(comm -23 <(sort <<<"$found" | sed '/^$/d') <(sort <<<"$DEBT"))
  paid=$(comm -13 <(sort <<<"$found" | sed '/^$/d') <(sort <<<"$DEBT"))
  [[ -z $new ]] || fail "a metric is named outside its own files (move it into lib/metrics/): $new"
  [[ -z $paid ]] || fail "debt paid, take these lines out of DEBT: $paid"
}

@test "registry: the metric added through docs/CONTRACTS.md (bigdir) is named nowhere but its own files" {
  run grep -rlw bigdir "$KIT_ROOT/lib" "$KIT_ROOT/libexec" "$KIT_ROOT/test-samba.sh" "$KIT_ROOT/start-samba.sh" "$KIT_ROOT/stop-samba.sh"
  assert_output --regexp '^(/.*/lib/metrics/(bigdir\.(sh|jq)|list)|/.*/lib/report/advice\.json)(
(/.*/lib/metrics/(bigdir\.(sh|jq)|list)|/.*/lib/report/advice\.json))*$'
}
