#!/usr/bin/env bash
# Usage: prepare-guest.sh [-h] [-q]
# Summary: fetch, unpack and cache a Debian kernel + busybox initramfs for the test guest
#
# Downloads the Debian kernel package that linux-image-amd64 depends on (without
# installing it), unpacks it into a private folder, runs depmod, extracts the
# uncompressed vmlinux (PVH boot) and builds a small busybox initramfs that loads
# virtio/9p/overlay (and virtio_blk/ext4 for a disk image root) and switches into the root.
#
# Everything is cached in $GUEST_CACHE (default /var/cache/samba-perf-test-guest),
# keyed by kernel version, and reused on the next run (a new kernel version replaces the old). On success the last line on
# stdout is the cache folder of the kernel, holding:
#   kver  vmlinux (or vmlinuz)  initrd-<hash>.img  root/lib/modules/<kver>/  READY
#
# Environment:
#   GUEST_CACHE       cache folder (never under /tmp, never in the repo)
#   GUEST_KERNEL_PKG  kernel package name (default: what linux-image-amd64 depends on)
#   GUEST_APT_UPDATE  1 to allow 'apt-get update' when apt does not know the package (default 1)
#
# Exit: 0 ready, 1 could not prepare (reason on stderr), 2 usage.

set -euo pipefail
[[ -n ${GUEST_DEBUG:-} ]] && {
  PS4='+ prepare-guest:${LINENO}: '
  set -x
}

GUEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GUEST_CACHE=${GUEST_CACHE:-/var/cache/samba-perf-test-guest}

# The modules the initramfs loads, in dependency order (modprobe --show-depends
# computes the real order from the unpacked tree; this is the set we ask for).
# ext4 wants crc32c: the generic one, since crc32c-intel refuses the TCG CPU (qemu64, no SSE4.2).
GUEST_INITRD_MODULES=(virtio_pci virtio_rng virtio_blk 9pnet_virtio 9p overlay crc32c_generic ext4)

prep_log() { printf 'prepare-guest: %s\n' "$*" >&2; }
prep_die() {
  printf 'prepare-guest: error: %s\n' "$*" >&2
  exit 1
}

prep_usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

# prep_kernel_pkg: print the name of the kernel package to fetch
prep_kernel_pkg() {
  local pkg
  if [[ -n ${GUEST_KERNEL_PKG:-} ]]; then
    printf '%s\n' "$GUEST_KERNEL_PKG"
    return 0
  fi
  pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
    sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
  if [[ -z $pkg && ${GUEST_APT_UPDATE:-1} == 1 ]]; then
    prep_log "apt does not know linux-image-amd64; running 'apt-get update'"
    timeout 300 apt-get update -qq >&2 || prep_log "'apt-get update' failed"
    pkg=$(apt-cache depends linux-image-amd64 2>/dev/null |
      sed -n 's/^ *Depends: \(linux-image-[0-9][^ ]*-amd64\)$/\1/p' | head -n 1)
  fi
  [[ -n $pkg ]] || return 1
  printf '%s\n' "$pkg"
}

# prep_extract_vmlinux BZIMAGE OUT: unpack the xz payload of a bzImage into an ELF vmlinux
prep_extract_vmlinux() {
  local bz=$1 out=$2 off
  command -v xz >/dev/null || return 1
  # xz stream magic: FD 37 7A 58 5A 00
  off=$(LC_ALL=C grep -obUaP '\xfd7zXZ\x00' "$bz" | head -n 1 | cut -d: -f1) || return 1
  [[ -n $off ]] || return 1
  tail -c +"$((off + 1))" "$bz" | xz -dc 2>/dev/null >"$out.part" || true
  # a trailing garbage warning is expected; the ELF must be whole
  if [[ $(head -c 4 "$out.part" | od -An -c | tr -d ' ') == '177ELF' ]]; then
    mv "$out.part" "$out"
    return 0
  fi
  rm -f "$out.part"
  return 1
}

# prep_build_initrd KROOT KVER OUT: busybox initramfs with the 9p/overlay modules
prep_build_initrd() {
  local kroot=$1 kver=$2 out=$3 dir line mod list=()
  dir=$(mktemp -d "$GUEST_CACHE/initrd.XXXXXX")
  mkdir -p "$dir"/{bin,dev,proc,sys,newroot,lower,upper,lib/modules}
  cp /bin/busybox "$dir/bin/busybox"
  cp "$GUEST_DIR/guest-init.sh" "$dir/init"
  chmod 0755 "$dir/init" "$dir/bin/busybox"
  while read -r line; do
    # "insmod /path/to/mod.ko [params]"; builtin modules print "builtin x"
    [[ $line == insmod\ * ]] || continue
    mod=${line#insmod }
    mod=${mod%% *}
    mod=${mod#"$kroot"}
    [[ " ${list[*]} " == *" $mod "* || $mod == */crc32c-intel.ko ]] && continue
    list+=("$mod")
  done < <(modprobe -a -d "$kroot" -S "$kver" --show-depends "${GUEST_INITRD_MODULES[@]}")
  ((${#list[@]} > 0)) || prep_die "modprobe found no modules for '${GUEST_INITRD_MODULES[*]}' in '$kroot'"
  for mod in "${list[@]}"; do
    cp "$kroot$mod" "$dir/lib/modules/"
    printf '%s\n' "${mod##*/}" >>"$dir/lib/modules/order"
  done
  (cd "$dir" && find . | busybox cpio -o -H newc 2>/dev/null) | gzip -1 >"$out.part"
  mv "$out.part" "$out"
  rm -rf "$dir"
  prep_log "initramfs: ${list[*]##*/}"
}

main() {
  local quiet=0 opt pkg kver kdir work deb t0 hash initrd
  while getopts hq opt; do
    case $opt in
      h)
        prep_usage
        exit 0
        ;;
      q) quiet=1 ;;
      *)
        prep_usage >&2
        exit 2
        ;;
    esac
  done
  shift $((OPTIND - 1))
  (($# == 0)) || {
    prep_usage >&2
    exit 2
  }
  [[ $quiet == 1 ]] && prep_log() { :; }

  case $GUEST_CACHE in
    /tmp | /tmp/*) prep_die "GUEST_CACHE '$GUEST_CACHE' is under /tmp: pick a folder that survives reboots" ;;
    /*) ;;
    *) prep_die "GUEST_CACHE '$GUEST_CACHE' is not an absolute path" ;;
  esac
  for t in modprobe depmod dpkg-deb apt-get apt-cache busybox gzip; do
    command -v "$t" >/dev/null || prep_die "'$t' not found"
  done
  mkdir -p "$GUEST_CACHE"

  pkg=$(prep_kernel_pkg) || prep_die "cannot find the kernel package linux-image-amd64 depends on"
  kver=${pkg#linux-image-}
  kdir=$GUEST_CACHE/$kver
  hash=$(cat "$GUEST_DIR/guest-init.sh" "${BASH_SOURCE[0]}" | sha256sum | cut -c1-12)
  initrd=$kdir/initrd-$hash.img

  if [[ -f $kdir/READY && -f $initrd ]]; then
    prep_log "cached: $kdir"
    printf '%s\n' "$kdir"
    return 0
  fi

  t0=$SECONDS
  exec 9>"$GUEST_CACHE/.lock"
  flock -w 600 9 || prep_die "cannot lock '$GUEST_CACHE/.lock'"
  if [[ ! -f $kdir/READY ]]; then
    rm -rf "$kdir"
    work=$(mktemp -d "$GUEST_CACHE/work.XXXXXX")
    prep_log "downloading $pkg"
    # apt drops privileges to _apt for downloads; the work folder must be writable for it
    chmod 0755 "$work"
    chown _apt "$work" 2>/dev/null || true
    (cd "$work" && timeout 600 apt-get download -q "$pkg" >&2) ||
      {
        rm -rf "$work"
        prep_die "'apt-get download $pkg' failed"
      }
    chown root "$work"
    deb=$(find "$work" -maxdepth 1 -name '*.deb' | head -n 1)
    [[ -n $deb ]] || {
      rm -rf "$work"
      prep_die "no .deb downloaded for '$pkg'"
    }
    mkdir -p "$work/root"
    prep_log "unpacking $(basename "$deb")"
    dpkg-deb -x "$deb" "$work/root"
    [[ -d $work/root/lib/modules/$kver ]] || {
      rm -rf "$work"
      prep_die "'$deb' has no lib/modules/$kver"
    }
    depmod -b "$work/root" "$kver"
    rm -f "$deb"
    if prep_extract_vmlinux "$work/root/boot/vmlinuz-$kver" "$work/vmlinux"; then
      prep_log "extracted vmlinux for PVH boot"
    else
      cp "$work/root/boot/vmlinuz-$kver" "$work/vmlinuz"
      prep_log "cannot extract vmlinux; booting the bzImage"
    fi
    printf '%s\n' "$kver" >"$work/kver"
    touch "$work/READY"
    mv "$work" "$kdir"
    # one kernel is enough: drop the ones an older Debian point release left (~440 MB each)
    find "$GUEST_CACHE" -mindepth 1 -maxdepth 1 -type d -name '*-amd64' ! -name "$kver" \
      -exec rm -rf {} + 2>/dev/null || true
  fi
  if [[ ! -f $initrd ]]; then
    rm -f "$kdir"/initrd-*.img
    prep_build_initrd "$kdir/root" "$kver" "$initrd"
  fi
  prep_log "prepared $kdir in $((SECONDS - t0)) s"
  printf '%s\n' "$kdir"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
