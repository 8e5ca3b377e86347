# lib/registry.sh: the metric registry: lib/metrics/list names the metrics in order; each metric
# file lib/metrics/NAME.sh declares what it needs, its estimate and its description
# (docs/CONTRACTS.md, section 6). Sourced; functions only.

# registry_metrics: print every metric name, one a line, in run order.
registry_metrics() {
  sed -n 's/#.*//; s/^[[:space:]]*\([a-z][a-z0-9_]*\).*/\1/p' "$KIT_ROOT/lib/metrics/list"
}

# registry_rows: print every result row name (metrics and their further rows) in report order.
registry_rows() {
  sed 's/#.*//' "$KIT_ROOT/lib/metrics/list" | tr -s ' \t' '\n' | sed '/^$/d'
}

# registry_source METRIC: source lib/metrics/METRIC.sh once (the settings check may have).
registry_source() {
  declare -F "$1_needs" >/dev/null && return 0
  # shellcheck source=/dev/null
  source "$KIT_ROOT/lib/metrics/$1.sh"
}

# registry_load: source every metric file; die naming the first function a metric lacks or
# the first need no one provides.
registry_load() {
  local m f need
  while IFS= read -r m; do
    [[ -f $KIT_ROOT/lib/metrics/$m.sh ]] || die "metric '$m' has no file 'lib/metrics/$m.sh'"
    [[ -f $KIT_ROOT/lib/metrics/$m.jq ]] || die "metric '$m' has no verdict 'lib/metrics/$m.jq'"
    registry_source "$m"
    for f in describe estimate needs; do
      declare -F "${m}_$f" >/dev/null || die "metric '$m' defines no '${m}_$f' in 'lib/metrics/$m.sh'"
    done
    case $(registry_repeat "$m") in
      each | once | first) ;;
      *) die "metric '$m' repeats '$(registry_repeat "$m")': choose from each once first" ;;
    esac
    for need in $("${m}_needs"); do
      [[ " mount steady datafile cgcpu " == *" $need "* ]] ||
        die "metric '$m' needs '$need': choose from mount steady datafile cgcpu"
    done
  done < <(registry_metrics)
}

# registry_check_settings: each metric's own settings check (NAME_check_settings, optional: it
# dies through settings_bad on the first bad key); sources the metric files it needs.
registry_check_settings() {
  local m
  while IFS= read -r m; do
    if [[ -f $KIT_ROOT/lib/metrics/$m.sh ]]; then registry_source "$m"; fi
    if declare -F "${m}_check_settings" >/dev/null; then "${m}_check_settings"; fi
  done < <(registry_metrics)
}

# registry_finish: the run is over (finished or stopped): each metric's optional NAME_finish
# (remove what it kept from one repeat to the next).
registry_finish() {
  local m
  while IFS= read -r m; do
    if declare -F "${m}_finish" >/dev/null; then "${m}_finish" || true; fi
  done < <(registry_metrics)
}

# registry_repeat METRIC: how METRIC repeats with REPEAT > 1: each (every round, the default),
# once (whatever REPEAT says) or first (the first round only), from its optional NAME_repeat.
registry_repeat() {
  if declare -F "$1_repeat" >/dev/null; then "$1_repeat"; else echo each; fi
}

# registry_inputs METRIC: print the measurements whose raw files METRIC's verdict reads.
registry_inputs() {
  if declare -F "$1_inputs" >/dev/null; then "$1_inputs"; else echo "$1"; fi
}

# registry_unmet METRIC: print why METRIC cannot run here (a SKIP reason); 1 when it can.
registry_unmet() {
  local need
  for need in $("$1_needs"); do
    case $need in
      mount | steady) fio_skip_reason "$1" && return 0 ;;
      cgcpu) measure_check_cgcpu && return 0 ;;
    esac
  done
  return 1
}

# registry_prepare METRIC: provide what METRIC needs before it measures (the data file, the
# steady run); 1 with RUN_WHY when that failed.
registry_prepare() {
  local need
  for need in $("$1_needs"); do
    case $need in
      datafile) fio_data_file || return 1 ;;
      steady) fio_steady || return 1 ;;
    esac
  done
}

# registry_estimate METRIC: print the expected seconds of METRIC now (0 when it will SKIP).
registry_estimate() {
  local n need
  if registry_unmet "$1" >/dev/null; then
    echo 0
    return 0
  fi
  n=$("$1_estimate")
  for need in $("$1_needs"); do
    [[ $need != steady ]] || n=$((n + $(fio_steady_estimate)))
  done
  echo "$n"
}
