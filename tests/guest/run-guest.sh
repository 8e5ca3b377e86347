#!/usr/bin/env bash
# Usage: run-guest.sh [-h] [-C dir] [-e NAME=VALUE]... [-t seconds] -r results_dir [--] command [arg...]
#        run-guest.sh -c
# Summary: run one command as a systemd service in a qemu guest with Debian's kernel (cifs, nftables)
#
# Boots Debian's kernel (prepared and cached by prepare-guest.sh) over this machine's
# root file system: host root read-only over 9p under a tmpfs overlay (the host is never
# written), systemd as PID 1 with a private target that starts sysinit.target and one
# oneshot service running COMMAND, no network card (guest loopback only). The guest
# sees the same paths as the host; COMMAND runs as root in DIR (default: the current
# folder) with PATH, HOME=/root, TERM=dumb, no stdin and GUEST_RESULTS set to where
# RESULTS_DIR is mounted (read-write) inside the guest.
#
#   -c            only check that this machine has what the guest needs (qemu, busybox,
#                 kmod, and systemd for the guest's root): exit 0, or 125 naming the package
#   -C dir        folder to run COMMAND in (default: current folder)
#   -e NAME=VAL   extra environment for COMMAND (repeatable)
#   -r dir        host folder for results (created); the only place the guest can write
#   -t seconds    hard timeout for the whole guest (default: $GUEST_TIMEOUT or 600)
#
# RESULTS_DIR receives: guest-console.log (serial console), guest-command.log (COMMAND's
# output), guest-exit-status, guest-timing.json (boot_s, command_s, wall_s), and whatever
# COMMAND writes to $GUEST_RESULTS.
#
# Environment: GUEST_CACHE (see prepare-guest.sh), GUEST_ACCEL (auto|kvm|tcg),
# GUEST_MEM_MB (2048), GUEST_CPUS (2), GUEST_TIMEOUT (600), GUEST_VERBOSE=1 (console to stderr),
# GUEST_CPU_MODEL (TCG CPU, default qemu64: measured 1.5-2x quicker here than 'max', whose
# AVX2 code paths TCG emulates slowly), GUEST_KERNEL_ARGS (extra kernel arguments),
# GUEST_IMAGE (an ext4 root image from selinux-image.sh instead of this machine's root:
# booted with qemu snapshot=on, so the image file is never written; COMMAND runs in the kit
# copy inside it, /opt/samba-perf-test, unless -C names another folder of the image).
#
# Exit: COMMAND's exit status; 124 the timeout hit; 125 the guest gave no status (boot or
# harness failure: see guest-console.log); 2 usage.

set -euo pipefail
[[ -n ${GUEST_DEBUG:-} ]] && {
  PS4='+ run-guest:${LINENO}: '
  set -x
}

GUEST_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
GUEST_CACHE=${GUEST_CACHE:-/var/cache/samba-perf-test-guest}
GUEST_TIMEOUT=${GUEST_TIMEOUT:-600}
GUEST_MEM_MB=${GUEST_MEM_MB:-2048}
GUEST_CPUS=${GUEST_CPUS:-2}
GUEST_ACCEL=${GUEST_ACCEL:-auto}
GUEST_KERNEL_ARGS=${GUEST_KERNEL_ARGS:-}
GUEST_PLAN=

guest_log() { printf 'run-guest: %s\n' "$*" >&2; }
guest_die() {
  printf 'run-guest: error: %s\n' "$*" >&2
  exit 125
}
guest_usage() { sed -n '2,/^$/s/^# \{0,1\}//p' "${BASH_SOURCE[0]}"; }

guest_cleanup() {
  [[ -n $GUEST_PLAN ]] && rm -rf "$GUEST_PLAN"
  return 0
}
trap guest_cleanup EXIT

# guest_accel: print qemu's accelerator arguments. KVM only with real hardware
# virtualisation: kvm_pvm (software nested) dies on a stock kernel with emulation failures.
guest_accel() {
  local want=$GUEST_ACCEL
  if [[ $want == auto ]]; then
    want=tcg
    if grep -qwE 'vmx|svm' /proc/cpuinfo && [[ -w /dev/kvm && ! -e /sys/module/kvm_pvm ]]; then
      want=kvm
    fi
  fi
  case $want in
    kvm) printf '%s\n' -accel kvm -cpu host ;;
    tcg) printf '%s\n' -accel tcg,thread=multi -cpu "${GUEST_CPU_MODEL:-qemu64}" ;;
    *) guest_die "GUEST_ACCEL '$GUEST_ACCEL' is not auto, kvm or tcg" ;;
  esac
}

# guest_check_memory: refuse to start a guest the host cannot hold
# guest_check_host: die naming the package of the first piece the guest lacks. The guest boots
# over this machine's root: its PID 1 is this machine's systemd (without it the guest kernel
# panics: "Attempted to kill init").
guest_check_host() {
  local path pkg
  command -v qemu-system-x86_64 >/dev/null || guest_die "'qemu-system-x86_64' not found (package qemu-system-x86)"
  while read -r path pkg; do
    [[ -x $path ]] || guest_die "'$path' not found (package $pkg): the guest boots over this machine's root"
  done <<'EOF'
/lib/systemd/systemd systemd
/bin/busybox busybox-static
/sbin/depmod kmod
/bin/mountpoint util-linux
/bin/bash bash
EOF
}

guest_check_memory() {
  local avail_kb
  avail_kb=$(awk '/^MemAvailable:/ { print $2 }' /proc/meminfo)
  if ((avail_kb / 1024 < GUEST_MEM_MB + 512)); then
    guest_die "only $((avail_kb / 1024)) MiB available; the guest needs GUEST_MEM_MB=$GUEST_MEM_MB + 512"
  fi
}

# guest_qemu_path VALUE: escape a value for a qemu -fsdev option (commas doubled)
guest_qemu_path() { printf '%s\n' "${1//,/,,}"; }

# guest_write_plan DIR WORKDIR ENV... -- COMMAND...: env.sh for guest-run.sh
guest_write_plan() {
  local plan=$1 workdir=$2 kv
  shift 2
  {
    printf 'GUEST_WORKDIR=%q\n' "$workdir"
    while (($# > 0)) && [[ $1 != -- ]]; do
      kv=$1
      printf 'export %s=%q\n' "${kv%%=*}" "${kv#*=}"
      shift
    done
    shift
    printf 'GUEST_CMD=('
    printf ' %q' "$@"
    printf ' )\n'
  } >"$plan/env.sh"
}

main() {
  local opt workdir='' results='' envs=() kdir kernel initrd t0 t1 status rc
  local -a accel qemu
  while getopts hcC:e:r:t: opt; do
    case $opt in
      h)
        guest_usage
        exit 0
        ;;
      c)
        guest_check_host
        exit 0
        ;;
      C) workdir=$OPTARG ;;
      e)
        [[ $OPTARG =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || {
          printf 'run-guest: -e wants NAME=VALUE, got %s\n' "'$OPTARG'" >&2
          exit 2
        }
        envs+=("$OPTARG")
        ;;
      r) results=$OPTARG ;;
      t) GUEST_TIMEOUT=$OPTARG ;;
      *)
        guest_usage >&2
        exit 2
        ;;
    esac
  done
  shift $((OPTIND - 1))
  if [[ -z $results ]] || (($# == 0)); then
    guest_usage >&2
    exit 2
  fi
  [[ $GUEST_TIMEOUT =~ ^[1-9][0-9]*$ ]] || {
    printf 'run-guest: timeout %s is not a number of seconds\n' "'$GUEST_TIMEOUT'" >&2
    exit 2
  }
  [[ $GUEST_CACHE =~ ^/[A-Za-z0-9._/-]+$ ]] || guest_die "GUEST_CACHE '$GUEST_CACHE' must be an absolute path without spaces or odd characters"
  guest_check_host
  local image=${GUEST_IMAGE:-} stage2=$GUEST_DIR/guest-stage2.sh plan_arg
  local -a rootdev
  if [[ -n $image ]]; then
    [[ -f $image ]] || guest_die "GUEST_IMAGE '$image' is not a file"
    workdir=${workdir:-/opt/samba-perf-test}
    stage2=/opt/samba-perf-test/tests/guest/guest-stage2.sh
  else
    workdir=$(cd "${workdir:-$PWD}" && pwd) || guest_die "cannot enter '$workdir'"
  fi
  mkdir -p "$results"
  results=$(cd "$results" && pwd)
  rm -f "$results"/guest-{exit-status,console.log,command.log,uptime,timing.json}

  guest_check_memory
  kdir=$("$GUEST_DIR/prepare-guest.sh" -q) || guest_die "cannot prepare the guest kernel (run tests/guest/prepare-guest.sh)"
  kernel=$kdir/vmlinux
  [[ -f $kernel ]] || kernel=$kdir/vmlinuz
  initrd=$(find "$kdir" -maxdepth 1 -name 'initrd-*.img' | head -n 1)
  [[ -f $kernel && -f $initrd ]] || guest_die "cache '$kdir' has no kernel or initramfs"

  mkdir -p "$GUEST_CACHE/runs"
  GUEST_PLAN=$(mktemp -d "$GUEST_CACHE/runs/plan.XXXXXX")
  chmod 0755 "$GUEST_PLAN"
  guest_write_plan "$GUEST_PLAN" "$workdir" "${envs[@]}" -- "$@"
  # shellcheck disable=SC2054 # commas belong to qemu's option syntax
  if [[ -n $image ]]; then
    plan_arg="guest.plan=/guest-plan guest.root=vda"
    rootdev=(-drive "file=$(guest_qemu_path "$image"),if=virtio,format=raw,snapshot=on"
    -fsdev "local,id=plan,path=$GUEST_PLAN,security_model=none,readonly=on"
    -device virtio-9p-pci,fsdev=plan,mount_tag=plan
    -fsdev "local,id=modules,path=$kdir/root/lib/modules/$(cat "$kdir/kver"),security_model=none,readonly=on"
    -device virtio-9p-pci,fsdev=modules,mount_tag=modules)
  else
    plan_arg="guest.plan=$GUEST_PLAN"
    rootdev=(-fsdev "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap"
      -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot)
  fi

  mapfile -t accel < <(guest_accel)
  # shellcheck disable=SC2054 # commas belong to qemu's option syntax
  qemu=(qemu-system-x86_64 -name samba-perf-guest
    "${accel[@]}" -smp "$GUEST_CPUS" -m "$GUEST_MEM_MB"
    -nodefaults -no-reboot -display none -serial stdio -nic none
    -kernel "$kernel" -initrd "$initrd"
    -append "console=ttyS0 loglevel=4 panic=-1 rdinit=/init guest.stage2=$stage2 $plan_arg guest.modules=$kdir/root/lib/modules/$(cat "$kdir/kver") systemd.unified_cgroup_hierarchy=1 systemd.show_status=1 fstab=0 systemd.firstboot=0 $GUEST_KERNEL_ARGS"
    "${rootdev[@]}"
    -fsdev "local,id=results,path=$(guest_qemu_path "$results"),security_model=none,multidevs=remap"
    -device virtio-9p-pci,fsdev=results,mount_tag=results
    -device virtio-rng-pci)
  [[ $GUEST_DIR == *' '* ]] && guest_die "the kit path '$GUEST_DIR' has a space: the kernel command line cannot carry it"

  guest_log "booting ($(
    IFS=' '
    echo "${accel[*]}"
  ), ${GUEST_CPUS} vCPU, ${GUEST_MEM_MB} MiB, timeout ${GUEST_TIMEOUT} s): $*"
  t0=$(date +%s.%N)
  rc=0
  if [[ ${GUEST_VERBOSE:-0} == 1 ]]; then
    timeout -k 10 "$GUEST_TIMEOUT" "${qemu[@]}" </dev/null 2>&1 | tee "$results/guest-console.log" >&2 || rc=${PIPESTATUS[0]}
  else
    timeout -k 10 "$GUEST_TIMEOUT" "${qemu[@]}" </dev/null >"$results/guest-console.log" 2>&1 || rc=$?
  fi
  t1=$(date +%s.%N)

  status=
  [[ -f $results/guest-exit-status ]] && status=$(tr -dc 0-9 <"$results/guest-exit-status")
  local boot_s=null cmd_s=null up
  if [[ -f $results/guest-uptime ]]; then
    read -r -a up <"$results/guest-uptime"
    boot_s=${up[0]}
    cmd_s=$(awk -v a="${up[0]}" -v b="${up[1]}" 'BEGIN { printf "%.2f", b - a }')
  fi
  printf '{"boot_s":%s,"command_s":%s,"wall_s":%s,"qemu_status":%s,"exit_status":%s}\n' \
    "$boot_s" "$cmd_s" "$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')" \
    "$rc" "${status:-null}" >"$results/guest-timing.json"

  if ((rc == 124 || rc == 137)); then
    guest_log "error: the guest hit the ${GUEST_TIMEOUT} s timeout; last console lines:"
    tail -n 40 "$results/guest-console.log" >&2
    return 124
  fi
  if [[ -z $status ]]; then
    guest_log "error: the guest gave no exit status (qemu exited $rc); last console lines:"
    tail -n 40 "$results/guest-console.log" >&2
    return 125
  fi
  if ((status != 0)); then
    guest_log "command failed with status $status; last console lines:"
    tail -n 40 "$results/guest-console.log" >&2
  fi
  guest_log "done in $(jq -r .wall_s "$results/guest-timing.json" 2>/dev/null) s (command started ${boot_s} s after boot), status $status"
  return "$status"
}

if [[ ${BASH_SOURCE[0]} == "$0" ]]; then main "$@"; fi
