/*
 * meas.c - what the workers of a pool measure and the keys of the line that
 * report it (see meas.h).
 */
#define _GNU_SOURCE
#include <sys/resource.h>
#include <sys/wait.h>

#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "json.h"
#include "meas.h"

void
meas_init(struct pool *p, int i, struct meas *m)
{
	hist_init(&m->lat);
	hist_init(&m->elat);
	m->per_s = p->per_s + (size_t)i * (size_t)p->nsec;
	m->nsec = p->nsec;
	m->windowed = 1;
}

static void
kind_add(struct errkind *kinds, uint64_t *other, const char *msg, uint64_t count, int64_t ns)
{
	int k;

	for (k = 0; k < KINDS_MAX; k++) {
		if (kinds[k].count == 0) {
			snprintf(kinds[k].msg, sizeof(kinds[k].msg), "%s", msg);
			kinds[k].first_ns = ns;
		}
		if (strcmp(kinds[k].msg, msg) == 0) {
			kinds[k].count += count;
			if (ns < kinds[k].first_ns)
				kinds[k].first_ns = ns;
			return;
		}
	}
	*other += count;
}

void
meas_msg(struct meas *m, const char *msg)
{
	m->errors++;
	kind_add(m->kinds, &m->other, msg, 1, mono_ns());
}

void
meas_note(struct meas *m, const char *what, int e)
{
	char msg[ERRLEN];

	errmsg(msg, sizeof(msg), what, e);
	meas_msg(m, msg);
}

void
meas_ok(struct meas *m, int64_t t0, int64_t t1, const struct pool *p)
{
	int64_t k = (t1 - *p->go_ns) / 1000000000;

	m->end_ns = t1;
	hist_add(&m->lat, (double)(t1 - t0) / 1e6);
	if (m->windowed && t1 - *p->go_ns > p->window_ns) {
		m->late++;
		return;
	}
	m->ops++;
	if (k >= 0 && k < m->nsec)
		m->per_s[k]++;
}

void
meas_fail(struct meas *m, int64_t t0, int64_t t1, const char *what, int e)
{
	m->end_ns = t1;
	hist_add(&m->elat, (double)(t1 - t0) / 1e6);
	meas_note(m, what, e);
}

void
meas_merge(struct meas *dst, const struct meas *src)
{
	dst->ops += src->ops;
	dst->late += src->late;
	dst->errors += src->errors;
	if (src->end_ns > dst->end_ns)
		dst->end_ns = src->end_ns;
	hist_merge(&dst->lat, &src->lat);
	hist_merge(&dst->elat, &src->elat);
	meas_merge_kinds(dst, src);
}

void
meas_merge_kinds(struct meas *dst, const struct meas *src)
{
	int k;

	for (k = 0; k < KINDS_MAX && src->kinds[k].count; k++)
		kind_add(dst->kinds, &dst->other, src->kinds[k].msg, src->kinds[k].count,
		    src->kinds[k].first_ns);
	dst->other += src->other;
}

const char *
meas_first_error(const struct meas *m)
{
	const struct errkind *best = NULL;
	int k;

	for (k = 0; k < KINDS_MAX && m->kinds[k].count; k++)
		if (best == NULL || m->kinds[k].first_ns < best->first_ns)
			best = &m->kinds[k];
	return best ? best->msg : NULL;
}

/* the -d seconds from go; for a run stopped early, up to the last operation's end */
double
meas_window_s(const struct pool *p, const struct meas *m)
{
	if (*p->go_ns == 0)
		return 0;
	if (!(p->interrupted || g_stop) || m->end_ns - *p->go_ns > p->window_ns)
		return (double)p->window_ns / 1e9;
	return m->end_ns > *p->go_ns ? (double)(m->end_ns - *p->go_ns) / 1e9 : 0;
}

/* "worker 3: killed by signal 9" for a lost worker i, or "" */
static void
worker_failure(const struct pool *p, int i, char *buf, size_t len)
{
	int st = p->status[i];

	buf[0] = '\0';
	if (st == -1)
		snprintf(buf, len, "worker %d: not started: %s", i,
		    p->fork_error[0] ? p->fork_error : "fork failed");
	else if (st == -2)
		snprintf(buf, len, "worker %d: not reaped", i);
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "worker %d: killed by signal %d%s", i, WTERMSIG(st),
		    p->killed && WTERMSIG(st) == SIGKILL ? " at the hard deadline" : "");
	else if (WIFEXITED(st) && WEXITSTATUS(st) != 0)
		snprintf(buf, len, "worker %d: exited with status %d", i, WEXITSTATUS(st));
}

const char *
meas_pool_error(const struct pool *p, char *buf, size_t len)
{
	int i;

	for (i = 0; i < p->n; i++) {
		worker_failure(p, i, buf, len);
		if (buf[0])
			return buf;
	}
	return NULL;
}

static double
tv_ms(const struct timeval *tv)
{
	return (double)tv->tv_sec * 1e3 + (double)tv->tv_usec / 1e3;
}

/*
 * The CPU the helper's whole process tree used on the host it ran on: the parent (self, read
 * by the caller) and its workers, which pool_join has reaped (RUSAGE_CHILDREN counts only
 * reaped children, killed ones too); and that host's online cores, so a client host's load
 * can be set against its size.
 */
static void
client_cpu_json(struct jw *w, const struct rusage *self)
{
	struct rusage ch;
	double user, sys;
	long cores = sysconf(_SC_NPROCESSORS_ONLN);

	getrusage(RUSAGE_CHILDREN, &ch);
	user = tv_ms(&self->ru_utime) + tv_ms(&ch.ru_utime);
	sys = tv_ms(&self->ru_stime) + tv_ms(&ch.ru_stime);
	json_num(w, "client_cpu_ms", user + sys, 1);
	json_num(w, "client_user_ms", user, 1);
	json_num(w, "client_system_ms", sys, 1);
	if (cores > 0)
		json_int(w, "host_cores", cores);
	else
		json_null(w, "host_cores");
}

void
meas_json(struct jw *w, const struct pool *p, const struct meas *m)
{
	char buf[ERRLEN];
	double win = meas_window_s(p, m);
	struct rusage ru;
	uint64_t sum;
	int i, k, lost = 0, named = 0;

	for (i = 0; i < p->n; i++) {
		worker_failure(p, i, buf, sizeof(buf));
		lost += buf[0] != '\0';
	}
	json_int(w, "workers_started", p->started);
	json_int(w, "workers_lost", lost);
	json_arr(w, "worker_failures");	/* the first 16 */
	for (i = 0; i < p->n && named < 16; i++) {
		worker_failure(p, i, buf, sizeof(buf));
		if (buf[0]) {
			json_item_str(w, buf);
			named++;
		}
	}
	json_arr_end(w);
	json_bool(w, "interrupted", p->interrupted || g_stop);
	json_num(w, "window_s", win, 3);
	json_num(w, "rate_per_s", win > 0 ? (double)m->ops / win : 0, 1);
	json_int(w, "late_ops", (long long)m->late);
	if (p->cpu_tgt == NULL)
		json_null(w, "server_cpu");
	else {
		json_obj(w, "server_cpu");
		json_bool(w, "available", p->cpu_read == 2);
		if (p->cpu_read == 2) {
			json_str(w, "source", p->cpu_source);
			json_num(w, "window_s", (double)(p->cpu_t1 - p->cpu_t0) / 1e9, 4);
			json_num(w, "used_us", p->cpu1.cpu - p->cpu0.cpu, 0);
			json_num(w, "user_us", p->cpu1.user - p->cpu0.user, 0);
			json_num(w, "system_us", p->cpu1.sys - p->cpu0.sys, 0);
		} else
			json_str(w, "reason", p->cpu_msg[0] ? p->cpu_msg : "the workers were never released");
		json_obj_end(w);
	}
	json_arr(w, "per_s");
	for (k = 0; k < p->nsec && *p->go_ns; k++) {
		for (sum = 0, i = 0; i < p->started; i++)
			sum += p->per_s[(size_t)i * (size_t)p->nsec + (size_t)k];
		json_item_int(w, (long long)sum);
	}
	json_arr_end(w);
	hist_lat_json(w, "lat_ms", &m->lat);
	hist_json(w, "hist", &m->lat);
	hist_lat_json(w, "err_lat_ms", &m->elat);
	json_arr(w, "error_kinds");
	for (k = 0; k < KINDS_MAX && m->kinds[k].count; k++) {
		json_item_obj(w);
		json_str(w, "error", m->kinds[k].msg);
		json_int(w, "count", (long long)m->kinds[k].count);
		json_num(w, "first_s", *p->go_ns ? (double)(m->kinds[k].first_ns - *p->go_ns) / 1e9 :
		    NAN, 3);
		json_obj_end(w);
	}
	if (m->other) {
		json_item_obj(w);
		json_str(w, "error", "(other kinds)");
		json_int(w, "count", (long long)m->other);
		json_null(w, "first_s");
		json_obj_end(w);
	}
	json_arr_end(w);
	getrusage(RUSAGE_SELF, &ru);
	json_num(w, "parent_cpu_ms", tv_ms(&ru.ru_utime) + tv_ms(&ru.ru_stime), 1);
	client_cpu_json(w, &ru);
}
