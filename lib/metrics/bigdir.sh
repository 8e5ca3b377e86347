# lib/metrics/bigdir.sh: the bigdir metric: for each folder size of BIGDIR_SIZES, a folder of that
# many empty files made on the server's file system (as the share's owner, not through SMB),
# then through SMB on one connection (smb-bigdir): full listings, lookups of missing names and of
# names in another case, and creates (raw/bigdir.SIZE.json); with client hosts (CLIENT_HOSTS,
# lib/run/clienthosts.sh) that connection is the first client host's, over its network (one
# client, one operation at a time: what one user of a big folder sees); the folders are made once a run,
# kept for its repeats and removed at its end, also when it stops (bigdir_finish). Sourced;
# functions only. Verdict: lib/metrics/bigdir.jq.

# the sizes whose folder this run has made (bigdir_measure), never from the environment
BIGDIR_FILLED=''

bigdir_describe() {
  local from=''
  if clienthosts_on; then from=" from client host ${CLIENT_HOSTS%% *}"; fi
  echo "folders of ${BIGDIR_SIZES// /, } files: listing, lookups and creates, $BIGDIR_OPS each$from"
}
# per size: filling the folder once a run (here 2 to 45 s per 100,000 files: creating files
# in a big folder is slow on a file system whose cache is small) and the helper's four phases
# (each BIGDIR_SECONDS at most; short in a small folder)
bigdir_estimate() {
  local n s=0
  for n in $BIGDIR_SIZES; do
    [[ " ${BIGDIR_FILLED:-} " == *" $n "* ]] || s=$((s + n / 5000))
    s=$((s + (n >= 50000 ? 3 * BIGDIR_SECONDS : n >= 5000 ? 2 : 1)))
  done
  measure_estimate "$s"
}
bigdir_needs() { :; }

# bigdir_check_settings: the metric's own settings (lib/settings.sh calls it).
bigdir_check_settings() {
  settings_rising BIGDIR_SIZES size 1000000 2 "must be two or more whole numbers, such as \"1000 10000 100000\""
  settings_int BIGDIR_OPS 1 100000
  settings_int BIGDIR_SECONDS 1 600
}

# bigdir_fill DIR N: make N empty files in DIR (names as Windows users make them: mixed case),
# as DIR's owner, so that root follows no link in a folder the share's users can write.
bigdir_fill() {
  local dir=$1 n=$2 uid gid
  uid=$(stat -c %u -- "$dir") gid=$(stat -c %g -- "$dir") || return 1
  seq -f 'Report_%07g.Docx' 1 "$n" |
    timeout 300 setpriv --reuid="$uid" --regid="$gid" --clear-groups env -C "$dir" xargs -r -n 5000 touch --
}

# bigdir_measure: each size's folder, made once a run (kept for the next repeat; bigdir_finish
# removes them), then measured (raw/bigdir.SIZE.json); the files the helper created are removed
# after each measurement, so that every repeat meets the same folder.
bigdir_measure() {
  local top dir n why total=0 unc
  local -a h
  child_client_cmd h smb-bigdir || return 1
  unc=//$CHILD_SERVER/$SHARE_NAME
  for n in $BIGDIR_SIZES; do total=$((total + n)); done
  [[ -n ${BIGDIR_FILLED:-} ]] || {
    # the folders of every size stay until the run ends; their entries take about 64 MB (with
    # as much to spare), their files an inode each (and 1000 to spare)
    why=$(common_room "$SHARE_DIR" 128 $((total + 1000))) || {
      run_why "$why"
      return 2
    }
  }
  top=$(child_share_dir bigdir)
  for n in $BIGDIR_SIZES; do
    dir=$top/$n
    if [[ " ${BIGDIR_FILLED:-} " != *" $n "* ]]; then
      rm -rf --one-file-system -- "$dir"
      mkdir -- "$dir" && chown -h --reference="$top" -- "$dir" || return 1
      log "      making a folder of $n files"
      BIGDIR_FILLED+=" $n"
      bigdir_fill "$dir" "$n" || {
        run_why "could not make $n files in '$dir'"
        bigdir_finish
        return 1
      }
      # the new inodes and folder blocks written out now, not by the kernel's flusher while
      # the folder is measured (it showed as other processes' CPU in bigdir's first repeat)
      timeout 120 sync -f -- "$dir" 2>/dev/null || true
    fi
    # four phases of BIGDIR_SECONDS, a listing's request may take 30 s, and the set-up
    measure "bigdir.$n" $((BIGDIR_SECONDS * 4 + 120)) -- \
      "${h[@]}" -n "$BIGDIR_OPS" -t "$BIGDIR_SECONDS" "$unc/bigdir/$n" || true
    # find -P follows no link, not even a folder that was swapped for one
    find "$dir" -maxdepth 1 -name 'Kit-New-*' -type f -delete 2>/dev/null || true
  done
}

# bigdir_finish: the run is over (finished or stopped): remove the folders.
bigdir_finish() {
  [[ -n ${BIGDIR_FILLED:-} ]] || return 0
  rm -rf --one-file-system -- "$SHARE_DIR/bigdir"
  BIGDIR_FILLED=''
}
