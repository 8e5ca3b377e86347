# lib/server/sambaparams-policy.sh: which Samba parameters a setting of the parameters under test
# (lib/server/sambaparams.sh) may hold: the ones the kit manages (refused, with the setting to use
# instead), the allow-list of tuning parameters, the VFS modules and their options, and why a
# name is dangerous for an smbd that runs as root. Names are compared the way Samba compares
# them (sambaparams_norm). Sourced; defines functions only. Add a parameter to
# sambaparams_allowed only after reading its smb.conf(5) page.

# sambaparams_norm NAME: NAME the way Samba compares parameter names: lower case, no spaces.
sambaparams_norm() {
  local n=${1,,}
  printf '%s\n' "${n//[[:space:]]/}"
}

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

# sambaparams_allowed: the parameters a setting may hold, names in lower case without spaces:
# tuning parameters that run no command, load no code, change no identity and name no path
# (smbd runs as root). An allow-list, not a list of the dangerous ones: smb.conf(5) has about
# 480 parameters and each Samba release adds some; a parameter missing here is refused with the
# reason and can be added after reading its page, while a dangerous one missing from a deny-list
# would run as root unseen.
sambaparams_allowed() {
  printf '%s\n' \
    aiomaxthreads asyncsmbechohandler changenotify deadtime debughirestimestamp debugpid \
    debugprefixtimestamp debuguid defersharingviolations getwdcache hostnamelookups keepalive \
    kernelchangenotify largereadwrite lockspintime loglevel maxdisksize maxlogsize maxmux \
    maxopenfiles maxsmbdprocesses maxstatcachesize maxxmit minreceivefilesize namecachetimeout \
    oplockbreakwaittime readraw servermaxprotocol serverminprotocol servermultichannelsupport \
    serversmb3encryptionalgorithms serversmb3signingalgorithms smb2disablelocksequencechecking \
    smb2disableoplockbreakretry smb2leases smb2maxcredits smb2maxread smb2maxtrans smb2maxwrite \
    socketoptions statcache timestamplogs usemmap writeraw \
    aclallowexecutealways aclcheckpermissions aclmapfullcontrol aiowritebehind aioreadsize \
    aiowritesize allocationroundupsize blockinglocks blocksize casesensitive \
    checkparentdirectorydeleteonclose createmask createmode cscpolicy defaultcase \
    deletereadonly deletevetofiles directorymask directorymode directorynamecachesize \
    dosfilemode dosfiletimeresolution dosfiletimes durablehandles easupport \
    fakedirectorycreatetimes fakeoplocks forcecreatemode forcedirectorymode hidedotfiles \
    hidefiles hidenewfilestimeout hidespecialfiles hideunreadable hideunwriteablefiles \
    inheritacls inheritpermissions kerneloplocks kernelsharemodes level2oplocks locking \
    manglednames manglingmethod mapaclinherit maparchive \
    maphidden mapreadonly mapsystem maxconnections ntaclsupport oplocks \
    posixlocking preservecase shortpreservecase smbdasyncdosmode smbdforceprocesslocks \
    smbdgetinfoasksharemode smbdmaxasyncdosmode smbdmaxxattrsize smbdsearchasksharemode \
    storedosattributes strictallocate strictlocking strictrename syncalways vetofiles \
    vetooplockfiles vfsobjects
}

# sambaparams_modules: the VFS modules 'vfs objects' may name (loaded by name from the host's
# Samba, never from a path) and whose 'module:option' parameters a setting may hold.
sambaparams_modules() {
  printf '%s\n' acl_xattr aio_pthread btrfs cacheprime catia commit dirsort fileid fruit \
    io_uring linux_xfs_sgid posixacl readahead streams_xattr syncops time_audit worm
}

# sambaparams_danger NAME: print why a parameter named NAME (normalized) is dangerous for a kit
# that runs smbd as root, from its name (smb.conf(5)'s parameters, by the kind of value they
# take); 1 when the name says nothing dangerous.
sambaparams_danger() {
  case $1 in
    *command | *script | *program | *exec | *execclose | panicaction | winshook | passwdchat* | \
      rpcstartondemandhelpers | magicoutput)
      echo "it runs a command, and smbd runs as root"
      ;;
    vfsobjects | preloadmodules | perfcountmodule | ntvfshandler | *backend | idmapconfig* | \
      dcerpcendpointservers | serverservices)
      echo "it loads code (a module or a backend), which smbd runs as root"
      ;;
    forceuser | forcegroup | adminusers | guestaccount | username* | user | users | \
      invalidusers | readlist | writelist | inheritowner | forceunknownacluser | \
      aclgroupcontrol | enableprivileges | afsusernamemap | unixpasswordsync | usershare*)
      echo "it changes who smbd acts as or whom it lets in"
      ;;
    *path | *dir | *directory | *file | *socket* | include* | copy | root* | *widelinks | \
      followsymlinks | msdfs* | hostmsdfs | tls* | *map | printcapname | cupsserver | \
      templateshell | autoservices | *:*dir* | *:*path* | *:*file*)
      echo "it points smbd at a file or folder outside the kit's own"
      ;;
    *) return 1 ;;
  esac
}

# sambaparams_why_refused NAME VALUE: print why the kit refuses NAME = VALUE although it does
# not manage NAME; 1 when it takes it (NAME on sambaparams_allowed, a 'vfs objects' naming only
# sambaparams_modules, or 'module:option' of one of those with a value that is no path).
sambaparams_why_refused() {
  local n word module
  local -a words=()
  n=$(sambaparams_norm "$1")
  if [[ $n == *:* ]]; then
    module=${n%%:*}
    if grep -qxF -- "$module" < <(sambaparams_modules) && [[ $2 != */* ]] &&
      ! sambaparams_danger "$n" >/dev/null; then
      return 1
    fi
    sambaparams_danger "$n" ||
      echo "options are taken only for the VFS modules $(sambaparams_modules | paste -sd ' ' -), without a '/' in the value"
    return 0
  fi
  if ! grep -qxF -- "$n" < <(sambaparams_allowed); then
    sambaparams_danger "$n" ||
      echo "not on the kit's list of tuning parameters (sambaparams_allowed in lib/server/sambaparams-policy.sh)"
    return 0
  fi
  [[ $n == vfsobjects ]] || return 1
  IFS=$', \t' read -r -a words <<<"$2"
  for word in "${words[@]}"; do
    grep -qxF -- "$word" < <(sambaparams_modules) ||
      {
        echo "it loads '$word', not one of the modules the kit takes ($(sambaparams_modules | paste -sd ' ' -)): a module is code that smbd runs as root"
        return 0
      }
  done
  return 1
}
