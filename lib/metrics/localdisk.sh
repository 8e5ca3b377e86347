# lib/metrics/localdisk.sh: the localdisk metric, the local-disk baseline (docs/server-view.md,
# section 3): the fio jobs of the data metrics (each declares its own: NAME_baseline), same options and sizes, run
# directly on SHARE_DIR's file system (lib/run/baseline.sh), so the report can say "local disk X;
# Samba reaches N % of it". Needs neither the mount nor smbd: it runs where the cifs metrics
# SKIP. No target. Sourced; functions only. Verdict: lib/metrics/localdisk.jq.

# the first round only: the local disk's baseline is not a figure of Samba; its "Samba reaches
# N %" needs the fio metrics of one round beside it, and repeating it cost 3 x 58 s of a 569 s
# default run here
localdisk_repeat() { echo first; }

# localdisk_all: the metrics that declare a baseline job (NAME_baseline, lib/run/baseline.sh), in
# the registry's order.
localdisk_all() {
  local j
  local -a jobs=()
  for j in $(registry_metrics); do
    if declare -F "${j}_baseline" >/dev/null; then jobs+=("$j"); fi
  done
  echo "${jobs[*]}"
}

# localdisk_jobs: the jobs to run: those of the data metrics in this run, all when none is.
localdisk_jobs() {
  local j
  local -a jobs=()
  for j in $(localdisk_all); do
    if run_planned "$j"; then jobs+=("$j"); fi
  done
  ((${#jobs[@]} > 0)) || read -ra jobs <<<"$(localdisk_all)"
  echo "${jobs[*]}"
}

localdisk_describe() { echo "fio's $(localdisk_jobs | sed 's/ /, /g') jobs on SHARE_DIR's own file system, $DURATION s each (no target)"; }
localdisk_needs() { :; }
localdisk_inputs() { echo localdisk "$(localdisk_all)"; }

localdisk_estimate() {
  local n
  n=$(localdisk_jobs | wc -w)
  echo $((n * (DURATION + 2) + (SEQ_STREAMS + 1) * DATA_FILE_MB / 400))
}

# localdisk_measure: each job through 'measure localdisk.JOB' (fio's JSON raw/localdisk.JOB.fio.json),
# then its baseline object raw/localdisk.JOB.json (lib/run/baseline.sh baseline_result); with
# DROP_CACHES=yes each starts cold, as the Samba metrics do (raw/localdisk.JOB.drop.json).
localdisk_measure() {
  local job raw=$RUN_DIR/raw
  local -a cmd
  command -v fio >/dev/null 2>&1 || {
    run_why "fio is not installed"
    return 2
  }
  for job in $(localdisk_jobs); do
    if ! baseline_prepare "$job"; then
      run_why "$BASELINE_WHY"
      return 1
    fi
    mapfile -t cmd < <(baseline_command "$job" "$raw/localdisk.$job.fio.json")
    fio_drop_caches "localdisk.$job"
    measure -o .fio.log "localdisk.$job" $((DURATION * 2 + 60)) -- "${cmd[@]}" || true
    [[ -s $raw/localdisk.$job.fio.log ]] || rm -f "$raw/localdisk.$job.fio.log"
    baseline_result "$job" "$raw/localdisk.$job.fio.json" >"$raw/localdisk.$job.json"
  done
}
