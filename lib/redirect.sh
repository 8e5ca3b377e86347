# lib/redirect.sh: the one nftables rule that sends CLIENT_ADDR:445 to SERVER_ADDR:TEST_PORT,
# in the kit's own table 'ip NFT_TABLE' (nat output hook, dstnat priority). Touches no other
# table; not persisted. Sourced; functions only. Needs the loaded settings.

# redirect_ruleset: print the nft script that (re)creates the kit's table atomically.
redirect_ruleset() {
  cat <<NFT
table ip $NFT_TABLE
delete table ip $NFT_TABLE
table ip $NFT_TABLE {
  chain output {
    type nat hook output priority -100; policy accept;
    ip daddr $CLIENT_ADDR tcp dport 445 dnat to $SERVER_ADDR:$TEST_PORT
  }
}
NFT
}

# redirect_present: true when the kit's table exists.
redirect_present() {
  nft list table ip "$NFT_TABLE" >/dev/null 2>&1
}

# redirect_current: true when the kit's table holds exactly the rule for the current settings.
redirect_current() {
  local rules
  rules=$(nft list table ip "$NFT_TABLE" 2>/dev/null) || return 1
  grep -qE "ip daddr $CLIENT_ADDR tcp dport 445 dnat (ip )?to $SERVER_ADDR:$TEST_PORT\$" <<<"$rules" &&
    (($(grep -c 'dnat' <<<"$rules") == 1))
}

# redirect_add: create or replace the kit's table (one transaction).
redirect_add() {
  common_have nft || die "'nft' is not installed (package nftables)"
  if redirect_current; then
    log "redirect: nftables table 'ip $NFT_TABLE' already in place ($CLIENT_ADDR:445 -> $SERVER_ADDR:$TEST_PORT)"
    return 0
  fi
  if [[ -n ${KIT_NFT_TABLE:-} && $KIT_NFT_TABLE != "$NFT_TABLE" ]] &&
    nft list table ip "$KIT_NFT_TABLE" >/dev/null 2>&1; then
    nft delete table ip "$KIT_NFT_TABLE" && log "redirect: removed the kit's old table 'ip $KIT_NFT_TABLE' (NFT_TABLE changed)"
  fi
  redirect_ruleset | nft -f - || die "could not add the nftables table 'ip $NFT_TABLE'"
  state_set KIT_NFT_TABLE "$NFT_TABLE"
  KIT_NFT_TABLE=$NFT_TABLE
  log "redirect: nftables table 'ip $NFT_TABLE': $CLIENT_ADDR:445 -> $SERVER_ADDR:$TEST_PORT"
}

# redirect_remove: delete the kit's table (and the one the state names, if NFT_TABLE changed);
# quiet when it is not there.
redirect_remove() {
  common_have nft || return 0
  if [[ -n ${KIT_NFT_TABLE:-} && $KIT_NFT_TABLE != "$NFT_TABLE" ]] &&
    nft list table ip "$KIT_NFT_TABLE" >/dev/null 2>&1; then
    nft delete table ip "$KIT_NFT_TABLE" || die "could not remove the nftables table 'ip $KIT_NFT_TABLE'"
    log "redirect: removed nftables table 'ip $KIT_NFT_TABLE'"
  fi
  redirect_present || return 0
  nft delete table ip "$NFT_TABLE" || die "could not remove the nftables table 'ip $NFT_TABLE'"
  log "redirect: removed nftables table 'ip $NFT_TABLE'"
}
