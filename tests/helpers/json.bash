# tests/helpers/json.bash: a checked 'jq -e' for the helper tests. Sourced; defines functions only.
#   jq_e ARG... [FILE]   'jq -e ARG...' on FILE (when the last argument is a file) or stdin,
#                        failing on input with no JSON in it: jq 1.6 (Debian 12) exits 0 for
#                        'jq -e' on empty input, so a helper that printed nothing passed every
#                        check written as 'jq -e FILTER <<<"$output"' (issue 14's smb-hold test)

jq_e() {
  local in
  if (($# > 1)) && [[ -f ${*: -1} ]]; then
    in=$(cat -- "${*: -1}")
    set -- "${@:1:$#-1}"
  else
    in=$(cat)
  fi
  if [[ $in != *[![:space:]]* ]]; then
    echo "jq -e: no JSON in the input" >&2
    return 1
  fi
  jq -e "$@" <<<"$in"
}
