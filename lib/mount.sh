# lib/mount.sh: the kernel cifs mount of the share at MOUNT_POINT through CLIENT_ADDR:445.
# Sourced; functions only. Needs the loaded settings.

# mount_has_cifs: true when the kernel has cifs (/proc/filesystems, else after modprobe cifs).
mount_has_cifs() {
  grep -qw cifs /proc/filesystems 2>/dev/null && return 0
  common_have modprobe && modprobe -q cifs 2>/dev/null && grep -qw cifs /proc/filesystems 2>/dev/null
}

# mount_options_now: print the options of the cifs mount at MOUNT_POINT; 1 when not mounted.
mount_options_now() {
  awk -v mp="$MOUNT_POINT" '$2 == mp && $3 == "cifs" { print $4; found = 1; exit } END { exit !found }' /proc/mounts
}

# mount_source_now: print the source of the cifs mount at MOUNT_POINT; 1 when not mounted.
mount_source_now() {
  awk -v mp="$MOUNT_POINT" '$2 == mp && $3 == "cifs" { print $1; found = 1; exit } END { exit !found }' /proc/mounts
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
    timeout 60 mount -t cifs "$KIT_UNC" "$MOUNT_POINT" -o "$(mount_wanted_options)" ||
      die "could not mount '$KIT_UNC' at '$MOUNT_POINT' (see dmesg)"
    log "mount: '$KIT_UNC' at '$MOUNT_POINT'"
  fi
  state_set KIT_MOUNTED yes
  state_set KIT_MOUNT_SKIP ''
  state_set KIT_MOUNT_OPTS "$(mount_options_now)"
}

# mount_down: unmount MOUNT_POINT when the kit's cifs mount is there; quiet otherwise.
mount_down() {
  mount_options_now >/dev/null || return 0
  if ! timeout 30 umount "$MOUNT_POINT"; then
    warn "'$MOUNT_POINT' is busy: detaching it (umount -l)"
    umount -l "$MOUNT_POINT" || die "could not unmount '$MOUNT_POINT'"
  fi
  if [[ -f $KIT_STATE_FILE ]]; then state_set KIT_MOUNTED no; fi
  log "mount: unmounted '$MOUNT_POINT'"
}
