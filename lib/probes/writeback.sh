# lib/probes/writeback.sh: the probe 'writeback' (docs/CONTRACTS.md, section 5). Before each
# measurement it writes out what the measurements before it left dirty (syncfs of SHARE_DIR's
# file system, or every file system when there is no SHARE_DIR: random 4 KiB writes through smbd stay in the page cache for up to 30 s) and waits,
# bounded, until the machine's Dirty + Writeback is small, so the kernel does not write a
# previous metric's data in this one's window. It is the first probe of the list: the flush
# and the wait come before every other probe's window. Records Dirty and Writeback (kB, from
# /proc/meminfo, the whole machine) as found, at the start of the measurement and after it.
# Sourced; functions only.

WRITEBACK_SMALL_KB=16384 # Dirty + Writeback that counts as written out
WRITEBACK_WAIT_S=5       # the most the flush and the wait take together (others' writes count too)

# probe_writeback_meminfo DVAR WVAR: set DVAR and WVAR to Dirty and Writeback (kB) now; 1 when
# /proc/meminfo has not both. Builtins only: no process substitution, which in bash 5.2 can
# swallow a signal that arrives meanwhile (a HUP or Ctrl-C of the run would be lost).
probe_writeback_meminfo() {
  local k v rest n=0
  while read -r k v rest; do
    case $k in
      Dirty:) printf -v "$1" '%s' "$v" && n=$((n + 1)) ;;
      Writeback:) printf -v "$2" '%s' "$v" && n=$((n + 1)) ;;
    esac
  done </proc/meminfo 2>/dev/null
  ((n == 2))
}

# probe_writeback_us: the monotonic-enough wall clock in microseconds
probe_writeback_us() { echo "${EPOCHREALTIME//[!0-9]/}"; }

probe_writeback_before() { # <name> <work>
  local work=$2 d0 w0 d w t0 end flushed=true
  if ! probe_writeback_meminfo d0 w0; then
    echo '{"available":false,"reason":"/proc/meminfo has no Dirty and Writeback"}' >"$work/result.json"
    return 0
  fi
  t0=$(probe_writeback_us)
  end=$((t0 + WRITEBACK_WAIT_S * 1000000))
  if [[ -d ${SHARE_DIR:-} ]]; then
    timeout "$WRITEBACK_WAIT_S" sync -f "$SHARE_DIR" 2>/dev/null || flushed=false
  else
    timeout "$WRITEBACK_WAIT_S" sync 2>/dev/null || flushed=false
  fi
  while probe_writeback_meminfo d w && ((d + w > WRITEBACK_SMALL_KB)) &&
    (($(probe_writeback_us) < end)); do
    sleep 0.1
  done
  jq -cn --argjson d0 "$d0" --argjson w0 "$w0" --argjson d "${d:-null}" --argjson w "${w:-null}" \
    --argjson flushed "$flushed" --argjson small "$WRITEBACK_SMALL_KB" \
    --argjson waited "$((($(probe_writeback_us) - t0) / 1000))" '
    {available: true, found: {dirty_kb: $d0, writeback_kb: $w0}, flushed: $flushed,
     waited_s: ($waited / 1000), settled: ($d != null and $d + $w <= $small), small_kb: $small,
     dirty_kb: $d, writeback_kb: $w}' >"$work/before.json"
}

probe_writeback_after() { # <name> <work>
  local work=$2 d w
  [[ -s $work/before.json ]] || return 0
  probe_writeback_meminfo d w || d=null w=null
  jq -c --argjson d "$d" --argjson w "$w" '. + {after: {dirty_kb: $d, writeback_kb: $w}}' \
    "$work/before.json" >"$work/result.json"
}
