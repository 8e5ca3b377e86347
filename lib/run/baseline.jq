# lib/run/baseline.jq: the local-disk baseline beside a Samba figure. Definitions only:
#   jq -L "$KIT_ROOT/lib" 'include "run/baseline"; ...'

# baseline_vs($samba): a baseline object (lib/run/baseline.sh baseline_result) and the Samba figure
# of the same job -> {local, unit, samba, samba_pct, direct, text}, e.g. text "local disk
# 850 MB/s (buffered, as smbd); Samba reaches 42 % of it". samba_pct is null when either is missing.
def baseline_vs($samba):
  def r: if . == null then null elif . >= 100 then round else (. * 10 | round) / 10 end;
  (if .ok == true and ($samba | type) == "number" and (.value // 0) > 0
   then $samba * 100 / .value else null end) as $pct
  | {local: .value, unit, samba: $samba, samba_pct: $pct, direct,
     text: (if .ok != true then "local disk: not measured (\(.why // "no result"))"
       else "local disk \(.value | r) \(.unit) (\(if .direct then "direct I/O" else "buffered, as smbd" end))\(
         if $pct == null then "" else "; Samba reaches \($pct | round) % of it" end)" end)};
