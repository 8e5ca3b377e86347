# lib/probes/profile.sh: the server's own view of a measured run: smbd's per-command counters
# ('smbd profiling level', 'smbstatus -P') before and after it, and what smbd did in between.
# An evidence probe (docs/CONTRACTS.md, section 5): its result lands under .probes.profile of
# raw/NAME.evidence.json. Sourced; functions only. Needs KIT_CONF (the kit's smb.conf), RUN_DIR
# and KIT_ROOT.
#
#   probe_profile_before NAME WORK   a settled snapshot in WORK (or why there is none)
#   probe_profile_after NAME WORK    WORK/result.json: lib/run/profile.jq profile_diff, or
#                                    {"available":false,"reason":…}; keeps both snapshots as
#                                    raw/NAME.profile.before.json and raw/NAME.profile.after.json
# Both return 0 whatever happens: a run without the server's view is still a run.

# profile_level CONF: print the 'smbd profiling level' CONF gives (off, count or on).
profile_level() {
  local v
  v=$(testparm -s --parameter-name='smbd profiling level' "$1" 2>/dev/null) || return 1
  v=${v,,}
  case $v in
    off | count | on) printf '%s\n' "$v" ;;
    *) return 1 ;;
  esac
}

# profile_unavailable CONF: print why smbd's counters cannot be read for CONF and return 0;
# print nothing and return 1 when they can. What smbd was built with and the level are read
# once per CONF (PROFILE_WHY_CONF, PROFILE_WHY); whether smbstatus prints counters, each time.
profile_unavailable() {
  local conf=$1 level build
  if [[ ${PROFILE_WHY_CONF:-} != "$conf" ]]; then
    # (whole outputs, not 'cmd | grep -q': grep leaving early would fail the pipe under pipefail)
    build=$(smbd -b 2>/dev/null) || true
    if ! command -v smbstatus >/dev/null 2>&1; then
      PROFILE_WHY="smbstatus is not installed"
    elif ! grep -qw WITH_PROFILE <<<"$build"; then
      PROFILE_WHY="this smbd was built without profiling support (smbd -b shows no WITH_PROFILE)"
    elif ! level=$(profile_level "$conf"); then
      PROFILE_WHY="testparm cannot read 'smbd profiling level' from '$conf'"
    elif [[ $level == off ]]; then
      PROFILE_WHY="smbd profiling level = off in '$conf'"
    else
      PROFILE_WHY=''
    fi
    PROFILE_WHY_CONF=$conf
  fi
  [[ -n $PROFILE_WHY ]] || return 1
  printf '%s\n' "$PROFILE_WHY"
}

# profile_snapshot CONF: print smbd's counters now as one JSON object (lib/run/profile.jq
# profile_parse_text); 1 when smbstatus failed or did not answer within PROFILE_CALL_S s
# (default 8: under emulation one 'smbstatus -P' took several seconds), 2 when it printed no
# SMB2 counters.
profile_snapshot() {
  local text
  text=$(timeout "${PROFILE_CALL_S:-8}" smbstatus -s "$1" -P 2>/dev/null) || return 1
  grep -q '^smb2_read_count:' <<<"$text" || return 2
  printf '%s\n' "$text" | jq -L "$KIT_ROOT/lib" -R -s -c 'include "run/profile"; profile_parse_text'
}

# profile_settled CONF [KNOWN]: print a snapshot that no smbd process still has to add to. Each
# smbd writes its counters at most 1 s after it worked (and when it exits), so two snapshots
# 1.1 s apart that agree are final. It takes another only while that fits in 9 s from the start
# (the probe contract allows 10 s a call; a slow smbstatus gets fewer tries), then prints the
# last one with "settled":false. KNOWN is an earlier settled snapshot (PROFILE_LAST_SETTLED): a
# first snapshot equal to it is final at once, as the counters only grow and whatever smbd did
# since KNOWN up to 1 s ago would show (a measurement's 'before' right after the one before's
# 'after' then costs one smbstatus, not two and a pause). Status as profile_snapshot's.
profile_settled() {
  local conf=$1 known=${2:-} a b t0 t1 took start=$EPOCHREALTIME
  t0=$EPOCHREALTIME
  a=$(profile_snapshot "$conf") || return
  if [[ -n $known && $a == "$known" ]]; then
    jq -c '.settled = true' <<<"$a"
    return 0
  fi
  b=$a
  while :; do
    t1=$EPOCHREALTIME
    took=$(((${t1/./} - ${t0/./}) / 1000)) # ms of the last snapshot (and the pause before it)
    (((${t1/./} - ${start/./}) / 1000 + took + 1100 <= 9000)) || break
    sleep 1.1
    t0=$EPOCHREALTIME
    b=$(profile_snapshot "$conf") || return
    if [[ $a == "$b" ]]; then
      jq -c '.settled = true' <<<"$b"
      return 0
    fi
    a=$b
  done
  jq -c '.settled = false' <<<"$b"
}

# profile_remember SNAPSHOT: keep a settled SNAPSHOT (profile_settled's) as PROFILE_LAST_SETTLED
# in this shell, as profile_snapshot prints it; forget the last one when SNAPSHOT is not settled.
profile_remember() {
  PROFILE_LAST_SETTLED=''
  if [[ $(jq -r '.settled' <<<"$1") == true ]]; then
    PROFILE_LAST_SETTLED=$(jq -c 'del(.settled)' <<<"$1") || PROFILE_LAST_SETTLED=''
  fi
}

# profile_failed STATUS WHEN: why a snapshot (profile_snapshot's STATUS) WHEN (before, after)
# the run could not be taken.
profile_failed() {
  if (($1 == 2)); then
    echo "'smbstatus -s $KIT_CONF -P' printed no SMB2 counters $2 the run"
  else
    echo "'smbstatus -P' failed or took more than ${PROFILE_CALL_S:-8} s $2 the run"
  fi
}

# profile_unavailable_result WORK REASON: the probe's result when there is no view.
profile_unavailable_result() {
  jq -n -c --arg r "$2" '{available: false, reason: $r}' >"$1/result.json"
}

# probe_profile_before NAME WORK: the settled snapshot before run NAME (WORK/before.json), or
# why there is none (WORK/reason).
probe_profile_before() {
  local work=$2 why level snap
  if why=$(profile_unavailable "$KIT_CONF"); then
    printf '%s\n' "$why" >"$work/reason"
    return 0
  fi
  level=$(profile_level "$KIT_CONF")
  snap=$(profile_settled "$KIT_CONF" "${PROFILE_LAST_SETTLED:-}") || {
    profile_failed $? before >"$work/reason"
    return 0
  }
  profile_remember "$snap"
  jq -c --arg level "$level" '.level = $level' <<<"$snap" >"$work/before.json"
}

# probe_profile_after NAME WORK: the settled snapshot after run NAME and what smbd did in
# between: WORK/result.json (lib/run/profile.jq profile_diff, plus "files"); the two snapshots are
# kept as raw/NAME.profile.before.json and raw/NAME.profile.after.json.
probe_profile_after() {
  local name=$1 work=$2 snap level raw=$RUN_DIR/raw/$1.profile
  if [[ -s $work/reason || ! -s $work/before.json ]]; then
    profile_unavailable_result "$work" "$(cat "$work/reason" 2>/dev/null || echo "no snapshot before the run")"
    return 0
  fi
  level=$(jq -r '.level' "$work/before.json")
  snap=$(profile_settled "$KIT_CONF") || {
    profile_unavailable_result "$work" "$(profile_failed $? after)"
    return 0
  }
  profile_remember "$snap"
  if ! jq -c --arg level "$level" '.level = $level' <<<"$snap" >"$raw.after.json" ||
    ! cp "$work/before.json" "$raw.before.json"; then
    profile_unavailable_result "$work" "cannot write '$raw.after.json'"
    return 0
  fi
  jq -L "$KIT_ROOT/lib" -n -c --slurpfile b "$raw.before.json" --slurpfile a "$raw.after.json" \
    --arg level "$level" --arg name "$name" \
    'include "run/profile"; profile_diff($b[0]; $a[0]; $level)
     | if .available then .files = ["\($name).profile.before.json", "\($name).profile.after.json"] else . end
     | if .available and ($a[0].settled | not) then
         .warnings = ["smbd was still adding to its counters when the probe stopped waiting (about 9 s after the run): the last second may be missing"]
       else . end' >"$work/result.json" ||
    profile_unavailable_result "$work" "the counters could not be compared"
  return 0
}
