# lib/metrics/errors.sh: the errors metric: failed requests of the steady run (the fio run
# lib/run/fio.sh makes once for latency and errors). Sourced; functions only.
# Verdict: lib/metrics/errors.jq.

errors_describe() { fio_steady_describe; }
errors_estimate() { echo 0; }
errors_needs() { echo mount steady; }
errors_inputs() { echo steady; }
