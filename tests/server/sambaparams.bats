#!/usr/bin/env bats
# shellcheck disable=SC2154,SC2016,SC2030,SC2031 # $stderr is set by 'run --separate-stderr'; the bash -c scripts expand their own $1; each test exports its own settings
# tests/server/sambaparams.bats: the Samba parameters under test (lib/server/sambaparams*.sh), checked
# with the real testparm: accepted lines, refused names and values, the kit's own parameters.
# Starts no server (no lock needed).

bats_require_minimum_version 1.5.0

setup() {
  load '../test_helper/common-setup'
  _common_setup
  kit_require_cmd testparm
  unset SAMBA_GLOBAL_PARAMS SAMBA_SHARE_PARAMS
}

# params FUNCTION ARG...: run a lib/server/sambaparams.sh function in a fresh bash.
params() {
  bash -c 'source "$1/lib/common.sh"; common_source_libs "$1" server/sambaparams-policy server/sambaparams; shift; "$@"' \
    params "$KIT_ROOT" "$@"
}

# validated_lines KEY: sambaparams_validate, then sambaparams_lines KEY, in one fresh bash.
validated_lines() {
  bash -c 'source "$1/lib/common.sh"; common_source_libs "$1" server/sambaparams-policy server/sambaparams
    sambaparams_validate && sambaparams_lines "$2"' _ "$KIT_ROOT" "$1"
}

# refused KEY VALUE MESSAGE: setting KEY=VALUE fails the check with exactly MESSAGE, prints
# nothing on stdout and leaves no temporary files.
refused() {
  run --separate-stderr env "$1=$2" bash -c 'source "$1/lib/common.sh"; common_source_libs "$1" server/sambaparams-policy server/sambaparams
    sambaparams_validate' _ "$KIT_ROOT"
  assert_failure 1
  assert_equal "$stderr" "error: $3"
  assert_equal "$output" ""
  run find "$TMPDIR" -mindepth 1 -maxdepth 1 -name 'tmp.*'
  assert_output ''
}

@test "sambaparams: the users' tuning lines pass and become indented smb.conf lines" {
  export SAMBA_GLOBAL_PARAMS='aio read size = 1; socket options = SO_RCVBUF=131072 SO_SNDBUF=131072 TCP_NODELAY
    min receivefile size=16384 ;smb2 leases = no'
  export SAMBA_SHARE_PARAMS='aio write size = 16384'
  run --separate-stderr params sambaparams_validate
  assert_success
  assert_equal "$stderr" ""
  run params sambaparams_lines SAMBA_GLOBAL_PARAMS
  assert_output $'  # SAMBA_GLOBAL_PARAMS (settings.conf): parameters under test\n  aio read size = 1\n  socket options = SO_RCVBUF=131072 SO_SNDBUF=131072 TCP_NODELAY\n  min receivefile size = 16384\n  smb2 leases = no'
  run params sambaparams_lines SAMBA_SHARE_PARAMS
  assert_output $'  # SAMBA_SHARE_PARAMS (settings.conf): parameters under test\n  aio write size = 16384'
}

@test "sambaparams: empty settings check clean and give no lines" {
  export SAMBA_GLOBAL_PARAMS='' SAMBA_SHARE_PARAMS=' ; '
  run --separate-stderr params sambaparams_validate
  assert_success
  run params sambaparams_lines SAMBA_GLOBAL_PARAMS
  assert_output ''
  run params sambaparams_lines SAMBA_SHARE_PARAMS
  assert_output ''
}

@test "sambaparams: a file of parameters is read as data, comments skipped" {
  local f="$BATS_TEST_TMPDIR/my params"
  mkdir -p "$f"
  f=$f/global.params
  printf '# tuning from the 2009 blog\n; another comment\naio read size = 16384\n\n  aio write size = 16384\nx = $(touch %s/pwned)\n' \
    "$BATS_TEST_TMPDIR" >"$f"
  refused SAMBA_GLOBAL_PARAMS "$BATS_TEST_TMPDIR/nofile" \
    "setting 'SAMBA_GLOBAL_PARAMS' names the file '$BATS_TEST_TMPDIR/nofile', which cannot be read"
  f2=$BATS_TEST_TMPDIR/ok.params
  head -n 5 "$f" >"$f2"
  chmod 0644 "$f" "$f2"
  export SAMBA_GLOBAL_PARAMS=$f2
  run --separate-stderr params sambaparams_validate
  assert_success
  run validated_lines SAMBA_GLOBAL_PARAMS
  assert_output $'  # SAMBA_GLOBAL_PARAMS (settings.conf): parameters under test\n  aio read size = 16384\n  aio write size = 16384'
  export SAMBA_GLOBAL_PARAMS=$f
  run --separate-stderr params sambaparams_validate
  assert_failure 1
  assert [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
  printf 'aio read size = 1\n[perftest]\n' >"$f2"
  refused SAMBA_GLOBAL_PARAMS "$f2" \
    "setting 'SAMBA_GLOBAL_PARAMS' has '[perftest]': no [sections]; SAMBA_GLOBAL_PARAMS goes into [global], SAMBA_SHARE_PARAMS into the test share"
}

@test "sambaparams: unknown parameters are refused with the parameter named" {
  refused SAMBA_GLOBAL_PARAMS 'aio read size = 1; aio raed size = 1' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'aio raed size = 1': unknown Samba parameter"
  refused SAMBA_SHARE_PARAMS 'no such thing = yes' \
    "setting 'SAMBA_SHARE_PARAMS' has bad parameter 'no such thing = yes': unknown Samba parameter"
}

@test "sambaparams: bad values are refused: yes/no, size, octal, enumerations, numbers" {
  refused SAMBA_GLOBAL_PARAMS 'smb2 leases = maybe' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'smb2 leases = maybe': needs yes or no"
  refused SAMBA_GLOBAL_PARAMS 'aio read size = 16k bytes' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'aio read size = 16k bytes': needs a size (a number, or with K, M or G)"
  refused SAMBA_SHARE_PARAMS 'create mask = rwx' \
    "setting 'SAMBA_SHARE_PARAMS' has bad parameter 'create mask = rwx': needs an octal number such as 0644"
  refused SAMBA_GLOBAL_PARAMS 'server max protocol = SMB9' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'server max protocol = SMB9': testparm says: Ignoring invalid value 'SMB9' for parameter 'server max protocol'"
  refused SAMBA_GLOBAL_PARAMS 'max connections = lots' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'max connections = lots': needs a number (Samba would read it as 0)"
}

@test "sambaparams: a [global] parameter in the share section is refused" {
  refused SAMBA_SHARE_PARAMS 'smb2 leases = no' \
    "setting 'SAMBA_SHARE_PARAMS' has bad parameter 'smb2 leases = no': a [global] parameter: put it in SAMBA_GLOBAL_PARAMS"
}

@test "sambaparams: the kit's own parameters are refused with the reason, synonyms and spelling included" {
  refused SAMBA_GLOBAL_PARAMS 'smb ports = 445' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'smb ports = 445': the kit manages 'smb ports': the kit's test smbd listens only on SERVER_ADDR:TEST_PORT"
  refused SAMBA_GLOBAL_PARAMS 'LockDir = /tmp' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'LockDir = /tmp': the kit manages 'LockDir': a path of the kit: it keeps its files apart from the host's Samba (set them with SHARE_DIR, STATE_DIR, LOG_DIR)"
  refused SAMBA_SHARE_PARAMS 'directory = /' \
    "setting 'SAMBA_SHARE_PARAMS' has bad parameter 'directory = /': the kit manages 'directory': a path of the kit: it keeps its files apart from the host's Samba (set them with SHARE_DIR, STATE_DIR, LOG_DIR)"
  refused SAMBA_SHARE_PARAMS 'write ok = no' \
    "setting 'SAMBA_SHARE_PARAMS' has bad parameter 'write ok = no': the kit manages 'write ok': the tests write to the share"
  refused SAMBA_GLOBAL_PARAMS 'server signing = mandatory' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'server signing = mandatory': the kit manages 'server signing': set it with the kit's setting SIGNING"
  refused SAMBA_SHARE_PARAMS 'smb encrypt = required' \
    "setting 'SAMBA_SHARE_PARAMS' has bad parameter 'smb encrypt = required': the kit manages 'smb encrypt': set it with the kit's setting ENCRYPTION"
  refused SAMBA_GLOBAL_PARAMS 'include = /etc/samba/smb.conf' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'include = /etc/samba/smb.conf': the kit manages 'include': the kit's smb.conf must be the whole configuration of the test smbd"
  refused SAMBA_GLOBAL_PARAMS 'passdb backend = smbpasswd' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'passdb backend = smbpasswd': the kit manages 'passdb backend': the kit's login and its test account depend on it"
  refused SAMBA_GLOBAL_PARAMS 'netbios aliases = other' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'netbios aliases = other': the kit manages 'netbios aliases': the kit's test smbd takes CLIENT_ADDR, the name its clients use, as its own"
}

@test "sambaparams: testparm's own names catch a synonym of a managed parameter the list lacks" {
  # sambaparams_testparm alone, without the name list: 'lock dir' and 'writable' resolve to
  # 'lock directory' and 'read only' (testparm shows only values that differ from the
  # default: 'writable = no' is the default 'read only = yes', so the name list stays needed)
  run --separate-stderr bash -c 'source "$1/lib/common.sh"; common_source_libs "$1" server/sambaparams-policy server/sambaparams
    d=$(mktemp -d); sambaparams_probe "$d" "$2"; cp "$d/out" "$d/base.out"
    sambaparams_testparm KEY "$2" "$3" "$4" "$d"' _ "$KIT_ROOT" global 'lock dir' /tmp/x
  assert_failure 1
  assert_equal "$stderr" "error: setting 'KEY' has bad parameter 'lock dir = /tmp/x': it sets 'lock directory', which the kit manages: a path of the kit: it keeps its files apart from the host's Samba (set them with SHARE_DIR, STATE_DIR, LOG_DIR)"
  run --separate-stderr bash -c 'source "$1/lib/common.sh"; common_source_libs "$1" server/sambaparams-policy server/sambaparams
    d=$(mktemp -d); sambaparams_probe "$d" "$2"; cp "$d/out" "$d/base.out"
    sambaparams_testparm KEY "$2" "$3" "$4" "$d"' _ "$KIT_ROOT" share writable yes
  assert_failure 1
  assert_equal "$stderr" "error: setting 'KEY' has bad parameter 'writable = yes': it sets 'read only', which the kit manages: the tests write to the share"
}

@test "sambaparams: lines that are not 'name = value', or repeat a name, are refused" {
  refused SAMBA_GLOBAL_PARAMS 'aio read size' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'aio read size': not 'name = value'"
  refused SAMBA_GLOBAL_PARAMS 'aio read size = 1; AIO  Read Size = 2' \
    "setting 'SAMBA_GLOBAL_PARAMS' has the parameter 'AIO Read Size' twice"
  refused SAMBA_GLOBAL_PARAMS '= 1' \
    "setting 'SAMBA_GLOBAL_PARAMS' has bad parameter '= 1': not a Samba parameter name"
}

@test "sambaparams: the lines in the kit's rendered smb.conf pass testparm and take effect" {
  export SAMBA_GLOBAL_PARAMS='aio read size = 1; min receivefile size = 16384; smb2 leases = no'
  export SAMBA_SHARE_PARAMS='aio write size = 16384; strict allocate = yes'
  local conf=$BATS_TEST_TMPDIR/smb.conf d
  export STATE_DIR=$BATS_TEST_TMPDIR/state
  for d in lock state cache pid private; do mkdir -p "$STATE_DIR/$d"; done
  # the kit's template rendered with its defaults: @SAMBA_GLOBAL_PARAMS@ after 'use sendfile',
  # @SAMBA_SHARE_PARAMS@ after 'valid users' (templates/smb.conf.in)
  run bash -c 'source "$1/lib/common.sh"; source "$1/lib/settings.sh"; source "$1/lib/server/smbconf.sh"
    KIT_SETTINGS= settings_load "$1" >/dev/null; smbconf_render "$1"' _ "$KIT_ROOT"
  assert_success
  assert_line '  aio read size = 1'
  assert_line '  strict allocate = yes'
  [[ $output == *'  use sendfile = no'$'\n''  # SAMBA_GLOBAL_PARAMS'* ]] || fail "the global lines are not after 'use sendfile'"
  [[ $output == *'  valid users = '*$'\n''  # SAMBA_SHARE_PARAMS'* ]] || fail "the share lines are not after 'valid users'"
  printf '%s\n' "$output" >"$conf"
  run --separate-stderr testparm -s --suppress-prompt "$conf"
  assert_success
  [[ $stderr != *'Unknown parameter'* && $stderr != *ERROR* ]]
  run --separate-stderr testparm -s --suppress-prompt --parameter-name='min receivefile size' "$conf"
  assert_output 16384
  run --separate-stderr testparm -s --suppress-prompt --parameter-name='smb2 leases' "$conf"
  assert_output No
  run --separate-stderr testparm -s --suppress-prompt --parameter-name='aio write size' --section-name=perftest "$conf"
  assert_output 16384
  run --separate-stderr testparm -s --suppress-prompt --parameter-name='strict allocate' --section-name=perftest "$conf"
  assert_output Yes
}

@test "sambaparams: settings_load checks both keys; a bad one stops it naming the key, empty ones render nothing" {
  run --separate-stderr env SAMBA_GLOBAL_PARAMS='aio read size = lots' KIT_SETTINGS= bash -c \
    'source "$1/lib/common.sh"; source "$1/lib/settings.sh"; settings_load "$1"; echo loaded' _ "$KIT_ROOT"
  assert_failure 1
  assert_output ''
  assert_equal "$stderr" "error: setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'aio read size = lots': needs a size (a number, or with K, M or G)"
  run bash -c 'source "$1/lib/common.sh"; source "$1/lib/settings.sh"; source "$1/lib/server/smbconf.sh"
    KIT_SETTINGS= settings_load "$1" >/dev/null; smbconf_render "$1"' _ "$KIT_ROOT"
  assert_success
  refute_output --partial 'parameters under test'
  refute_output --partial '@'
}

@test "sambaparams: parameters that run a command, load code, change who smbd acts as or name a host path are refused, with why" {
  local cmd="it runs a command, and smbd runs as root" who="it changes who smbd acts as or whom it lets in"
  local at="it points smbd at a file or folder outside the kit's own" code="it loads code (a module or a backend), which smbd runs as root"
  local mods="acl_xattr aio_pthread btrfs cacheprime catia commit dirsort fileid fruit io_uring linux_xfs_sgid posixacl readahead streams_xattr syncops time_audit worm"
  local line why key
  while IFS='|' read -r key line why; do
    refused "$key" "aio read size = 1; $line" "setting '$key' has bad parameter '$line': $why"
  done <<EOF
SAMBA_SHARE_PARAMS|root preexec = touch $BATS_TEST_TMPDIR/pwned|$cmd
SAMBA_SHARE_PARAMS|preexec = touch $BATS_TEST_TMPDIR/pwned|$cmd
SAMBA_SHARE_PARAMS|exec = touch $BATS_TEST_TMPDIR/pwned|$cmd
SAMBA_SHARE_PARAMS|postexec = /bin/sh -c id|$cmd
SAMBA_SHARE_PARAMS|root postexec = /bin/sh -c id|$cmd
SAMBA_SHARE_PARAMS|root preexec close = yes|$cmd
SAMBA_GLOBAL_PARAMS|username map script = /tmp/x|$cmd
SAMBA_GLOBAL_PARAMS|panic action = /tmp/x %d|$cmd
SAMBA_GLOBAL_PARAMS|add user script = /tmp/x %u|$cmd
SAMBA_GLOBAL_PARAMS|delete user script = /tmp/x %u|$cmd
SAMBA_GLOBAL_PARAMS|add machine script = /tmp/x %u|$cmd
SAMBA_GLOBAL_PARAMS|add group script = /tmp/x %g|$cmd
SAMBA_GLOBAL_PARAMS|rename user script = /tmp/x|$cmd
SAMBA_GLOBAL_PARAMS|set primary group script = /tmp/x|$cmd
SAMBA_GLOBAL_PARAMS|check password script = /tmp/x|$cmd
SAMBA_GLOBAL_PARAMS|message command = /tmp/x|$cmd
SAMBA_GLOBAL_PARAMS|passwd program = /tmp/x|$cmd
SAMBA_GLOBAL_PARAMS|wins hook = /tmp/x|$cmd
SAMBA_GLOBAL_PARAMS|log nt token command = /tmp/x|$cmd
SAMBA_SHARE_PARAMS|print command = /tmp/x %s|$cmd
SAMBA_SHARE_PARAMS|lpq command = /tmp/x|$cmd
SAMBA_SHARE_PARAMS|magic script = x.sh|$cmd
SAMBA_SHARE_PARAMS|magic output = /etc/x|$cmd
SAMBA_SHARE_PARAMS|dfree command = /tmp/x|$cmd
SAMBA_SHARE_PARAMS|get quota command = /tmp/x|$cmd
SAMBA_SHARE_PARAMS|set quota command = /tmp/x|$cmd
SAMBA_GLOBAL_PARAMS|preload modules = /tmp/evil.so|$code
SAMBA_GLOBAL_PARAMS|idmap config * : backend = tdb|$code
SAMBA_SHARE_PARAMS|spotlight backend = tracker|$code
SAMBA_SHARE_PARAMS|vfs objects = /tmp/evil.so|it loads '/tmp/evil.so', not one of the modules the kit takes ($mods): a module is code that smbd runs as root
SAMBA_SHARE_PARAMS|vfs objects = acl_xattr, recycle|it loads 'recycle', not one of the modules the kit takes ($mods): a module is code that smbd runs as root
SAMBA_SHARE_PARAMS|force user = root|$who
SAMBA_SHARE_PARAMS|force group = root|$who
SAMBA_SHARE_PARAMS|admin users = nobody|$who
SAMBA_SHARE_PARAMS|write list = nobody|$who
SAMBA_SHARE_PARAMS|inherit owner = yes|$who
SAMBA_GLOBAL_PARAMS|guest account = root|$who
SAMBA_GLOBAL_PARAMS|username map = /tmp/map|$who
SAMBA_GLOBAL_PARAMS|modules dir = /tmp|$at
SAMBA_GLOBAL_PARAMS|smb passwd file = /tmp/x|the kit manages 'smb passwd file': a path of the kit: it keeps its files apart from the host's Samba (set them with SHARE_DIR, STATE_DIR, LOG_DIR)
SAMBA_GLOBAL_PARAMS|tls keyfile = /etc/shadow|$at
SAMBA_GLOBAL_PARAMS|printcap name = /etc/shadow|$at
SAMBA_GLOBAL_PARAMS|utmp directory = /etc|$at
SAMBA_SHARE_PARAMS|wide links = yes|$at
SAMBA_SHARE_PARAMS|follow symlinks = yes|$at
SAMBA_SHARE_PARAMS|msdfs root = yes|$at
SAMBA_SHARE_PARAMS|copy = perftest|$at
SAMBA_SHARE_PARAMS|shadow:snapdir = /etc|$at
SAMBA_SHARE_PARAMS|recycle:repository = .trash|options are taken only for the VFS modules $mods, without a '/' in the value
SAMBA_SHARE_PARAMS|readahead:length = /etc|options are taken only for the VFS modules $mods, without a '/' in the value
SAMBA_GLOBAL_PARAMS|server string = tuned|not on the kit's list of tuning parameters (sambaparams_allowed in lib/server/sambaparams-policy.sh)
EOF
  assert [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
  # the tuning modules and their options, and synonyms of tuning parameters, pass
  export SAMBA_SHARE_PARAMS='vfs objects = acl_xattr io_uring, readahead; readahead:length = 1M; create mode = 0600'
  run --separate-stderr params sambaparams_validate
  assert_success
  assert_equal "$stderr" ""
}

@test "sambaparams: a sweep variant with a parameter that runs a command is refused by the same check" {
  run --separate-stderr bash -c 'source "$1/lib/common.sh"; source "$1/lib/settings.sh"; source "$1/lib/run/sweep.sh"
    KIT_ROOT=$1 KIT_SETTINGS= SWEEP_BASE=()
    sweep_check_variant 2 "$2" >/dev/null' _ "$KIT_ROOT" "SAMBA_GLOBAL_PARAMS='panic action = touch $BATS_TEST_TMPDIR/pwned'"
  assert_failure 2
  assert_equal "$stderr" "error: sweep: variant 2: setting 'SAMBA_GLOBAL_PARAMS' has bad parameter 'panic action = touch $BATS_TEST_TMPDIR/pwned': it runs a command, and smbd runs as root"
  assert [ ! -e "$BATS_TEST_TMPDIR/pwned" ]
}

@test "sambaparams: a parameter file is read once, and one another user owns or can write is refused" {
  kit_require_root
  local f=$BATS_TEST_TMPDIR/share.params
  printf 'aio write size = 16384\n# a comment\nstrict allocate = yes\n' >"$f"
  chmod 0644 "$f"
  # checked and used are the same lines: the file changed after the check changes nothing;
  # the setting holds them on one line (the state and the sweep keep it so)
  run bash -c 'source "$1/lib/common.sh"; common_source_libs "$1" server/sambaparams-policy server/sambaparams
    SAMBA_SHARE_PARAMS=$2; sambaparams_validate
    printf "root preexec = touch %s/pwned\n" "${2%/*}" >"$2"
    printf "%s\n" "$SAMBA_SHARE_PARAMS"
    sambaparams_lines SAMBA_SHARE_PARAMS' _ "$KIT_ROOT" "$f"
  assert_success
  assert_output $'aio write size = 16384; strict allocate = yes\n  # SAMBA_SHARE_PARAMS (settings.conf): parameters under test\n  aio write size = 16384\n  strict allocate = yes'
  printf 'aio write size = 16384\n' >"$f"
  chmod 0664 "$f"
  refused SAMBA_SHARE_PARAMS "$f" "setting 'SAMBA_SHARE_PARAMS' names the file '$f', which group or others can write (mode 664): make it 'chmod go-w'"
  chmod 0646 "$f"
  refused SAMBA_SHARE_PARAMS "$f" "setting 'SAMBA_SHARE_PARAMS' names the file '$f', which group or others can write (mode 646): make it 'chmod go-w'"
  chmod 0644 "$f"
  chown nobody "$f"
  refused SAMBA_SHARE_PARAMS "$f" "setting 'SAMBA_SHARE_PARAMS' names the file '$f', which is owned by uid $(id -u nobody), not by the kit's user: another user could change what smbd runs with"
  chown 0 "$f"
  ln -s /dev/null "$BATS_TEST_TMPDIR/dev.params"
  refused SAMBA_SHARE_PARAMS "$BATS_TEST_TMPDIR/dev.params" "setting 'SAMBA_SHARE_PARAMS' names '$BATS_TEST_TMPDIR/dev.params', which is not a regular file"
  printf 'veto files = /a;b/\n' >"$f"
  refused SAMBA_SHARE_PARAMS "$f" "setting 'SAMBA_SHARE_PARAMS' names the file '$f', which has ';' in 'veto files = /a;b/': a value cannot hold ';'"
  assert_equal "$(stat -c '%u %a' "$f")" "0 644"
}
