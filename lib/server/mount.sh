# lib/server/mount.sh: the kernel cifs mount of the share at MOUNT_POINT through CLIENT_ADDR:445.
# Sourced; functions only. Needs the loaded settings.

# mount_has_cifs: true when the kernel has cifs (/proc/filesystems, else after modprobe cifs).
mount_has_cifs() {
  grep -qw cifs /proc/filesystems 2>/dev/null && return 0
  common_have modprobe && common_isolated common_timeout 30 modprobe -q cifs && grep -qw cifs /proc/filesystems 2>/dev/null
}

# mount_entry_at: print 'SOURCE FSTYPE OPTIONS' of the last (top) mount at MOUNT_POINT (the
# canonical path, as /proc/mounts writes it); 1 when nothing is mounted there.
mount_entry_at() {
  awk -v mp="$MOUNT_POINT" '$2 == mp { e = $1 " " $3 " " $4; found = 1 } END { if (found) print e; exit !found }' /proc/self/mounts
}

# mount_is_kit: true when the top mount at MOUNT_POINT is the kit's: cifs from the kit's UNC
# (the current one or the one the state recorded at mount time).
mount_is_kit() {
  local src type opts
  read -r src type opts < <(mount_entry_at) || return 1
  [[ $type == cifs ]] || return 1
  [[ $src == "$KIT_UNC" || (-n ${KIT_MOUNT_SRC:-} && $src == "$KIT_MOUNT_SRC") ]]
}

# mount_check_foreign: die when something that is not the kit's is mounted at MOUNT_POINT.
mount_check_foreign() {
  local e
  e=$(mount_entry_at) || return 0
  mount_is_kit && return 0
  die "setting 'MOUNT_POINT' names '$MOUNT_POINT', where '${e%% *}' (${e#* }) is mounted and is not the kit's: choose a new folder"
}

# mount_options_now: print the options of the kit's cifs mount at MOUNT_POINT; 1 when not mounted.
mount_options_now() {
  local src type opts
  mount_is_kit || return 1
  read -r src type opts < <(mount_entry_at) || return 1
  printf '%s\n' "$opts"
}

# mount_source_now: print the source of the kit's cifs mount at MOUNT_POINT; 1 when not mounted.
mount_source_now() {
  local src type opts
  mount_is_kit || return 1
  read -r src type opts < <(mount_entry_at) || return 1
  printf '%s\n' "$src"
}

# mount_wanted_options: print the -o options for the current settings.
mount_wanted_options() {
  local o="credentials=$KIT_CREDENTIALS,vers=3.1.1,uid=0,gid=0,file_mode=0644,dir_mode=0755"
  [[ $ENCRYPTION == yes ]] && o+=,seal
  printf '%s\n' "$o"
}

# mount_is_current: true when the mount is there with the current source and seal setting.
mount_is_current() {
  local opts src
  opts=$(mount_options_now) || return 1
  src=$(mount_source_now) || return 1
  [[ $src == "$KIT_UNC" ]] || return 1
  if [[ $ENCRYPTION == yes ]]; then [[ ,$opts, == *,seal,* ]]; else [[ ,$opts, != *,seal,* ]]; fi
}

# mount_up: mount the share when the kernel has cifs; record KIT_MOUNTED, KIT_MOUNT_OPTS,
# KIT_MOUNT_SKIP. One line when it cannot.
mount_up() {
  if ! mount_has_cifs; then
    state_set KIT_MOUNTED no
    state_set KIT_MOUNT_OPTS ''
    state_set KIT_MOUNT_SKIP 'kernel has no cifs support'
    log "mount: the kernel has no cifs support: the data metrics will be skipped on this host"
    return 0
  fi
  if mount_is_current; then
    log "mount: '$KIT_UNC' already mounted at '$MOUNT_POINT'"
  else
    mount_down
    mount_check_foreign
    state_set KIT_MOUNT_SRC "$KIT_UNC"
    common_timeout 60 mount -t cifs "$KIT_UNC" "$MOUNT_POINT" -o "$(mount_wanted_options)" ||
      die "could not mount '$KIT_UNC' at '$MOUNT_POINT' (see dmesg)"
    log "mount: '$KIT_UNC' at '$MOUNT_POINT'"
  fi
  state_set KIT_MOUNTED yes
  state_set KIT_MOUNT_SKIP ''
  state_set KIT_MOUNT_OPTS "$(mount_options_now)"
}

# mount_down: unmount MOUNT_POINT when the kit's cifs mount is there (checked right before);
# a mount that is not the kit's is kept and named; quiet when nothing is mounted.
mount_down() {
  local e
  e=$(mount_entry_at) || return 0
  if ! mount_is_kit; then
    log "kept the mount of '${e%% *}' at '$MOUNT_POINT': not made by the kit"
    return 0
  fi
  if ! common_timeout 30 umount "$MOUNT_POINT"; then
    mount_is_kit || return 0
    warn "'$MOUNT_POINT' is busy: detaching it (umount -l)"
    common_timeout 30 umount -l "$MOUNT_POINT" || die "could not unmount '$MOUNT_POINT'"
  fi
  if [[ -f $KIT_STATE_FILE ]]; then state_set KIT_MOUNTED no; fi
  log "mount: unmounted '$MOUNT_POINT'"
}
