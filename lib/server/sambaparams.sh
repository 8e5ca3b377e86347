# lib/server/sambaparams.sh: Samba parameters under test, from the settings SAMBA_GLOBAL_PARAMS (into
# [global]) and SAMBA_SHARE_PARAMS (into the test share): reading, parsing, checking each line
# (with testparm) and the smb.conf lines. Sourced; defines functions only. Needs lib/common.sh
# and lib/server/sambaparams-policy.sh (which parameters the kit takes); uses testparm when installed.
#
# A setting holds smb.conf lines, written as they are in smb.conf, separated by ';' or new
# lines:   SAMBA_GLOBAL_PARAMS="aio read size = 1; socket options = TCP_NODELAY"
# or the absolute path of a file with one 'name = value' a line ('#' and ';' comments, no
# [sections]):   SAMBA_SHARE_PARAMS=/root/tuning/share.params
# A value cannot hold ';'. The file is read once, by sambaparams_validate, which puts its lines
# in the setting: it must be a regular file owned by the kit's user (root) and writable by no one
# else, so that what was checked is what smbd runs with.
#
# sambaparams_check refuses, naming the setting and the parameter, before anything changes: a
# line that is not 'name = value', a name given twice, a parameter the kit manages (its paths,
# port, addresses, identity, the configuration itself, and the four Samba settings the kit has
# keys for), a parameter not on the kit's allow-list (sambaparams_allowed in
# lib/server/sambaparams-policy.sh: smbd runs as root, and many parameters run a command, load code,
# change who smbd acts as or point it at a file of the host; the list holds the tuning ones that
# do none of that), and whatever testparm rejects or silently replaces: an unknown name, a bad
# yes/no, size, octal or enumerated value, a word where a number belongs, a [global]-only
# parameter in the share section. Names are matched the way Samba matches them (case and spaces
# ignored), synonyms included, as testparm resolves them.

# sambaparams_read KEY: when setting KEY names a file (an absolute path, no '='), read it once
# and put its entries in KEY instead ('#' and ';' comment lines dropped, joined by '; ': one
# line, as the state's KIT_SAMBA_PARAMS and the sweep's base keep it).
# Dies naming KEY and the file when it cannot be read, is not a regular file, is owned by
# another user than the kit's, is writable by group or others, or has a ';' in an entry.
sambaparams_read() {
  local key=$1 file fd st text
  [[ ${!key:-} != *=* && ${!key:-} =~ ^[[:space:]]*(/[^[:space:]]*)[[:space:]]*$ ]] || return 0
  file=${BASH_REMATCH[1]}
  [[ -e $file && -r $file ]] || die "setting '$key' names the file '$file', which cannot be read"
  exec {fd}<"$file" || die "setting '$key' names the file '$file', which cannot be read"
  # the checks and the read are on the one file opened, whatever its name points at later
  st=$(stat -L -c '%u %a %F' "/dev/fd/$fd") || st=''
  read -r -a st <<<"$st"
  if [[ ${st[2]:-}${st[3]:-} != regularfile ]]; then
    exec {fd}<&-
    die "setting '$key' names '$file', which is not a regular file"
  fi
  if [[ ${st[0]} != "$(id -u)" ]]; then
    exec {fd}<&-
    die "setting '$key' names the file '$file', which is owned by uid ${st[0]}, not by the kit's user: another user could change what smbd runs with"
  fi
  if ((8#${st[1]} & 8#022)); then
    exec {fd}<&-
    die "setting '$key' names the file '$file', which group or others can write (mode ${st[1]}): make it 'chmod go-w'"
  fi
  text=$(grep -v '^[[:space:]]*[#;]' <&"$fd") || true
  exec {fd}<&-
  [[ $text != *\;* ]] || die "setting '$key' names the file '$file', which has ';' in '$(grep -m1 ';' <<<"$text")': a value cannot hold ';'"
  printf -v "$key" '%s' "${text//$'\n'/; }"
}

# sambaparams_items KEY: print the entries of setting KEY, one a line (entries separated by ';'
# or new lines, empty ones dropped, each trimmed). A file named in KEY is read by
# sambaparams_read first, never here.
sambaparams_items() {
  local text=${!1:-} item
  text=${text//;/$'\n'}
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
    if why=$(sambaparams_why_refused "$canon" "$value"); then
      die "$what: it sets '$canon': $why"
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
# setting and the parameter at the first bad one: every name first, then testparm on each line.
# Without testparm only the form and the names are checked (smbconf_apply runs testparm on the
# whole file later).
sambaparams_check() {
  local key=$1 section=$2 text pair name value why dir
  local -a pairs=()
  text=$(sambaparams_pairs "$key") || exit 1
  [[ -n $text ]] || return 0
  mapfile -t pairs <<<"$text"
  # by name first: a refused parameter never reaches testparm
  for pair in "${pairs[@]}"; do
    name=${pair%%$'\t'*}
    value=${pair#*$'\t'}
    if why=$(sambaparams_why_managed "$name"); then
      die "setting '$key' has bad parameter '$name = $value': the kit manages '$name': $why"
    fi
    if why=$(sambaparams_why_refused "$name" "$value"); then
      # a harmless name not on the list may be a misspelling: testparm says so first
      if [[ $why == 'not on the kit'* ]] && common_have testparm; then
        dir=$(mktemp -d) || die "cannot make a temporary folder"
        sambaparams_probe "$dir" "$section" "$name" "$value" || true
        if grep -q 'Unknown parameter encountered' "$dir/err"; then why='unknown Samba parameter'; fi
        rm -rf -- "$dir"
      fi
      die "setting '$key' has bad parameter '$name = $value': $why"
    fi
  done
  common_have testparm || return 0
  dir=$(mktemp -d) || die "cannot make a temporary folder"
  sambaparams_probe "$dir" "$section" || true
  cp "$dir/out" "$dir/base.out"
  for pair in "${pairs[@]}"; do
    (sambaparams_testparm "$key" "$section" "${pair%%$'\t'*}" "${pair#*$'\t'}" "$dir") || {
      rm -rf -- "$dir"
      exit 1
    }
  done
  rm -rf -- "$dir"
}

# sambaparams_validate: read the files SAMBA_GLOBAL_PARAMS and SAMBA_SHARE_PARAMS name (once, see
# sambaparams_read), then check both settings (see sambaparams_check).
sambaparams_validate() {
  sambaparams_read SAMBA_GLOBAL_PARAMS
  sambaparams_read SAMBA_SHARE_PARAMS
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
