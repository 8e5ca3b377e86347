#!/usr/bin/env bash
# Usage: minbase.sh [-h]
# Summary: build once and cache a minimal Debian root (debootstrap minbase + git, make, ca-certificates)
#
# MINIMAL_SUITE names the Debian release: bookworm (Debian 12, the default) or trixie
# (Debian 13). Prints the path of the cached tar on stdout: MINIMAL_CACHE/minbase-SUITE.tar
# (MINIMAL_CACHE defaults to /var/cache/samba-perf-test). When it is not there yet, builds it
# with 'debootstrap --variant=minbase --include=git,make,ca-certificates SUITE' from the
# Debian mirror this machine's apt uses (read from /etc/apt/sources.list*: the one that
# serves SUITE, else the one that serves this machine's own release), then reuses it.
# Delete the tar to build it anew.
#
# Exit status: 0 the tar is there; 3 it cannot be had on this machine (no debootstrap, no
# Debian mirror in the apt sources, debootstrap failed), the reason on stderr; 1 another
# error; 2 usage.
set -euo pipefail

MINIMAL_CACHE=${MINIMAL_CACHE:-/var/cache/samba-perf-test}
MINIMAL_SUITE=${MINIMAL_SUITE:-bookworm}
MINIMAL_SOURCES=${MINIMAL_SOURCES:-/etc/apt}

mb_log() { printf 'minbase: %s\n' "$*" >&2; }
mb_cannot() {
  printf 'minbase: cannot: %s\n' "$*" >&2
  exit 3
}

# mb_mirror SUITE: print the first http(s) URI that serves SUITE main in the apt sources,
# one-line (*.list) or deb822 (*.sources) format; 1 when none does.
mb_mirror() {
  local suite=$1
  local -a files=()
  local f
  for f in "$MINIMAL_SOURCES/sources.list" "$MINIMAL_SOURCES"/sources.list.d/*.list \
    "$MINIMAL_SOURCES"/sources.list.d/*.sources; do
    [[ -f $f ]] && files+=("$f")
  done
  ((${#files[@]})) || return 1
  awk -v suite="$suite" '
    function has(list, word,   n, i, a) { n = split(list, a, /[ \t]+/); for (i = 1; i <= n; i++) if (a[i] == word) return 1; return 0 }
    function stanza() {
      if (has(types, "deb") && has(suites, suite) && has(comps, "main") && enabled != "no") {
        n = split(uris, u, /[ \t]+/)
        for (i = 1; i <= n; i++) if (u[i] ~ /^https?:\/\//) { print u[i]; found = 1; exit }
      }
      types = uris = suites = comps = ""; enabled = ""
    }
    FNR == 1 && NR > 1 && deb822 { stanza() }
    FNR == 1 { deb822 = (FILENAME ~ /\.sources$/) }
    /^[ \t]*#/ { next }
    !deb822 {
      if ($1 != "deb") next
      i = 2
      if ($2 ~ /^\[/) { while (i <= NF && $i !~ /\]$/) i++; i++ }
      if ($i ~ /^https?:\/\// && $(i + 1) == suite) for (j = i + 2; j <= NF; j++) if ($j == "main") { print $i; found = 1; exit }
      next
    }
    /^[ \t]*$/ { stanza(); next }
    { key = tolower($1); sub(/^[^:]*:[ \t]*/, "") }
    key == "types:" { types = $0 }
    key == "uris:" { uris = $0 }
    key == "suites:" { suites = $0 }
    key == "components:" { comps = $0 }
    key == "enabled:" { enabled = tolower($0) }
    END { if (!found && deb822) stanza(); exit !found }
  ' "${files[@]}"
}

# mb_host_suite: print this machine's Debian release name (VERSION_CODENAME), '' when unknown.
mb_host_suite() {
  sed -n 's/^VERSION_CODENAME=//p' "${MINIMAL_OS_RELEASE:-/etc/os-release}" 2>/dev/null | tr -d '"'
}

main() {
  local tar dir mirror t0 rc=0
  case ${1:-} in
    -h | --help)
      sed -n '2,/^[^#]/{/^#/!q;s/^# \{0,1\}//;p}' "$0"
      return 0
      ;;
    '') ;;
    *)
      printf 'minbase: error: unknown argument %s\n' "'$1'" >&2
      return 2
      ;;
  esac
  if [[ ! $MINIMAL_SUITE =~ ^[a-z]+$ ]]; then
    printf 'minbase: error: MINIMAL_SUITE %s is not a Debian release name\n' "'$MINIMAL_SUITE'" >&2
    return 1
  fi
  tar=$MINIMAL_CACHE/minbase-$MINIMAL_SUITE.tar
  if [[ -s $tar ]]; then
    echo "$tar"
    return 0
  fi
  [[ $(id -u) -eq 0 ]] || mb_cannot "debootstrap needs root"
  command -v debootstrap >/dev/null || mb_cannot "debootstrap is not installed (package debootstrap)"
  # a mirror that serves this machine's own release serves the other releases too
  mirror=$(mb_mirror "$MINIMAL_SUITE") || mirror=$(mb_mirror "$(mb_host_suite)") ||
    mb_cannot "no Debian mirror for '$MINIMAL_SUITE main' in $MINIMAL_SOURCES/sources.list*"
  mkdir -p "$MINIMAL_CACHE"
  exec {lock}>"$MINIMAL_CACHE/minbase-$MINIMAL_SUITE.lock"
  flock -w 900 "$lock" || mb_cannot "another build holds $MINIMAL_CACHE/minbase-$MINIMAL_SUITE.lock"
  if [[ -s $tar ]]; then # built while we waited
    echo "$tar"
    return 0
  fi
  dir=$(mktemp -d "$MINIMAL_CACHE/build.XXXXXX")
  # shellcheck disable=SC2064 # the folder is known now
  trap "rm -rf --one-file-system '$dir' '$tar.part'" EXIT
  mb_log "debootstrap --variant=minbase $MINIMAL_SUITE from $mirror (once; cached in $tar)"
  t0=$SECONDS
  timeout -k 30 1800 debootstrap --variant=minbase --include=git,make,ca-certificates \
    "$MINIMAL_SUITE" "$dir/root" "$mirror" >"$dir/debootstrap.log" 2>&1 || rc=$?
  if ((rc != 0)); then
    tail -n 5 "$dir/debootstrap.log" >&2
    mb_cannot "debootstrap failed (exit $rc) with the mirror $mirror"
  fi
  tar -C "$dir/root" --numeric-owner -cpf "$tar.part" .
  mv "$tar.part" "$tar"
  mb_log "built in $((SECONDS - t0)) s: $tar ($(du -h "$tar" | cut -f1))"
  echo "$tar"
}

main "$@"
