# tests/stubs/stub-common.bash: sourced by every stub. Appends 'NAME ARG...' (one line, the
# arguments joined by single spaces) to $STUB_LOG, so a test can assert the exact commands.

# stub_log ARG...: record one call.
stub_log() {
  printf '%s\n' "${0##*/}${*:+ $*}" >>"${STUB_LOG:?STUB_LOG is not set}"
}
