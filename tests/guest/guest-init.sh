#!/bin/busybox sh
# shellcheck shell=sh
# Usage: /init in the guest initramfs (built by prepare-guest.sh); not run on the host
# Summary: load virtio/9p/overlay/ext4, mount the root (host root read-only under a tmpfs overlay, or a disk image), switch into it
#
# Kernel command line keys it reads:
#   guest.stage2=PATH   script (on the new root) to exec as PID 1 after switch_root
#   guest.root=vda      root is the ext4 disk image on /dev/vda (read-write; run-guest.sh gives
#                       qemu snapshot=on, so nothing reaches the image file); default: the host
#                       root over 9p (tag 'hostroot') under a tmpfs overlay
# Any failure powers the guest off: a rescue shell would only hang the run until its timeout.

/bin/busybox --install -s /bin
export PATH=/bin

init_fail() {
  echo "guest-init: error: $*" >/dev/console
  sleep 1
  poweroff -f
}

mount -t proc proc /proc || init_fail "cannot mount /proc"
mount -t sysfs sysfs /sys
mount -t devtmpfs devtmpfs /dev

stage2='' root=hostroot
read -r cmdline </proc/cmdline
for arg in $cmdline; do
  case $arg in
    guest.stage2=*) stage2=${arg#guest.stage2=} ;;
    guest.root=*) root=${arg#guest.root=} ;;
  esac
done
[ -n "$stage2" ] || init_fail "no guest.stage2= on the kernel command line"

while read -r mod; do
  insmod "/lib/modules/$mod" || init_fail "cannot load '$mod'"
done </lib/modules/order

if [ "$root" = vda ]; then
  i=0
  while [ ! -b /dev/vda ] && [ $i -lt 50 ]; do # the disk may show up a moment after its module
    sleep 0.1
    i=$((i + 1))
  done
  mount -t ext4 -o rw /dev/vda /newroot || init_fail "cannot mount the disk image /dev/vda"
else
  mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000,cache=loose hostroot /lower ||
    init_fail "cannot mount the host root (9p tag 'hostroot')"
  mount -t tmpfs -o mode=0755,size=75% overlay-upper /upper
  mkdir -p /upper/data /upper/work
  mount -t overlay -o lowerdir=/lower,upperdir=/upper/data,workdir=/upper/work overlay /newroot ||
    init_fail "cannot mount the overlay"
fi
[ -x "/newroot$stage2" ] || init_fail "stage 2 '$stage2' is not executable in the new root"

read -r up _ </proc/uptime
echo "guest-init: root ready, switching to '$stage2' at ${up} s uptime" >/dev/console
umount /sys /proc
mount --move /dev /newroot/dev 2>/dev/null || umount /dev
exec switch_root /newroot "$stage2"
