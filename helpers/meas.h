/*
 * meas.h - one worker's measurement (plain data in shared memory): counted
 * operations and their latency, failed ones with theirs, distinct error
 * messages with counts, operations per second of the window; merged by the
 * parent and written as the load helpers' common keys.
 */
#ifndef HELPERS_MEAS_H
#define HELPERS_MEAS_H

#include <stddef.h>
#include <stdint.h>

#include "base.h"
#include "hist.h"
#include "pool.h"

#define KINDS_MAX	6	/* distinct error messages kept per worker and per line */

struct errkind {
	uint64_t	count;
	int64_t		first_ns;	/* mono_ns() of the first */
	char		msg[ERRLEN];
};

struct meas {
	uint64_t	ops;		/* counted (successful) operations, ended inside the window */
	uint64_t	late;		/* successful ones that ended after the window (late_ops) */
	uint64_t	errors;		/* failed or timed-out ones, and set-up failures */
	int64_t		end_ns;		/* when the last counted or failed operation ended */
	struct hist	lat;		/* successful operations, ms */
	struct hist	elat;		/* failed operations, ms */
	struct errkind	kinds[KINDS_MAX];
	uint64_t	other;		/* errors of further kinds */
	uint32_t	*per_s;		/* nsec counters (set by meas_init) */
	int		nsec;
	int		windowed;	/* set by meas_init: ops ending after go + window are late */
};

/* in worker i: hist_init and its row of the pool's per-second counts */
void	meas_init(struct pool *p, int i, struct meas *m);
/* an operation from t0 to t1 (mono ns): counted (late when it ended after the window of a
 * meas_init measurement; its latency is kept either way), or failed ("what: strerror(e)") */
void	meas_ok(struct meas *m, int64_t t0, int64_t t1, const struct pool *p);
void	meas_fail(struct meas *m, int64_t t0, int64_t t1, const char *what, int e);
/* a failure with no operation time (set-up: connect, mkdir, open) */
void	meas_note(struct meas *m, const char *what, int e);
void	meas_msg(struct meas *m, const char *msg);	/* the same with a ready message */
void	meas_merge(struct meas *dst, const struct meas *src);
void	meas_merge_kinds(struct meas *dst, const struct meas *src);	/* the error kinds only */
/* the earliest error message, NULL when none */
const char *meas_first_error(const struct meas *m);

struct jw;
/*
 * The keys every pool helper's line has (docs/CONTRACTS.md): workers_started,
 * workers_lost, worker_failures, interrupted, window_s, rate_per_s (ops over
 * the window), late_ops, server_cpu (null unless pool_cpu), per_s, lat_ms, hist,
 * err_lat_ms, error_kinds, first_error, parent_cpu_ms, client_cpu_ms, client_user_ms,
 * client_system_ms (the parent and its reaped workers: call after pool_join), host_cores.
 * m is the merged measurement; per_s summed over workers.
 */
void	meas_json(struct jw *w, const struct pool *p, const struct meas *m);
double	meas_window_s(const struct pool *p, const struct meas *m);
/* a failure of the pool itself (a worker lost), or NULL */
const char *meas_pool_error(const struct pool *p, char *buf, size_t len);

/* The help text's paragraph on times, rates and latency, the same for every load helper
 * (their -h is each one's synopsis; this is the part they share). */
#define MEAS_USAGE_TIMES \
	"Times: duration_s is the whole run (set-up, measurement, teardown); window_s\n" \
	"is the measured window, the -d seconds from the moment the workers were\n" \
	"released (for a run stopped early, to the end of its last operation); ops counts the\n" \
	"operations that ended inside it, late_ops the successful ones that ended\n" \
	"after it (a request in flight at the deadline); rate_per_s = ops / window_s;\n" \
	"per_s[k] counts the operations that ended in second k of the window.\n" \
	"Latency: lat_ms and hist cover the successful operations, late ones too; failed and\n" \
	"timed-out ones count in errors, their times beside them in err_lat_ms.\n" \
	"Every SMB request times out after 5 s; a TCP connect that gets no answer\n" \
	"can take libsmbclient's own fixed connect timeout (5 s) on top.\n"

#endif
