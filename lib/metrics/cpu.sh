# lib/metrics/cpu.sh: the cpu metric: smbd CPU per 4 KiB read, per GB read and per login, from the
# CPU evidence (the cgcpu probe) of the runs that define them: randread, seqread and login of
# this run, or runs of its own (cpu.login; cpu.readers with smb-readers when randread did not
# run); with client hosts (lib/run/clienthosts.sh) the login and reader runs of its own come
# from them (cpu.readers: its 4 clients split over the hosts). Sourced; functions only.
# Verdict: lib/metrics/cpu.jq.

cpu_needs() { echo cgcpu; }
cpu_inputs() { echo cpu login randread seqread; }

# cpu_own_runs: print which runs of its own the cpu metric needs: login and/or readers.
cpu_own_runs() {
  run_planned login || echo login
  if ! run_planned randread || fio_skip_reason >/dev/null; then echo readers; fi
}

cpu_describe() {
  if [[ -n $(cpu_own_runs) ]]; then echo "smbd CPU per request (needs a run of its own)"; else echo "smbd CPU per request, from the runs before"; fi
}

cpu_estimate() {
  echo $(($(cpu_own_runs | wc -l) * $(measure_estimate $((DURATION + 1)))))
}

# cpu_measure: the runs the other metrics of this run did not make; raw/cpu.plan.json records
# why fio could not run here (null when it could).
cpu_measure() {
  local h why
  local -a cpu
  why=$(fio_skip_reason) || why=''
  jq -cn --arg why "$why" '{fio_skip: (if $why == "" then null else $why end)}' >"$RUN_DIR/raw/cpu.plan.json"
  [[ -s $RUN_DIR/raw/login.evidence.json ]] || login_storm cpu.login || true
  [[ ! -s $RUN_DIR/raw/randread.evidence.json ]] || return 0
  if clienthosts_on; then
    clienthosts_ready && fio_data_file || return 1
    fio_drop_caches cpu.readers
    clienthosts_measure --split 4 cpu.readers $((DURATION * 3 + 60)) \
      smb-readers -c @SPLIT@ -d "$DURATION" -b 4096 "$(clienthosts_unc)/fio/data.0"
    return 0
  fi
  h=$(child_helper smb-readers) || return 1
  fio_data_file || return 1
  fio_drop_caches cpu.readers
  mapfile -t cpu < <(child_cg_args)
  measure cpu.readers $((DURATION * 3 + 60)) -- \
    "$h" -A "$KIT_CREDENTIALS" -c 4 -d "$DURATION" -b 4096 "${cpu[@]}" "$KIT_UNC/fio/data.0" || true
}
