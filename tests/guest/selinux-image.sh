#!/usr/bin/env bash
# Usage: selinux-image.sh [-h]
# Summary: build and cache an ext4 disk image of Debian 12 labelled for SELinux (refpolicy, enforcing) with the kit inside
#
# For tests/guest/selinux.bats: the usual guest boots over this machine's root, which has no
# SELinux labels; an enforcing policy needs a file system labelled for it. Two cached layers
# under $GUEST_CACHE/selinux (default /var/cache/samba-perf-test-guest/selinux):
#   root-<key>/      the minbase tar (tests/minimal/minbase.sh) with systemd, the kit's
#                    packages, selinux-policy-default, policycoreutils(-python-utils) and
#                    auditd installed in a chroot (the network is used only here);
#                    /etc/selinux/config says enforcing, default policy. key: the package list,
#                    the build steps and the tar.
#   image-<commit>.img   root-<key> plus the committed HEAD of this kit cloned into
#                    /opt/samba-perf-test (helpers built in the chroot), every file labelled
#                    with 'setfiles -r' against the policy's file_contexts (security.selinux
#                    xattrs; works on a host without SELinux), then 'mkfs.ext4 -d' (copies the
#                    xattrs). One image is kept; a new kit commit replaces it.
# On success the last line on stdout is the image's path.
# Exit: 0 ready, 1 could not build (reason on stderr), 3 cannot on this machine (no minbase
# tar, no mkfs.ext4), 2 usage.

set -euo pipefail
GUEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
KIT_ROOT=$(cd "$GUEST_DIR/../.." && pwd)
GUEST_CACHE=${GUEST_CACHE:-/var/cache/samba-perf-test-guest}
SI_DIR=$GUEST_CACHE/selinux
SI_KIT=/opt/samba-perf-test
SI_IMAGE_MB=${SI_IMAGE_MB:-3072}
# the kit's packages (lib/server/deps.sh, Debian) and what an enforcing systemd guest needs
SI_PACKAGES=(systemd systemd-sysv udev selinux-policy-default policycoreutils
  policycoreutils-python-utils auditd
  samba samba-common-bin smbclient libsmbclient-dev fio nftables jq make gcc libc6-dev pkgconf
  cifs-utils iproute2 diffutils mawk util-linux mount coreutils libc-bin passwd procps kmod
  findutils grep sed gnuplot-nox cmark-gfm)
SI_MOUNTS=()

si_log() { printf 'selinux-image: %s\n' "$*" >&2; }
si_die() {
  printf 'selinux-image: error: %s\n' "$*" >&2
  exit 1
}
si_cannot() {
  printf 'selinux-image: cannot: %s\n' "$*" >&2
  exit 3
}

si_unmount() {
  local i
  for ((i = ${#SI_MOUNTS[@]} - 1; i >= 0; i--)); do
    umount -R "${SI_MOUNTS[i]}" 2>/dev/null || umount -R -l "${SI_MOUNTS[i]}" || true
  done
  SI_MOUNTS=()
}
trap si_unmount EXIT

# si_chroot ROOT SECONDS CMD...: run CMD in ROOT with /proc, /sys, /dev and a /run tmpfs
si_chroot() {
  local root=$1 limit=$2
  shift 2
  if ((${#SI_MOUNTS[@]} == 0)); then
    mount -t proc proc "$root/proc" && SI_MOUNTS+=("$root/proc")
    mount --rbind /sys "$root/sys" && mount --make-rslave "$root/sys" && SI_MOUNTS+=("$root/sys")
    mount --rbind /dev "$root/dev" && mount --make-rslave "$root/dev" && SI_MOUNTS+=("$root/dev")
    mount -t tmpfs -o mode=0755 tmpfs "$root/run" && SI_MOUNTS+=("$root/run")
  fi
  timeout -k 30 "$limit" chroot "$root" /usr/bin/env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin \
    HOME=/root LANG=C.UTF-8 DEBIAN_FRONTEND=noninteractive "$@"
}

# si_build_root TAR DIR: unpack TAR and install the packages (network), write the SELinux config
si_build_root() {
  local tar=$1 dir=$2 work
  work=$(mktemp -d "$SI_DIR/root-work.XXXXXX")
  tar -C "$work" --numeric-owner -xpf "$tar"
  cp -L /etc/resolv.conf "$work/etc/resolv.conf"
  # no service starts in the chroot
  printf '#!/bin/sh\nexit 101\n' >"$work/usr/sbin/policy-rc.d"
  chmod 0755 "$work/usr/sbin/policy-rc.d"
  si_log "installing ${#SI_PACKAGES[@]} packages in the chroot (network)"
  si_chroot "$work" 600 apt-get update -q >&2 || si_die "apt-get update failed in the chroot"
  si_chroot "$work" 1800 apt-get install -y -q --no-install-recommends "${SI_PACKAGES[@]}" >&2 ||
    si_die "apt-get install failed in the chroot"
  si_chroot "$work" 120 apt-get clean
  si_unmount
  rm -f "$work/usr/sbin/policy-rc.d"
  printf 'SELINUX=enforcing\nSELINUXTYPE=default\n' >"$work/etc/selinux/config"
  printf 'samba-perf-selinux\n' >"$work/etc/hostname"
  printf '127.0.0.1 localhost\n127.0.1.1 samba-perf-selinux\n' >"$work/etc/hosts"
  : >"$work/etc/resolv.conf"
  printf '/dev/vda / ext4 rw,relatime 0 1\n' >"$work/etc/fstab"
  touch "$work/READY"
  mv "$work" "$dir"
}

# si_build_image ROOT COMMIT IMG: the kit's HEAD into ROOT, helpers built, labelled, ext4 image
si_build_image() {
  local root=$1 commit=$2 img=$3 fc
  rm -rf "${root:?}$SI_KIT"
  git clone -q --no-hardlinks "$KIT_ROOT" "$root$SI_KIT"
  git -C "$root$SI_KIT" checkout -q "$commit"
  si_chroot "$root" 600 make -s -C "$SI_KIT/helpers" >&2 || si_die "the helpers do not build in the chroot"
  si_unmount
  fc=$root/etc/selinux/default/contexts/files/file_contexts
  [[ -f $fc ]] || si_die "no '$fc': selinux-policy-default is not installed"
  si_log "labelling with setfiles"
  # the image's own setfiles in the chroot (this machine may have none); it sets the labels
  # through /proc/self/fd, so /proc is mounted there, and only /proc (never this machine's /dev
  # or /sys)
  mount -t proc proc "$root/proc" && SI_MOUNTS+=("$root/proc")
  chroot "$root" setfiles -F -e /proc /etc/selinux/default/contexts/files/file_contexts / >&2 ||
    si_die "setfiles failed"
  si_unmount
  si_log "mkfs.ext4 -d (${SI_IMAGE_MB} MiB)"
  rm -f "$img.part"
  truncate -s "${SI_IMAGE_MB}M" "$img.part"
  mkfs.ext4 -q -F -L selinux-root -E root_owner=0:0 -d "$root" "$img.part" >&2 || si_die "mkfs.ext4 -d failed"
  mv "$img.part" "$img"
}

main() {
  local tar key root commit img t0=$SECONDS
  [[ ${1:-} == -h ]] && {
    sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"
    return 0
  }
  (($# == 0)) || return 2
  [[ $(id -u) -eq 0 ]] || si_cannot "needs root"
  command -v mkfs.ext4 >/dev/null || si_cannot "no mkfs.ext4 (package e2fsprogs)"
  tar=$(MINIMAL_SUITE=bookworm "$KIT_ROOT/tests/minimal/minbase.sh") || si_cannot "no minimal Debian 12 root (tests/minimal/minbase.sh)"
  commit=$(git -C "$KIT_ROOT" rev-parse --verify -q HEAD) || si_cannot "the kit is not a git checkout"
  mkdir -p "$SI_DIR"
  exec 9>"$SI_DIR/.lock"
  flock -w 3000 9 || si_die "cannot lock '$SI_DIR/.lock'"
  key=$({
    declare -f si_build_root
    printf '%s\n' "${SI_PACKAGES[@]}"
    stat -c '%s %Y' "$tar"
  } | sha256sum | cut -c1-12)
  root=$SI_DIR/root-$key
  img=$SI_DIR/image-$commit.img
  if [[ ! -f $root/READY ]]; then
    find "$SI_DIR" -mindepth 1 -maxdepth 1 -name 'root-*' -exec rm -rf {} +
    si_build_root "$tar" "$root"
  fi
  if [[ ! -f $img ]]; then
    find "$SI_DIR" -mindepth 1 -maxdepth 1 -name 'image-*.img*' -delete
    si_build_image "$root" "$commit" "$img"
  fi
  si_log "ready in $((SECONDS - t0)) s"
  printf '%s\n' "$img"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
