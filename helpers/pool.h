/*
 * pool.h - worker pools and what they measure.
 *
 * pool_start forks n workers that share anonymous shared memory with the
 * parent (allocate it with shm_alloc before). A worker says it is ready with
 * pool_ready(), then blocks in pool_wait_go() until the parent's pool_go()
 * (all ready, or the ready timeout passed); the end of the parent (EOF on the
 * go pipe, or PR_SET_PDEATHSIG's SIGTERM) is never a go. The parent sleeps in
 * ppoll() on a pipe that every worker holds open: no polling. pool_join()
 * waits for the pipe's EOF, forwards SIGTERM on g_stop, SIGKILLs what is alive
 * at the hard deadline and collects every exit status.
 *
 * struct meas is one worker's measurement (plain data in shared memory):
 * counted operations and their latency, failed ones with theirs, distinct
 * error messages with counts, ops per second of the window.
 */
#ifndef HELPERS_POOL_H
#define HELPERS_POOL_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "base.h"
#include "hist.h"

#define KINDS_MAX	6	/* distinct error messages kept per worker and per line */
#define PER_S_MAX	3600	/* seconds of per_s kept (-d beyond that: the first hour) */

struct errkind {
	uint64_t	count;
	int64_t		first_ns;	/* mono_ns() of the first */
	char		msg[ERRLEN];
};

struct meas {
	uint64_t	ops;		/* counted (successful) operations */
	uint64_t	errors;		/* failed or timed-out ones, and set-up failures */
	int64_t		end_ns;		/* when the last counted or failed operation ended */
	struct hist	lat;		/* successful operations, ms */
	struct hist	elat;		/* failed operations, ms */
	struct errkind	kinds[KINDS_MAX];
	uint64_t	other;		/* errors of further kinds */
	uint32_t	*per_s;		/* nsec counters (set by pool_meas) */
	int		nsec;
};

struct pool {
	int		n;		/* asked */
	int		started;	/* forked */
	pid_t		*pids;
	int		*status;	/* wait status; -1 never started, -2 not reaped */
	int		gofd[2];
	int		upfd[2];
	int		ready;		/* workers that said so */
	int		killed;		/* SIGKILLed at the hard deadline */
	int		interrupted;	/* a signal asked the run to stop */
	int64_t		*go_ns;		/* shared: when the workers were released (0 before) */
	uint32_t	*per_s;		/* shared: n * nsec counters */
	int		nsec;
	char		fork_error[ERRLEN];
};

void	*shm_alloc(size_t len);
void	 shm_free(void *p, size_t len);

/* fn(p, i, arg) runs in worker i, which then _exit()s with its return value;
 * nsec: length of the per-second count (the -d seconds) */
void	pool_start(struct pool *p, int n, int nsec, int (*fn)(struct pool *, int, void *),
	    void *arg);
/* worker side */
void	pool_meas(struct pool *p, int i, struct meas *m);	/* hist_init and per_s */
void	pool_ready(struct pool *p);
int	pool_wait_go(struct pool *p);	/* 0 go; -1 stop asked or the parent is gone */
/* parent side */
void	pool_wait_ready(struct pool *p, double timeout_s);
void	pool_go(struct pool *p);
void	pool_join(struct pool *p, int64_t hard_deadline_ns);	/* 0: none */
void	pool_free(struct pool *p);

/* an operation from t0 to t1 (mono ns): counted, or failed ("what: strerror(e)") */
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
 * the window), per_s, lat_ms, hist, err_lat_ms, error_kinds, first_error,
 * parent_cpu_ms. m is the merged measurement; per_s summed over workers.
 */
void	pool_json(struct jw *w, const struct pool *p, const struct meas *m);
double	pool_window_s(const struct pool *p, const struct meas *m);
/* a failure of the pool itself (a worker lost), or NULL */
const char *pool_error(const struct pool *p, char *buf, size_t len);

#endif
