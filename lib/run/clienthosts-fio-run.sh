# lib/run/clienthosts-fio-run.sh: one fio run through the client hosts' fio servers (issue 23):
# a job file per host written here (fio's client sends the job file's text; options on its
# command line are not sent, so every option is in the file), `fio --client=ADDR1 JOB1
# --client=ADDR2 JOB2 --output-format=json+` under measure, and its output reshaped
# (lib/run/clienthosts-fio.jq): raw/NAME.fio.json in fio's own shape (jobs[0], what the fio
# verdicts read) and raw/NAME.clients.json (each host, merged, fairness, window). Sourced by
# lib/run/clienthosts.sh; functions only.
#
# Each host reads and writes its own data files (fio/TAG/data.N). Not here yet: the steady run
# (latency, errors), fio's per-second logs for the charts, and smbd's CPU over the jobs' I/O
# alone (cgcpu as exec_prerun cannot run on a client host: the CPU is over the whole fio command).

# chfio_unbuilt [METRIC]: why METRIC does not run through the client hosts' fio servers (nothing
# and 1 when it does): a metric that does declares NAME_clienthosts_fio (docs/CONTRACTS.md,
# section 6), which prints nothing and returns 0, or prints why not and returns 1.
chfio_unbuilt() {
  local m why built=''
  if [[ -n ${1:-} ]] && declare -F "$1_clienthosts_fio" >/dev/null; then
    why=$("$1_clienthosts_fio") && return 1
  fi
  for m in $(registry_metrics); do
    declare -F "${m}_clienthosts_fio" >/dev/null && "${m}_clienthosts_fio" >/dev/null && built+=" $m"
  done
  echo "${1:-the steady run (latency, errors)} does not run through the client hosts' fio servers yet (issue 23)${why:+: $why}; those that do:${built:- none}"
}

# chfio_jobfile NAME FROM TO ARG...: print the job file of fio job NAME for a client host: one
# section (fio's "All clients" sum breaks with several), the options every kit job shares
# (fio_job_options) and ARG..., each --KEY[=VALUE] as a KEY[=VALUE] line; a filename,
# filename_format or directory at or under the folder FROM moves to TO (the host's own files on
# its own mount). 1 (run_why) on an argument that is not --KEY[=VALUE] or has a line break: the
# file would say other than asked.
chfio_jobfile() {
  local name=$1 from=$2 to=$3 a k v
  local -a opts
  shift 3
  mapfile -t opts < <(fio_job_options)
  printf '[%s]\n' "$name"
  for a in "${opts[@]}" "$@"; do
    if [[ ! $a =~ ^--([a-z_]+)(=(.*))?$ || $a == *$'\n'* ]]; then
      run_why "fio option '$a' cannot go into a client host's job file (--KEY[=VALUE] on one line)"
      return 1
    fi
    k=${BASH_REMATCH[1]} v=${BASH_REMATCH[3]}
    case $k in
      filename | filename_format | directory)
        [[ $v != "$from" && $v != "$from"/* ]] || v=$to${v#"$from"}
        ;;
    esac
    if [[ -n ${BASH_REMATCH[2]} ]]; then printf '%s=%s\n' "$k" "$v"; else printf '%s\n' "$k"; fi
  done
}

# chfio_run NAME ARG...: fio_run's job NAME (lib/run/fio.sh) on every client host at once, each on
# its own mount DIR/mnt (KIT_CLIENT_DIRS) and its own data files fio/TAG/ (fio_make_files)
# through its fio server (KIT_CLIENT_FIO): job files
# raw/NAME.job-TAG.fio, fio's output raw/NAME.clients-fio.out (json+), its messages
# raw/NAME.fio.log; then raw/NAME.fio.json and raw/NAME.clients.json. The exit status is fio's.
chfio_run() {
  local name=$1 pair host addr tag job rc=0 names='{}' out=$RUN_DIR/raw/$1.clients-fio.out
  local -a cmd=(fio)
  local -A where=()
  shift
  clienthosts_ready || return 1
  for pair in $KIT_CLIENT_DIRS; do where[${pair%%=*}]=${pair#*=}; done
  for pair in ${KIT_CLIENT_FIO:-}; do
    host=${pair%%=*} addr=${pair#*=}
    addr=${addr%%,*}
    tag=$(clienthosts_tag "$host")
    job=$RUN_DIR/raw/$name.job-$tag.fio
    chfio_jobfile "$name" "$MOUNT_POINT/fio" "${where[$host]:?}/mnt/fio/$tag" "$@" >"$job" || return 1
    cmd+=(--client="ip:$addr,$CLIENTHOSTS_FIO_PORT" "$job")
    names=$(jq -c --arg a "$addr" --arg h "$host" '.[$a] = $h' <<<"$names")
  done
  measure -o .fio.log "$name" $((DURATION * 2 + 120)) -- "${cmd[@]}" --output-format=json+ --output="$out" || rc=$?
  fio_json_only "$out"
  chfio_reshape "$name" "$names"
  return "$rc"
}

# chfio_reshape NAME NAMES: raw/NAME.clients-fio.out -> raw/NAME.clients.json (chfio_merge) and
# raw/NAME.fio.json (chfio_fio_json); NAMES maps fio's host name (the address) to the kit's. Neither
# is written when fio gave no output (the verdict then says fio gave no result).
chfio_reshape() {
  local in=$RUN_DIR/raw/$1.clients-fio.out
  jq -e '.client_stats | length > 0' "$in" >/dev/null 2>&1 || return 0
  jq -L "$KIT_ROOT/lib" --argjson n "$2" --arg m "${KIT_CLIENT_MACHINE:-}" \
    'include "run/clienthosts-fio"; include "run/clienthosts"; chfio_merge($n; $m | ch_machine)' "$in" \
    >"$RUN_DIR/raw/$1.clients.json" || rm -f "$RUN_DIR/raw/$1.clients.json"
  jq -L "$KIT_ROOT/lib" 'include "run/clienthosts-fio"; chfio_fio_json' "$in" \
    >"$RUN_DIR/raw/$1.fio.json" || rm -f "$RUN_DIR/raw/$1.fio.json"
}
