# lib/probes/profile.sh: the server's own view of a measured run: smbd's per-command counters
# ('smbd profiling level', 'smbstatus -P') before and after it, and what smbd did in between.
# Sourced; functions only. Needs KIT_CONF (the kit's smb.conf), RUN_DIR and KIT_ROOT.
#
#   probe_profile_before NAME   raw/NAME.profile.before.json (a snapshot, or why there is none)
#   probe_profile_after NAME    raw/NAME.profile.after.json and raw/NAME.profile.json: the diff
#                               (lib/profile.jq profile_diff), or {"available":false,"why":…}
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
# print nothing and return 1 when they can.
profile_unavailable() {
  local conf=$1 level build text
  # (whole outputs, not 'cmd | grep -q': grep leaving early would fail the pipe under pipefail)
  build=$(smbd -b 2>/dev/null) || true
  if ! command -v smbstatus >/dev/null 2>&1; then
    echo "smbstatus is not installed"
  elif ! grep -qw WITH_PROFILE <<<"$build"; then
    echo "this smbd was built without profiling support (smbd -b shows no WITH_PROFILE)"
  elif ! level=$(profile_level "$conf"); then
    echo "testparm cannot read 'smbd profiling level' from '$conf'"
  elif [[ $level == off ]]; then
    echo "smbd profiling level = off in '$conf'"
  elif ! text=$(timeout 10 smbstatus -s "$conf" -P 2>/dev/null) ||
    ! grep -q '^smb2_read_count:' <<<"$text"; then
    echo "'smbstatus -s $conf -P' printed no SMB2 counters"
  else
    return 1
  fi
  return 0
}

# profile_snapshot CONF: print smbd's counters now as one JSON object (lib/profile.jq
# profile_parse_text); 1 when smbstatus failed.
profile_snapshot() {
  local text
  text=$(timeout 10 smbstatus -s "$1" -P 2>/dev/null) || return 1
  printf '%s\n' "$text" | jq -L "$KIT_ROOT/lib" -R -s -c 'include "profile"; profile_parse_text'
}

# profile_settled CONF: print a snapshot that no smbd process still has to add to. Each smbd
# writes its counters at most 1 s after it worked (and when it exits), so two snapshots 1.1 s
# apart that agree are final; at most 4 tries (about 5 s), then the last one with
# "settled":false.
profile_settled() {
  local conf=$1 a b i
  a=$(profile_snapshot "$conf") || return 1
  for ((i = 0; i < 4; i++)); do
    sleep 1.1
    b=$(profile_snapshot "$conf") || return 1
    if [[ $a == "$b" ]]; then
      jq -c '.settled = true' <<<"$b"
      return 0
    fi
    a=$b
  done
  jq -c '.settled = false' <<<"$b"
}

# profile_write_unavailable FILE WHY: write {"available":false,"why":WHY} to FILE.
profile_write_unavailable() {
  jq -n -c --arg why "$2" '{available: false, why: $why}' >"$1"
}

# probe_profile_before NAME: the snapshot before run NAME (raw/NAME.profile.before.json).
probe_profile_before() {
  local out=$RUN_DIR/raw/$1.profile.before.json why level snap
  if why=$(profile_unavailable "$KIT_CONF"); then
    profile_write_unavailable "$out" "$why"
    return 0
  fi
  level=$(profile_level "$KIT_CONF")
  if ! snap=$(profile_settled "$KIT_CONF"); then
    profile_write_unavailable "$out" "smbstatus -P failed before the run"
    return 0
  fi
  jq -c --arg level "$level" '.available = true | .level = $level' <<<"$snap" >"$out"
}

# probe_profile_after NAME: the snapshot after run NAME and the difference
# (raw/NAME.profile.after.json, raw/NAME.profile.json).
probe_profile_after() {
  local before=$RUN_DIR/raw/$1.profile.before.json out=$RUN_DIR/raw/$1.profile.after.json
  local diff=$RUN_DIR/raw/$1.profile.json why snap level
  if ! jq -e '.available == true' "$before" >/dev/null 2>&1; then
    why=$(jq -r '.why // empty' "$before" 2>/dev/null)
    profile_write_unavailable "$out" "${why:-no snapshot before the run}"
    profile_write_unavailable "$diff" "${why:-no snapshot before the run}"
    return 0
  fi
  level=$(jq -r '.level' "$before")
  if ! snap=$(profile_settled "$KIT_CONF"); then
    profile_write_unavailable "$out" "smbstatus -P failed after the run"
    profile_write_unavailable "$diff" "smbstatus -P failed after the run"
    return 0
  fi
  jq -c --arg level "$level" '.available = true | .level = $level' <<<"$snap" >"$out"
  jq -L "$KIT_ROOT/lib" -n -c --slurpfile b "$before" --slurpfile a "$out" --arg level "$level" \
    'include "profile"; profile_diff($b[0]; $a[0]; $level)
     | if .available and ($a[0].settled | not) then
         .warnings = ["smbd was still adding to its counters 5 s after the run: the last second may be missing"]
       else . end' >"$diff"
}
