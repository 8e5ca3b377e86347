#!/bin/bash
# Usage: stage 2 of the test guest, exec'd as PID 1 by the initramfs; not run on the host
# Summary: mount the results share and the kernel modules, install the private target, exec systemd
#
# Runs in the guest's root: the host root (read-only 9p) under a tmpfs overlay, so every
# write here lands in guest memory. Kernel command line keys it reads:
#   guest.plan=DIR     host folder written by run-guest.sh (env.sh for guest-run.sh)
#   guest.modules=DIR  unpacked lib/modules/<kver> of the guest kernel (from the cache)
#   guest.root=vda     the root is a disk image labelled for SELinux (selinux-image.sh): the
#                      plan and the modules come as read-only 9p shares (tags 'plan', 'modules');
#                      the three 9p shares are mounted by the service ('guest-stage2.sh
#                      mount-shares' as ExecStartPre) once systemd has loaded the policy, since
#                      a context= label cannot be set before; what this script writes is
#                      labelled with setfiles; the command runs as unconfined_t (an admin's
#                      root shell)
# Any failure before systemd takes over writes status 125 to the results share and
# powers off.

export PATH=/usr/sbin:/usr/bin:/sbin:/bin

GUEST_RESULTS_MNT=/guest-results
GUEST_TARGET=samba-perf-guest.target
GUEST_SERVICE=samba-perf-guest.service

stage2_fail() {
  echo "guest-stage2: error: $*" >/dev/console
  if mountpoint -q "$GUEST_RESULTS_MNT"; then
    echo 125 >"$GUEST_RESULTS_MNT/guest-exit-status"
    sync
  fi
  sleep 1
  /bin/busybox poweroff -f
}

mountpoint -q /proc || mount -t proc proc /proc
mountpoint -q /sys || mount -t sysfs sysfs /sys
mountpoint -q /dev || mount -t devtmpfs devtmpfs /dev

plan='' moddir='' root=hostroot
read -r -a args </proc/cmdline
for arg in "${args[@]}"; do
  case $arg in
    guest.plan=*) plan=${arg#guest.plan=} ;;
    guest.modules=*) moddir=${arg#guest.modules=} ;;
    guest.root=*) root=${arg#guest.root=} ;;
  esac
done
kver=$(uname -r)

p9=trans=virtio,version=9p2000.L,msize=512000
# stage2_image_shares: (image root, policy loaded) the 9p shares with SELinux labels
stage2_image_shares() {
  local tmp=context=system_u:object_r:tmp_t:s0
  mount -t 9p -o "$p9,$tmp" results "$GUEST_RESULTS_MNT" &&
    mount -t 9p -o "$p9,ro,$tmp" plan "$plan" &&
    mount -t 9p -o "$p9,ro,context=system_u:object_r:modules_object_t:s0" modules "/lib/modules/$kver"
}
if [[ ${1:-} == mount-shares ]]; then
  stage2_image_shares
  exit
fi

service_ctx='' service_pre=''
if [[ $root == vda ]]; then
  service_ctx=SELinuxContext=unconfined_u:unconfined_r:unconfined_t:s0
  service_pre="ExecStartPre=/bin/bash ${BASH_SOURCE[0]} mount-shares"
  mkdir -p "$GUEST_RESULTS_MNT" "$plan" "/lib/modules/$kver" || stage2_fail "cannot create the mount points"
else
  mkdir -p "$GUEST_RESULTS_MNT" || stage2_fail "cannot create '$GUEST_RESULTS_MNT'"
  mount -t 9p -o "$p9" results "$GUEST_RESULTS_MNT" ||
    stage2_fail "cannot mount the results share (9p tag 'results')"
  [[ -f $plan/env.sh ]] || stage2_fail "no env.sh in plan folder '$plan'"
  [[ -f $moddir/modules.dep ]] || stage2_fail "no modules.dep in '$moddir'"
  { mkdir -p "/lib/modules/$kver" && mount --bind "$moddir" "/lib/modules/$kver"; } ||
    stage2_fail "cannot bind '$moddir' onto '/lib/modules/$kver'"
fi

# The host may be a container: its marker files would make systemd and the kit think so.
rm -f /.dockerenv /run/.containerenv
# Debian's tmp.conf empties /tmp at boot: the kit checkout may live there (CI clones do).
mkdir -p /etc/tmpfiles.d && ln -sf /dev/null /etc/tmpfiles.d/tmp.conf
# Nothing of the host's schedule or time sync belongs in a throwaway, network-less guest.
# Under TCG every early-boot unit costs seconds of emulated CPU: drop the ones a
# throwaway guest has no use for (journald, tmpfiles, sysctl, udev stay).
for unit in timers.target systemd-timesyncd.service systemd-binfmt.service \
  proc-sys-fs-binfmt_misc.automount proc-sys-fs-binfmt_misc.mount dev-hugepages.mount \
  sys-kernel-debug.mount sys-kernel-tracing.mount modprobe@dm_mod.service \
  modprobe@efi_pstore.service modprobe@loop.service systemd-pstore.service \
  systemd-random-seed.service systemd-journal-flush.service systemd-update-utmp.service \
  systemd-sysusers.service; do
  ln -sf /dev/null "/etc/systemd/system/$unit"
done

cat >"/etc/systemd/system/$GUEST_TARGET" <<EOF || stage2_fail "cannot write '$GUEST_TARGET'"
[Unit]
Description=samba-perf-test guest run (sysinit + one command, nothing of the host's)
Requires=sysinit.target $GUEST_SERVICE
After=sysinit.target $GUEST_SERVICE
AllowIsolate=yes
EOF

cat >"/etc/systemd/system/$GUEST_SERVICE" <<EOF || stage2_fail "cannot write '$GUEST_SERVICE'"
[Unit]
Description=samba-perf-test guest command
DefaultDependencies=no
Requires=sysinit.target
After=sysinit.target
Conflicts=shutdown.target
Before=shutdown.target
SuccessAction=poweroff-force
FailureAction=poweroff-force

[Service]
Type=exec
ExecStart=/bin/bash ${BASH_SOURCE[0]%/*}/guest-run.sh $plan
StandardInput=null
StandardOutput=journal+console
StandardError=inherit
TimeoutStartSec=infinity
TimeoutStopSec=30
$service_ctx
$service_pre
EOF

if [[ $root == vda ]]; then
  # written before the policy is loaded: give them the labels the policy's rules say
  setfiles -F /etc/selinux/default/contexts/files/file_contexts /etc/systemd/system \
    /etc/tmpfiles.d "$GUEST_RESULTS_MNT" "$plan" /lib/modules ||
    stage2_fail "setfiles failed on what stage 2 wrote"
fi

read -r up _ </proc/uptime
echo "guest-stage2: starting systemd at ${up} s uptime" >/dev/console
exec /lib/systemd/systemd --unit="$GUEST_TARGET"
