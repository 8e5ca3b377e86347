# lib/sambaparams.sh: Samba parameters under test, from the settings SAMBA_GLOBAL_PARAMS (into
# [global]) and SAMBA_SHARE_PARAMS (into the test share). Sourced; defines functions only.
# Needs lib/common.sh; uses testparm when it is installed.
#
# A setting holds smb.conf lines, written as they are in smb.conf, separated by ';' or new
# lines:   SAMBA_GLOBAL_PARAMS="aio read size = 1; socket options = TCP_NODELAY"
# or the absolute path of a file with one 'name = value' a line ('#' and ';' comments, no
# [sections]):   SAMBA_SHARE_PARAMS=/root/tuning/share.params
# A value cannot hold ';' in the first form (use the file form then).
#
# sambaparams_check refuses, naming the setting and the parameter, before anything changes:
# a line that is not 'name = value', a name given twice, a parameter the kit manages (its
# paths, port, addresses, identity, the configuration itself, and the four Samba settings the
# kit has keys for), and whatever testparm rejects or silently replaces: an unknown name, a bad
# yes/no, size, octal or enumerated value, a word where a number belongs, a [global]-only
# parameter in the share section. Names are matched the way Samba matches them (case and
# spaces ignored), synonyms included, as testparm resolves them.

# sambaparams_managed: the parameters the kit manages, one 'name|why' a line, names in
# lower case without spaces (Samba ignores both in parameter names).
sambaparams_managed() {
  local p
  for p in path directory lockdirectory lockdir statedirectory cachedirectory piddirectory \
    privatedir privatedirectory ncalrpcdir binddnsdir binddnsdirectory logfile smbpasswdfile \
    rootdirectory root rootdir usersharepath; do
    printf '%s|%s\n' "$p" "a path of the kit: it keeps its files apart from the host's Samba (set them with SHARE_DIR, STATE_DIR, LOG_DIR)"
  done
  for p in smbports interfaces bindinterfacesonly disablenetbios; do
    printf '%s|%s\n' "$p" "the kit's test smbd listens only on SERVER_ADDR:TEST_PORT"
  done
  printf '%s\n' "netbiosaliases|the kit's test smbd takes CLIENT_ADDR, the name its clients use, as its own"
  for p in passdbbackend serverrole security netbiosname workgroup validusers maptoguest \
    guestok public guestonly onlyguest; do
    printf '%s|%s\n' "$p" "the kit's login and its test account depend on it"
  done
  for p in include configfile configbackend registryshares; do
    printf '%s|%s\n' "$p" "the kit's smb.conf must be the whole configuration of the test smbd"
  done
  for p in readonly writeable writable writeok; do
    printf '%s|%s\n' "$p" "the tests write to the share"
  done
  printf '%s\n' "serversigning|set it with the kit's setting SIGNING" \
    "serversmbencrypt|set it with the kit's setting ENCRYPTION" \
    "smbencrypt|set it with the kit's setting ENCRYPTION" \
    "strictsync|set it with the kit's setting STRICT_SYNC" \
    "usesendfile|set it with the kit's setting USE_SENDFILE" \
    "smbdprofilinglevel|set it with the kit's setting SMBD_PROFILING"
}

# sambaparams_norm NAME: NAME the way Samba compares parameter names: lower case, no spaces.
sambaparams_norm() {
  local n=${1,,}
  printf '%s\n' "${n//[[:space:]]/}"
}

# sambaparams_why_managed NAME: print why the kit manages NAME; 1 when it does not.
sambaparams_why_managed() {
  local n line
  n=$(sambaparams_norm "$1")
  while IFS= read -r line; do
    if [[ ${line%%|*} == "$n" ]]; then
      printf '%s\n' "${line#*|}"
      return 0
    fi
  done < <(sambaparams_managed)
  return 1
}

# sambaparams_items KEY: print the entries of setting KEY, one a line (the file form read as
# data, comments and empty entries dropped, each trimmed). Dies when the file cannot be read.
sambaparams_items() {
  local key=$1 text=${!1:-} item
  if [[ $text != *=* && $text =~ ^[[:space:]]*(/[^[:space:]]*)[[:space:]]*$ ]]; then
    [[ -f ${BASH_REMATCH[1]} && -r ${BASH_REMATCH[1]} ]] ||
      die "setting '$key' names the file '${BASH_REMATCH[1]}', which cannot be read"
    text=$(grep -v '^[[:space:]]*[#;]' "${BASH_REMATCH[1]}")
  else
    text=${text//;/$'\n'}
  fi
  while IFS= read -r item || [[ -n $item ]]; do
    item=${item#"${item%%[![:space:]]*}"}
    item=${item%"${item##*[![:space:]]}"}
    [[ -z $item ]] || printf '%s\n' "$item"
  done <<<"$text"
}

# sambaparams_pairs KEY: print 'name<TAB>value' for each entry of KEY, names with single
# spaces; dies naming KEY and the entry when one is not 'name = value' or a name repeats.
sambaparams_pairs() {
  local key=$1 items item name value n
  local -a words
  local -A seen=()
  items=$(sambaparams_items "$key") || exit 1
  [[ -n $items ]] || return 0
  while IFS= read -r item; do
    [[ $item != \[* ]] || die "setting '$key' has '$item': no [sections]; SAMBA_GLOBAL_PARAMS goes into [global], SAMBA_SHARE_PARAMS into the test share"
    [[ $item == *=* ]] || die "setting '$key' has bad parameter '$item': not 'name = value'"
    name=${item%%=*}
    value=${item#*=}
    read -r -a words <<<"$name"
    name="${words[*]}"
    value=${value#"${value%%[![:space:]]*}"}
    value=${value%"${value##*[![:space:]]}"}
    [[ $name =~ ^[A-Za-z0-9][A-Za-z0-9\ :*_.-]*$ ]] ||
      die "setting '$key' has bad parameter '$item': not a Samba parameter name"
    [[ $value != *[[:cntrl:]]* ]] || die "setting '$key' has bad parameter '$item': control characters in the value"
    n=$(sambaparams_norm "$name")
    [[ -z ${seen[$n]:-} ]] || die "setting '$key' has the parameter '$name' twice"
    seen[$n]=1
    printf '%s\t%s\n' "$name" "$value"
  done <<<"$items"
}

# sambaparams_probe DIR SECTION [NAME VALUE]: write DIR/probe.conf, a minimal smb.conf with
# NAME = VALUE in [global] (SECTION global) or in a share [kitprobe] (SECTION share), run
# 'testparm -s' on it; stdout to DIR/out, stderr to DIR/err; return testparm's status.
sambaparams_probe() {
  local dir=$1 section=$2
  {
    printf '[global]\n'
    [[ $section == global && $# -ge 4 ]] && printf '\t%s = %s\n' "$3" "$4"
    if [[ $section == share ]]; then
      printf '[kitprobe]\n\tpath = %s\n' "$dir"
      [[ $# -ge 4 ]] && printf '\t%s = %s\n' "$3" "$4"
    fi
  } >"$dir/probe.conf"
  testparm -s --suppress-prompt "$dir/probe.conf" >"$dir/out" 2>"$dir/err"
}

# sambaparams_testparm KEY SECTION NAME VALUE DIR: die naming KEY and the parameter when
# testparm rejects NAME = VALUE, silently replaces VALUE, or resolves NAME to a parameter the
# kit manages. DIR holds the probe files and base.out (the probe's output without NAME).
sambaparams_testparm() {
  local key=$1 section=$2 name=$3 value=$4 dir=$5 what="setting '$1' has bad parameter '$3 = $4'"
  local err canon why effective
  local -a sect=()
  sambaparams_probe "$dir" "$section" "$name" "$value" || true
  err=$(<"$dir/err")
  case $err in
    *'Unknown parameter encountered'*) die "$what: unknown Samba parameter" ;;
    *'value is not boolean'*) die "$what: needs yes or no" ;;
    *'not a valid size specifier'*) die "$what: needs a size (a number, or with K, M or G)" ;;
    *'Invalid octal number'*) die "$what: needs an octal number such as 0644" ;;
    *'Ignoring invalid value'*) die "$what: testparm says: $(grep -m1 'Ignoring invalid value' <<<"$err" | sed 's/^WARNING: //')" ;;
    *'Global parameter'*'found in service section'*) die "$what: a [global] parameter: put it in SAMBA_GLOBAL_PARAMS" ;;
    *'Error loading services'*) die "$what: testparm rejects it: $(grep -v '^Load smb config' <<<"$err" | head -n 1)" ;;
  esac
  # what the line set, by testparm's own (canonical) names: catches synonyms of managed ones
  while IFS= read -r canon; do
    canon=${canon%% = *}
    canon=${canon#"${canon%%[![:space:]]*}"}
    if why=$(sambaparams_why_managed "$canon"); then
      die "$what: it sets '$canon', which the kit manages: $why"
    fi
  done < <(grep -vxF -f "$dir/base.out" "$dir/out" | grep '=' || true)
  # testparm reads a word where a number belongs as 0 without a message
  [[ $section == share ]] && sect=(--section-name=kitprobe)
  effective=$(testparm -s --suppress-prompt --parameter-name="$name" "${sect[@]}" "$dir/probe.conf" 2>/dev/null) || true
  if [[ $effective =~ ^-?[0-9]+$ && ! $value =~ ^[-+]?[0-9] ]]; then
    die "$what: needs a number (Samba would read it as $effective)"
  fi
}

# sambaparams_check KEY SECTION: check setting KEY (SECTION global or share); die naming the
# setting and the parameter at the first bad one. Without testparm only the form and the
# managed names are checked (smbconf_apply runs testparm on the whole file later).
sambaparams_check() {
  local key=$1 section=$2 text pair name value why dir=''
  local -a pairs=()
  text=$(sambaparams_pairs "$key") || exit 1
  [[ -n $text ]] || return 0
  mapfile -t pairs <<<"$text"
  if common_have testparm; then
    dir=$(mktemp -d) || die "cannot make a temporary folder"
    sambaparams_probe "$dir" "$section" || true
    cp "$dir/out" "$dir/base.out"
  fi
  for pair in "${pairs[@]}"; do
    name=${pair%%$'\t'*}
    value=${pair#*$'\t'}
    if why=$(sambaparams_why_managed "$name"); then
      [[ -z $dir ]] || rm -rf -- "$dir"
      die "setting '$key' has bad parameter '$name = $value': the kit manages '$name': $why"
    fi
    if [[ -n $dir ]]; then
      (sambaparams_testparm "$key" "$section" "$name" "$value" "$dir") || {
        rm -rf -- "$dir"
        exit 1
      }
    fi
  done
  [[ -z $dir ]] || rm -rf -- "$dir"
}

# sambaparams_validate: check SAMBA_GLOBAL_PARAMS and SAMBA_SHARE_PARAMS (see sambaparams_check).
sambaparams_validate() {
  sambaparams_check SAMBA_GLOBAL_PARAMS global
  sambaparams_check SAMBA_SHARE_PARAMS share
}

# sambaparams_lines KEY: the smb.conf lines of setting KEY, indented for the template, after
# a comment that names the setting; nothing when KEY is empty. Call after sambaparams_check.
sambaparams_lines() {
  local key=$1 name value first=yes
  while IFS=$'\t' read -r name value; do
    if [[ $first == yes ]]; then
      printf '  # %s (settings.conf): parameters under test\n' "$key"
      first=no
    fi
    printf '  %s = %s\n' "$name" "$value"
  done < <(sambaparams_pairs "$key")
}
