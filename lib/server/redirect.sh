# lib/server/redirect.sh: the one nftables rule that sends CLIENT_ADDR:445 to SERVER_ADDR:TEST_PORT,
# in the kit's own table 'ip NFT_TABLE' (nat output hook, dstnat priority); with client hosts
# (lib/run/clienthosts.sh) a second one, in the prerouting hook (their packets come in from the
# network), sends CLIENT_HOSTS_SERVER_ADDR:445 to CLIENT_HOSTS_SERVER_ADDR:TEST_PORT. The table carries
# the kit's comment; a table without it is never replaced or deleted. Not persisted.
# Sourced; functions only. Needs the loaded settings and lib/run/clienthosts.sh (settings_load
# sources it).

REDIRECT_MARK='samba-perf-test kit'
# How long one nft command may take: its first use loads the nf_tables and nat modules, which
# took over 10 s in the qemu guest (emulated CPU) on a busy 2-core host.
REDIRECT_NFT_TIMEOUT=60

# redirect_nft ARG...: nft with the kit's time limit; a command that ran out of it says so
# on stderr (status 124).
redirect_nft() {
  local rc=0
  common_timeout "$REDIRECT_NFT_TIMEOUT" nft "$@" || rc=$?
  ((rc != 124 && rc != 137)) || warn "'nft $1' did not finish in $REDIRECT_NFT_TIMEOUT s"
  return "$rc"
}

# redirect_ruleset: print the nft script that (re)creates the kit's table atomically.
redirect_ruleset() {
  cat <<NFT
table ip $NFT_TABLE { comment "$REDIRECT_MARK $STATE_DIR"; }
delete table ip $NFT_TABLE
table ip $NFT_TABLE {
  comment "$REDIRECT_MARK $STATE_DIR"
  chain output {
    type nat hook output priority -100; policy accept;
    ip daddr $CLIENT_ADDR tcp dport 445 dnat to $SERVER_ADDR:$TEST_PORT
  }$(redirect_hosts_chain)
}
NFT
}

# redirect_hosts_chain: the client hosts' chain of the ruleset (nothing without client hosts).
redirect_hosts_chain() {
  clienthosts_on || return 0
  printf '\n  chain prerouting {\n    type nat hook prerouting priority -100; policy accept;\n'
  printf '    ip daddr %s tcp dport 445 dnat to %s:%s\n  }' "$CLIENT_HOSTS_SERVER_ADDR" "$CLIENT_HOSTS_SERVER_ADDR" "$TEST_PORT"
}

# redirect_table_state TABLE: print 'kit' when 'ip TABLE' exists and is this kit's (its comment
# names this kit's STATE_DIR, or is the plain mark of earlier versions and the state names
# TABLE), 'foreign' when it has no kit comment, else 'kit STATE_DIR' of the other kit (or 'kit'
# and nothing: an earlier version's table the state does not name); 1 when it does not exist.
redirect_table_state() {
  local text comment='' owner
  text=$(redirect_nft list table ip "$1" 2>/dev/null) || return 1
  [[ $text =~ $'\n\tcomment "'([^\"]*)'"' ]] && comment=${BASH_REMATCH[1]}
  if ! owner=$(state_mark_owner "$REDIRECT_MARK" "$comment"); then
    echo foreign
  elif [[ $owner == this || ($owner == legacy && ${KIT_NFT_TABLE:-} == "$1") ]]; then
    echo kit
  elif [[ $owner == legacy ]]; then
    echo 'kit '
  else
    printf 'kit %s\n' "$owner"
  fi
}

# redirect_whose STATE: the words for a table of state STATE that is not this kit's.
redirect_whose() {
  case $1 in
    foreign) echo "not made by the kit" ;;
    'kit ') echo "made by a kit whose state does not name it (another kit, or one of an earlier version)" ;;
    *) echo "another kit's (STATE_DIR '${1#kit }')" ;;
  esac
}

# redirect_check: die when NFT_TABLE names a table that exists and is not the kit's, when a
# program serves CLIENT_ADDR:445 (see redirect_check_client), or when another table already
# catches CLIENT_ADDR:445 or (with client hosts) CLIENT_HOSTS_SERVER_ADDR:445.
redirect_check() {
  redirect_check_client
  local st
  common_have nft || return 0
  st=$(redirect_table_state "$NFT_TABLE") || st=''
  [[ $st != foreign ]] ||
    die "setting 'NFT_TABLE' names the nftables table 'ip $NFT_TABLE', which exists and is not the kit's (no kit comment): set NFT_TABLE to a new name"
  [[ -z $st || $st == kit ]] ||
    die "setting 'NFT_TABLE' names the nftables table 'ip $NFT_TABLE', which is $(redirect_whose "$st"): set NFT_TABLE to a new name"
  redirect_check_other CLIENT_ADDR "$CLIENT_ADDR" "use another loopback address"
  if clienthosts_on; then
    redirect_check_other CLIENT_HOSTS_SERVER_ADDR "$CLIENT_HOSTS_SERVER_ADDR" "use another address of this host"
  fi
}

# redirect_check_other KEY ADDR ADVICE: die naming setting KEY when a table other than the
# kit's (this kit's own under an earlier NFT_TABLE is fine) already has a rule for ADDR port 445
# (in any chain: output for this machine's clients, prerouting for the client hosts').
redirect_check_other() {
  local other
  while read -r other; do
    [[ $other == "ip "* && $(redirect_table_state "${other#ip }") == kit ]] && continue
    die "setting '$1' has bad value '$2': the nftables table '$other' already redirects its port 445 (another kit's, or the host's): $3"
  done < <(redirect_nft list ruleset 2>/dev/null | awk -v t="ip $NFT_TABLE" -v a="ip daddr $2 tcp dport 445 " '
    /^table / { name = $2 " " $3 } index($0, a) && name != t && !seen[name]++ { print name }')
}

# redirect_check_client: die naming the program when one listens on CLIENT_ADDR:445 itself
# (Debian maps the host name to 127.0.1.1, where an admin may bind a Samba): the redirect would
# take its clients. A listener on every address (0.0.0.0:445, the host's own Samba) is no
# reason: the redirect takes only CLIENT_ADDR, which that Samba's clients do not use.
redirect_check_client() {
  local line who=''
  common_have ss || return 0
  line=$(common_timeout 10 ss -Hltnp 'sport = :445' 2>/dev/null |
    awk -v a="$CLIENT_ADDR:445" '{ l = $4; sub(/%[^:]*:/, ":", l); if (l == a) { print; exit } }') || line=''
  [[ -n $line ]] || return 0
  if [[ $line =~ users:\(\(\"([^\"]*)\",pid=([0-9]+) ]]; then
    who="'${BASH_REMATCH[1]}' (pid ${BASH_REMATCH[2]})"
  fi
  die "setting 'CLIENT_ADDR' has bad value '$CLIENT_ADDR': port 445 there is served by ${who:-another program}, whose clients the kit's redirect would take: use another loopback address"
}

# redirect_current: true when the kit's table holds exactly the rule for the current settings.
redirect_current() {
  local rules
  [[ $(redirect_table_state "$NFT_TABLE") == kit ]] || return 1
  rules=$(redirect_nft list table ip "$NFT_TABLE" 2>/dev/null) || return 1
  local n=1
  if clienthosts_on; then
    n=2
    grep -qE "ip daddr $CLIENT_HOSTS_SERVER_ADDR tcp dport 445 dnat (ip )?to $CLIENT_HOSTS_SERVER_ADDR:$TEST_PORT\$" <<<"$rules" || return 1
  fi
  grep -qE "ip daddr $CLIENT_ADDR tcp dport 445 dnat (ip )?to $SERVER_ADDR:$TEST_PORT\$" <<<"$rules" &&
    (($(grep -c 'dnat' <<<"$rules") == n))
}

# redirect_delete TABLE: delete 'ip TABLE' when it carries the kit's comment (checked right
# before); a table without it is kept and named. Quiet when it is not there.
redirect_delete() {
  local st
  st=$(redirect_table_state "$1") || return 0
  if [[ $st != kit ]]; then
    log "kept nftables table 'ip $1': $(redirect_whose "$st")"
    return 0
  fi
  redirect_nft delete table ip "$1" || die "could not remove the nftables table 'ip $1'"
  log "redirect: removed nftables table 'ip $1'"
}

# redirect_add: create or replace the kit's table (one transaction).
redirect_add() {
  common_have nft || die "'nft' is not installed (package nftables)"
  if redirect_current; then
    log "redirect: nftables table 'ip $NFT_TABLE' already in place ($CLIENT_ADDR:445 -> $SERVER_ADDR:$TEST_PORT)"
    return 0
  fi
  if [[ -n ${KIT_NFT_TABLE:-} && $KIT_NFT_TABLE != "$NFT_TABLE" ]]; then
    redirect_delete "$KIT_NFT_TABLE"
  fi
  redirect_check
  state_set KIT_NFT_TABLE "$NFT_TABLE"
  KIT_NFT_TABLE=$NFT_TABLE
  redirect_ruleset | redirect_nft -f - || die "could not add the nftables table 'ip $NFT_TABLE'"
  log "redirect: nftables table 'ip $NFT_TABLE': $CLIENT_ADDR:445 -> $SERVER_ADDR:$TEST_PORT"
  if clienthosts_on; then
    log "redirect: client hosts: $CLIENT_HOSTS_SERVER_ADDR:445 -> $CLIENT_HOSTS_SERVER_ADDR:$TEST_PORT"
  fi
}

# redirect_remove: delete the kit's table (and the one the state names, if NFT_TABLE changed);
# only tables with the kit's comment; quiet when they are not there.
redirect_remove() {
  common_have nft || return 0
  if [[ -n ${KIT_NFT_TABLE:-} && $KIT_NFT_TABLE != "$NFT_TABLE" ]]; then
    redirect_delete "$KIT_NFT_TABLE"
  fi
  redirect_delete "$NFT_TABLE"
}
