/*
 * pool.c - forked worker pools and their measurements (see pool.h).
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "json.h"
#include "pool.h"

void *
pool_shm_alloc(size_t len)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		json_fatal("cannot map %zu bytes of shared memory: %s", len, strerror(errno));
	return p;	/* zero-filled */
}

void
pool_shm_free(void *p, size_t len)
{
	munmap(p, len);
}

/* in worker i: die with the parent, keep only the worker's ends of the pipes */
static void
worker_setup(struct pool *p, pid_t parent)
{
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)	/* the parent died before prctl */
		_exit(1);
	close(p->gofd[1]);
	close(p->upfd[0]);
}

void
pool_start(struct pool *p, int n, int nsec, int (*fn)(struct pool *, int, void *), void *arg)
{
	pid_t pid, parent = getpid();
	int i;

	memset(p, 0, sizeof(*p));
	p->n = n;
	p->nsec = nsec < 1 ? 1 : nsec > PER_S_MAX ? PER_S_MAX : nsec;
	p->window_ns = (int64_t)(nsec < 1 ? 1 : nsec) * 1000000000;
	if ((p->pids = calloc((size_t)n, sizeof(pid_t))) == NULL ||
	    (p->status = calloc((size_t)n, sizeof(int))) == NULL)
		json_fatal("cannot allocate the worker table: %s", strerror(errno));
	for (i = 0; i < n; i++)
		p->status[i] = -1;
	p->go_ns = pool_shm_alloc(sizeof(int64_t));
	p->per_s = pool_shm_alloc((size_t)n * (size_t)p->nsec * sizeof(uint32_t));
	if (pipe2(p->gofd, O_CLOEXEC) == -1 || pipe2(p->upfd, O_CLOEXEC) == -1)
		json_fatal("cannot make a pipe: %s", strerror(errno));
	fflush(NULL);
	for (i = 0; i < n; i++) {
		if ((pid = fork()) == -1) {
			errmsg(p->fork_error, sizeof(p->fork_error), "fork", errno);
			warnx("%s (started %d of %d workers)", p->fork_error, i, n);
			break;
		}
		if (pid == 0) {
			worker_setup(p, parent);
			_exit(fn(p, i, arg));
		}
		p->pids[i] = pid;
		p->status[i] = -2;
		p->started = i + 1;
	}
	close(p->gofd[0]);
	close(p->upfd[1]);
	p->gofd[0] = p->upfd[1] = -1;
}

void
pool_ready(struct pool *p)
{
	char c = 'r';

	while (write(p->upfd[1], &c, 1) == -1 && errno == EINTR)
		;
}

int
pool_wait_go(struct pool *p)
{
	char c;
	ssize_t r;

	for (;;) {
		if (g_stop)
			return -1;
		r = read(p->gofd[0], &c, 1);
		if (r == 1)
			return g_stop ? -1 : 0;
		if (r == 0)		/* the parent is gone (or gave up): no go */
			return -1;
		if (errno != EINTR)
			return -1;
	}
}

/*
 * Sleeps in ppoll() on the workers' pipe until it has news (a ready byte, its
 * EOF), a stop signal, or the deadline (0: none). Returns 1 at EOF.
 */
static int
pool_poll(struct pool *p, int64_t deadline)
{
	struct pollfd pfd = { .fd = p->upfd[0], .events = POLLIN };
	struct timespec ts, *tp = NULL;
	sigset_t stop, old;
	char buf[256];
	int64_t left;
	ssize_t r;
	int eof = 0;

	/*
	 * A stop signal that comes after the caller looked at g_stop stays pending
	 * until ppoll() unblocks it, which then returns at once (EINTR): no lost
	 * wake-up, and no spinning once g_stop is set.
	 */
	signals_stop_set(&stop);
	sigprocmask(SIG_BLOCK, &stop, &old);
	if (deadline > 0) {
		left = deadline - mono_ns();
		if (left < 0)
			left = 0;
		ts.tv_sec = left / 1000000000;
		ts.tv_nsec = left % 1000000000;
		tp = &ts;
	}
	if (ppoll(&pfd, 1, tp, &old) > 0) {
		r = read(p->upfd[0], buf, sizeof(buf));
		if (r > 0)
			p->ready += (int)r;
		else if (r == 0)
			eof = 1;
	}
	sigprocmask(SIG_SETMASK, &old, NULL);
	return eof;
}

void
pool_wait_ready(struct pool *p, double timeout_s)
{
	int64_t end = mono_ns() + (int64_t)(timeout_s * 1e9);

	while (p->ready < p->started && !g_stop && mono_ns() < end)
		if (pool_poll(p, end))
			break;		/* every worker is gone already */
}

void
pool_go(struct pool *p)
{
	static const char go[256];
	int left = p->started;
	ssize_t r;

	if (p->gofd[1] < 0)
		return;
	if (p->cpu_tgt != NULL && p->cpu_read == 0 && p->cpu_msg[0] == '\0') {
		if (cgusage_read(p->cpu_tgt, &p->cpu_source, &p->cpu0, p->cpu_msg, sizeof(p->cpu_msg)) == 0)
			p->cpu_read = 1;
		p->cpu_t0 = mono_ns();
	}
	*p->go_ns = mono_ns();
	while (left > 0) {	/* one byte a worker; the pipe holds 64 KiB */
		r = write(p->gofd[1], go, (size_t)(left < 256 ? left : 256));
		if (r <= 0 && errno != EINTR)
			break;
		if (r > 0)
			left -= (int)r;
	}
	close(p->gofd[1]);
	p->gofd[1] = -1;
}

static void
pool_kill(struct pool *p, int sig)
{
	int i;

	for (i = 0; i < p->started; i++)
		if (p->status[i] == -2)
			kill(p->pids[i], sig);
}

void
pool_cpu(struct pool *p, struct tgt *t)
{
	p->cpu_tgt = t;
	cgtarget_resolve(t, p->cpu_msg, sizeof(p->cpu_msg));
}

/* the CPU reading at the end of the window (or earlier, when every worker is gone) */
static void
pool_cpu_end(struct pool *p)
{
	if (p->cpu_read != 1)
		return;
	p->cpu_t1 = mono_ns();
	if (cgusage_read(p->cpu_tgt, &p->cpu_source, &p->cpu1, p->cpu_msg, sizeof(p->cpu_msg)) == 0)
		p->cpu_read = 2;
	else
		p->cpu_read = 0;
}

void
pool_join(struct pool *p, int64_t hard_deadline)
{
	sig_atomic_t seen = 0;
	int64_t wend, until;
	int i;

	pool_go(p);
	wend = *p->go_ns + p->window_ns;
	for (;;) {
		if (g_stop != seen) {
			seen = g_stop;
			p->interrupted = 1;
			pool_kill(p, SIGTERM);
		}
		if (hard_deadline > 0 && !p->killed && mono_ns() >= hard_deadline) {
			warnx("workers still running at the hard deadline: killing them");
			pool_kill(p, SIGKILL);
			p->killed = 1;
		}
		if (p->cpu_read == 1 && mono_ns() >= wend)
			pool_cpu_end(p);
		until = p->killed ? 0 : hard_deadline;
		if (p->cpu_read == 1 && (until == 0 || wend < until))
			until = wend;
		if (pool_poll(p, until))
			break;
	}
	pool_cpu_end(p);
	close(p->upfd[0]);
	p->upfd[0] = -1;
	for (i = 0; i < p->started; i++) {
		int st;

		while (waitpid(p->pids[i], &st, 0) == -1 && errno == EINTR)
			;
		p->status[i] = st;
	}
}

void
pool_free(struct pool *p)
{
	if (p->go_ns != NULL)
		pool_shm_free(p->go_ns, sizeof(int64_t));
	if (p->per_s != NULL)
		pool_shm_free(p->per_s, (size_t)p->n * (size_t)p->nsec * sizeof(uint32_t));
	free(p->pids);
	free(p->status);
	memset(p, 0, sizeof(*p));
}
