# lib/report.sh: write results.json and report.md of a run folder (the work is done by the
# standalone lib/report-gen.sh, so it can be tested on fixtures). Sourced; functions only.

# report_write RUN_DIR: merge RUN_DIR into results.json and write report.md; 1 on failure.
report_write() {
  "$KIT_ROOT/lib/report-gen.sh" "$1"
}
