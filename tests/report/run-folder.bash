# tests/report/run-folder.bash: make a run folder from a fixture's raw files through the kit's own
# verdicts (lib/metrics/NAME.jq) and report (lib/report/report.sh), as a run would at its end: the
# metric objects, results.json with each metric's charts, charts/, report.md and report.html.
# Sourced by tests (bats load); needs jq.
# shellcheck disable=SC2034 # RUN_DIR, RUN_CPUS and the settings are read by the sourced libraries

# run_folder_make SRC DEST [METRIC...]: copy SRC's settings.env, system.json and raw/ to DEST,
# judge each METRIC (default: every metric with a raw file in SRC) with the settings of
# SRC/settings.env, and write DEST's report. In a subshell: the caller's settings are untouched.
run_folder_make() {
  local src=$1 dest=$2
  shift 2
  mkdir -p "$dest/metrics"
  cp -R "$src/raw" "$src/settings.env" "$src/system.json" "$dest/"
  (
    # shellcheck source=lib/common.sh
    source "$KIT_ROOT/lib/common.sh"
    common_source_libs "$KIT_ROOT" settings registry run/results report/report report/compare
    registry_load
    settings_defaults
    # shellcheck source=/dev/null
    source "$src/settings.env"
    RUN_DIR=$dest RUN_CPUS=2 KIT_CGROUP_SOURCE=cgroup2
    local m in
    local -a metrics=("$@")
    if ((${#metrics[@]} == 0)); then
      for m in $(registry_metrics); do
        for in in $(registry_inputs "$m"); do
          if compgen -G "$dest/raw/$in.*" >/dev/null || [[ -f $dest/raw/$in.json ]]; then
            metrics+=("$m")
            break
          fi
        done
      done
    fi
    for m in "${metrics[@]}"; do
      results_verdict "$m" "" "" 7 >/dev/null || exit 1
    done
    report_write "$dest" 2>/dev/null
  )
}
