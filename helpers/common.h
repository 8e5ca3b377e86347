/*
 * common.h - the helpers' shared module.
 *
 * common.c: credentials, targets, timing, signals, a log-bucketed latency
 * histogram, a one-line JSON writer, forked worker pools, cgroup/proc lookups.
 * smbctx.c: the private client HOME and the libsmbclient context (only the
 * five SMB helpers link it, so cgcpu and pss-sum run without libsmbclient).
 */
#ifndef HELPERS_COMMON_H
#define HELPERS_COMMON_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define EXIT_USAGE	2
#define ERRLEN		256

/* credentials: -A FILE (username=/password=/domain=) or SMB_USER/SMB_PASSWORD/SMB_DOMAIN */
struct creds {
	char	user[256];
	char	password[256];
	char	domain[256];
};
/* the file start-samba.sh writes with the default settings */
#define KIT_CREDENTIALS	"/etc/samba/perf-test/credentials"
/*
 * Fills c from file (when not NULL), else the environment, else the file
 * $SMB_CREDENTIALS names (default KIT_CREDENTIALS) when it is readable;
 * errx(2) when there are none.
 */
void	creds_load(struct creds *c, const char *file);
void	creds_wipe(struct creds *c);

/* smb://host[:port]/share[/path] or //host[:port]/share[/path] */
struct target {
	char	host[256];
	int	port;			/* 0: libsmbclient's default */
	char	share[256];
	char	path[1024];		/* "" or "a/b" (no leading or trailing slash) */
};
int	target_parse(struct target *t, const char *s);	/* -1 when malformed */
/* URL of the share root plus path and an optional extra component (NULL for none) */
void	target_url(const struct target *t, const char *extra, char *buf, size_t len);
void	target_str(const struct target *t, char *buf, size_t len);	/* //host:port/share/path */

/* numbers from options: errx(2) with the option letter when out of range */
long	opt_num(int opt, const char *s, long min, long max);

/* time */
double	mono_s(void);
int64_t	mono_ns(void);
int64_t	real_ns(void);
void	sleep_ms(long ms);

/* SIGINT/SIGTERM/SIGHUP set g_stop (counted); no SA_RESTART so blocking calls return */
extern volatile sig_atomic_t g_stop;
void	signals_install(void);

/*
 * Latency histogram, in milliseconds. Buckets grow by gamma = 1.02/0.98, so
 * the midpoint of a bucket is within 1 % of every value in it; range 1 ns to
 * about 2e6 ms, values outside are clamped into the end buckets (min and max
 * are kept exactly, and p0/p100 return them). Fixed size, plain data: it can live in shared memory and
 * is merged by adding buckets.
 */
#define HIST_BUCKETS	1500
struct hist {
	uint64_t	n;
	double		sum;
	double		min;
	double		max;
	uint32_t	b[HIST_BUCKETS];
};
void	hist_init(struct hist *h);
void	hist_add(struct hist *h, double ms);
void	hist_merge(struct hist *dst, const struct hist *src);
/* nearest-rank percentile (p in 0..100) within 1 %; NAN when empty */
double	hist_pct(const struct hist *h, double p);

/* JSON writer: one object on one line, escaped strings, null for missing */
struct jw {
	FILE	*f;
	int	depth;
	int	count[8];
};
void	jw_begin(struct jw *w, FILE *f);
void	jw_end(struct jw *w);			/* "}\n" */
void	jw_obj(struct jw *w, const char *key);
void	jw_obj_end(struct jw *w);
void	jw_str(struct jw *w, const char *key, const char *val);	/* NULL -> null */
void	jw_int(struct jw *w, const char *key, long long val);
void	jw_num(struct jw *w, const char *key, double val, int prec); /* non-finite -> null */
void	jw_bool(struct jw *w, const char *key, int val);
void	jw_null(struct jw *w, const char *key);
void	jw_lat(struct jw *w, const char *key, const struct hist *h);
/* starts the line with "helper","ok" and, when !ok, "error" */
void	jw_head(struct jw *w, const char *helper, int ok, const char *error);
/* flushes stdout; err(1) when it could not be written */
void	stdout_close(void);

/*
 * Worker pools: fork n workers that share an anonymous shared mapping with the
 * parent. A worker signals readiness with pool_ready(), then blocks in
 * pool_wait_go() until the parent calls pool_go() (all ready, or the
 * deadline passed). pool_join() reaps them, forwarding SIGTERM on g_stop and
 * killing what is still alive at the hard deadline.
 */
struct pool {
	int		n;
	pid_t		*pids;
	int		gofd[2];
	volatile int	*ready;		/* shared counter */
};
void	*shm_alloc(size_t len);
void	shm_free(void *p, size_t len);
/* fn(i, arg) runs in the child, which then _exit()s with its return value */
void	pool_start(struct pool *p, int n, int (*fn)(struct pool *, int, void *), void *arg);
void	pool_ready(struct pool *p);
int	pool_wait_go(struct pool *p);	/* 0 go, -1 stop asked */
void	pool_wait_ready(struct pool *p, double timeout_s);
void	pool_go(struct pool *p);
void	pool_join(struct pool *p, double hard_deadline_mono);
void	pool_free(struct pool *p);

/* process/cgroup lookups for cgcpu and pss-sum */
struct tgt {
	char	kind;		/* 'u', 'g' or 'p' */
	char	name[1024];	/* unit, cgroup directory or pid as given */
	pid_t	pid;
	char	cg2[4096];	/* resolved cgroup v2 directory, "" if none */
	char	cg1[4096];	/* resolved cgroup v1 cpuacct directory, "" if none */
	char	procs[4096];	/* a directory whose cgroup.procs (recursive) lists the members */
};
/* takes option -g, -p or -u (ch) with its argument into t; errx(2) when it is bad */
void	tgt_option(struct tgt *t, int ch, const char *arg);
/* resolves -u/-g/-p; -1 with msg when it cannot */
int	tgt_resolve(struct tgt *t, char *msg, size_t len);
/* the member pids (cgroup.procs recursively, or the tree of pid); malloc'd, count in *n */
pid_t	*tgt_pids(const struct tgt *t, size_t *n);
/* pid and all its descendants */
pid_t	*proc_tree(pid_t root, size_t *n);

/* smbctx.c ---------------------------------------------------------------- */
#ifdef HELPERS_SMB
#include <libsmbclient.h>
/* Makes a private HOME with .smb/smb.conf (removed at exit by the process that made it). */
void	client_home_setup(void);
/* A context for one worker, created after fork; NULL with msg on failure. */
SMBCCTX	*ctx_new(const struct creds *c, int timeout_ms, char *msg, size_t len);
void	ctx_purge(SMBCCTX *ctx);	/* drop cached connections: next call logs in again */
void	ctx_free(SMBCCTX *ctx);
/* a login: new connection, negotiate, session setup, tree connect (+ one stat) */
int	smb_login(SMBCCTX *ctx, const char *share_url);
/* "what: strerror(errno)" into msg */
void	errmsg(char *msg, size_t len, const char *what, int e);

/* the first error a worker met and when (plain data: it lives in shared memory) */
struct firsterr {
	int64_t	ns;		/* mono_ns() when it happened; 0 before the run */
	char	msg[ERRLEN];	/* "" while there was none */
};
/* records "what: strerror(e)" now, unless an error is recorded already */
void	firsterr_note(struct firsterr *f, const char *what, int e);
/* the earlier of best (NULL: none yet) and f, ignoring an empty f */
const struct firsterr *firsterr_earlier(const struct firsterr *best, const struct firsterr *f);
#endif

#endif
