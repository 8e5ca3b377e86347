/*
 * common.c - credentials, targets, timing, signals, histogram, JSON writer,
 * worker pools and cgroup/proc lookups shared by the helpers.
 */
#define _GNU_SOURCE
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <ctype.h>
#include <dirent.h>
#include <err.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common.h"

volatile sig_atomic_t g_stop;

/* credentials ------------------------------------------------------------ */

static void
copy(char *dst, size_t len, const char *src)
{
	if (strlen(src) >= len)
		errx(EXIT_USAGE, "credential value too long");
	strcpy(dst, src);
}

static void
split_domain(struct creds *c)
{
	char *p, tmp[256];

	if ((p = strpbrk(c->user, "\\/")) == NULL)
		return;
	*p = '\0';
	copy(c->domain, sizeof(c->domain), c->user);
	copy(tmp, sizeof(tmp), p + 1);
	copy(c->user, sizeof(c->user), tmp);
}

void
creds_load(struct creds *c, const char *file)
{
	FILE *f;
	char line[1024], *k, *v, *e;
	const char *s;

	memset(c, 0, sizeof(*c));
	if (file != NULL) {
		if ((f = fopen(file, "r")) == NULL)
			err(EXIT_USAGE, "cannot open '%s'", file);
		while (fgets(line, sizeof(line), f) != NULL) {
			line[strcspn(line, "\r\n")] = '\0';
			for (k = line; isspace((unsigned char)*k); k++)
				;
			if (*k == '#' || *k == ';' || (v = strchr(k, '=')) == NULL)
				continue;
			for (e = v; e > k && isspace((unsigned char)e[-1]); e--)
				;
			*e = '\0';
			for (v++; isspace((unsigned char)*v); v++)
				;
			if (strcmp(k, "username") == 0)
				copy(c->user, sizeof(c->user), v);
			else if (strcmp(k, "password") == 0)
				copy(c->password, sizeof(c->password), v);
			else if (strcmp(k, "domain") == 0)
				copy(c->domain, sizeof(c->domain), v);
		}
		explicit_bzero(line, sizeof(line));
		fclose(f);
		if (c->user[0] == '\0')
			errx(EXIT_USAGE, "no 'username' in '%s'", file);
	} else {
		if ((s = getenv("SMB_USER")) == NULL || *s == '\0') {
			/* by hand on a started kit: its own root-only file */
			if ((s = getenv("SMB_CREDENTIALS")) == NULL || *s == '\0')
				s = KIT_CREDENTIALS;
			if (access(s, R_OK) == 0) {
				creds_load(c, s);
				return;
			}
			errx(EXIT_USAGE, "no credentials: use -A FILE, set SMB_USER and "
			    "SMB_PASSWORD, or let root read '%s' (start-samba.sh writes it)", s);
		}
		copy(c->user, sizeof(c->user), s);
		if ((s = getenv("SMB_PASSWORD")) != NULL)
			copy(c->password, sizeof(c->password), s);
		if ((s = getenv("SMB_DOMAIN")) != NULL)
			copy(c->domain, sizeof(c->domain), s);
	}
	split_domain(c);
}

void
creds_wipe(struct creds *c)
{
	explicit_bzero(c, sizeof(*c));
}

/* targets ---------------------------------------------------------------- */

static int
hexval(int ch)
{
	if (ch >= '0' && ch <= '9')
		return ch - '0';
	ch = tolower(ch);
	if (ch >= 'a' && ch <= 'f')
		return ch - 'a' + 10;
	return -1;
}

static void
urldecode(char *s)
{
	char *d = s;
	int h, l;

	for (; *s; s++) {
		if (*s == '%' && (h = hexval(s[1])) >= 0 && (l = hexval(s[2])) >= 0) {
			*d++ = (char)(h * 16 + l);
			s += 2;
		} else
			*d++ = *s;
	}
	*d = '\0';
}

int
target_parse(struct target *t, const char *s)
{
	char buf[2048], *p, *host, *share, *port;
	int url = 0;
	size_t n;

	memset(t, 0, sizeof(*t));
	if (strncmp(s, "smb://", 6) == 0) {
		s += 6;
		url = 1;
	} else if (strncmp(s, "//", 2) == 0)
		s += 2;
	else
		return -1;
	if (strlen(s) >= sizeof(buf))
		return -1;
	strcpy(buf, s);
	if (url)
		urldecode(buf);
	host = buf;
	if ((p = strchr(host, '/')) == NULL)
		return -1;
	*p = '\0';
	share = p + 1;
	if (strchr(host, '@') != NULL)	/* user:pass@ stays off the command line */
		return -1;
	if ((port = strrchr(host, ':')) != NULL) {
		char *end;
		long v;

		*port++ = '\0';
		errno = 0;
		v = strtol(port, &end, 10);
		if (errno || *end || end == port || v < 1 || v > 65535)
			return -1;
		t->port = (int)v;
	}
	if ((p = strchr(share, '/')) != NULL)
		*p++ = '\0';
	if (*host == '\0' || *share == '\0' || strlen(host) >= sizeof(t->host) ||
	    strlen(share) >= sizeof(t->share))
		return -1;
	strcpy(t->host, host);
	strcpy(t->share, share);
	if (p != NULL) {
		while (*p == '/')
			p++;
		n = strlen(p);
		while (n > 0 && p[n - 1] == '/')
			p[--n] = '\0';
		if (n >= sizeof(t->path))
			return -1;
		strcpy(t->path, p);
	}
	return 0;
}

static size_t
urlencode(char *d, size_t len, const char *s)
{
	static const char hex[] = "0123456789ABCDEF";
	size_t o = 0;
	unsigned char ch;

	for (; *s && o + 4 < len; s++) {
		ch = (unsigned char)*s;
		if (isalnum(ch) || strchr("-._~/!$&'()*+,=", ch) != NULL)
			d[o++] = (char)ch;
		else {
			d[o++] = '%';
			d[o++] = hex[ch >> 4];
			d[o++] = hex[ch & 15];
		}
	}
	d[o] = '\0';
	return o;
}

void
target_url(const struct target *t, const char *extra, char *buf, size_t len)
{
	size_t o;

	if (t->port)
		o = (size_t)snprintf(buf, len, "smb://%s:%d/", t->host, t->port);
	else
		o = (size_t)snprintf(buf, len, "smb://%s/", t->host);
	if (o >= len)
		return;
	o += urlencode(buf + o, len - o, t->share);
	if (t->path[0] && o + 1 < len) {
		buf[o++] = '/';
		o += urlencode(buf + o, len - o, t->path);
	}
	if (extra != NULL && o + 1 < len) {
		buf[o++] = '/';
		urlencode(buf + o, len - o, extra);
	}
}

void
target_str(const struct target *t, char *buf, size_t len)
{
	char port[16] = "";

	if (t->port)
		snprintf(port, sizeof(port), ":%d", t->port);
	snprintf(buf, len, "//%s%s/%s%s%s", t->host, port, t->share,
	    t->path[0] ? "/" : "", t->path);
}

long
opt_num(int opt, const char *s, long min, long max)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || *end || end == s || v < min || v > max)
		errx(EXIT_USAGE, "option -%c: '%s' is not a number from %ld to %ld",
		    opt, s, min, max);
	return v;
}

/* time and signals ------------------------------------------------------- */

int64_t
mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

double
mono_s(void)
{
	return (double)mono_ns() / 1e9;
}

int64_t
real_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

void
sleep_ms(long ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	nanosleep(&ts, NULL);	/* a signal cuts it short, which is what we want */
}

static void
on_signal(int sig)
{
	(void)sig;
	if (g_stop < 100)
		g_stop++;
}

void
signals_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sa.sa_flags = 0;	/* no SA_RESTART: waits return early */
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

/* histogram -------------------------------------------------------------- */

#define HIST_MIN	1e-6			/* ms: 1 ns */
#define HIST_ALPHA	0.0095			/* relative error of a bucket's midpoint */
#define HIST_GAMMA	((1 + HIST_ALPHA) / (1 - HIST_ALPHA))

void
hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = INFINITY;
	h->max = -INFINITY;
}

void
hist_add(struct hist *h, double ms)
{
	double i;
	long k;

	if (!(ms >= 0))
		ms = 0;
	i = ms <= HIST_MIN ? 0 : ceil(log(ms / HIST_MIN) / log(HIST_GAMMA));
	k = i >= HIST_BUCKETS ? HIST_BUCKETS - 1 : (long)i;
	h->b[k]++;
	h->n++;
	h->sum += ms;
	if (ms < h->min)
		h->min = ms;
	if (ms > h->max)
		h->max = ms;
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
	size_t i;

	if (src->n == 0)
		return;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double
hist_pct(const struct hist *h, double p)
{
	uint64_t rank, acc = 0;
	double v;
	size_t i;

	if (h->n == 0)
		return NAN;
	if (p >= 100)
		return h->max;
	if (p <= 0)
		return h->min;
	rank = (uint64_t)ceil(p / 100 * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		acc += h->b[i];
		if (acc >= rank)
			break;
	}
	if (i == HIST_BUCKETS)
		i--;
	v = HIST_MIN * 2 * pow(HIST_GAMMA, (double)i) / (HIST_GAMMA + 1);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}

/* JSON writer (after util-linux lib/jsonwrt.c) --------------------------- */

static void
jw_string(FILE *f, const char *s)
{
	const unsigned char *p;

	fputc('"', f);
	for (p = (const unsigned char *)s; *p; p++) {
		switch (*p) {
		case '"':  fputs("\\\"", f); break;
		case '\\': fputs("\\\\", f); break;
		case '\b': fputs("\\b", f); break;
		case '\f': fputs("\\f", f); break;
		case '\n': fputs("\\n", f); break;
		case '\r': fputs("\\r", f); break;
		case '\t': fputs("\\t", f); break;
		default:
			if (*p < 0x20 || *p == 0x7f)
				fprintf(f, "\\u%04x", *p);
			else
				fputc(*p, f);
		}
	}
	fputc('"', f);
}

static void
jw_key(struct jw *w, const char *key)
{
	if (w->count[w->depth]++ > 0)
		fputc(',', w->f);
	jw_string(w->f, key);
	fputc(':', w->f);
}

void
jw_begin(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	fputc('{', f);
}

void
jw_end(struct jw *w)
{
	fputs("}\n", w->f);
	fflush(w->f);
}

void
jw_obj(struct jw *w, const char *key)
{
	jw_key(w, key);
	fputc('{', w->f);
	if (w->depth < 7)
		w->count[++w->depth] = 0;
}

void
jw_obj_end(struct jw *w)
{
	fputc('}', w->f);
	if (w->depth > 0)
		w->depth--;
}

void
jw_str(struct jw *w, const char *key, const char *val)
{
	jw_key(w, key);
	if (val == NULL)
		fputs("null", w->f);
	else
		jw_string(w->f, val);
}

void
jw_int(struct jw *w, const char *key, long long val)
{
	jw_key(w, key);
	fprintf(w->f, "%lld", val);
}

void
jw_num(struct jw *w, const char *key, double val, int prec)
{
	jw_key(w, key);
	if (!isfinite(val))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.*f", prec, val);
}

void
jw_bool(struct jw *w, const char *key, int val)
{
	jw_key(w, key);
	fputs(val ? "true" : "false", w->f);
}

void
jw_null(struct jw *w, const char *key)
{
	jw_key(w, key);
	fputs("null", w->f);
}

void
jw_lat(struct jw *w, const char *key, const struct hist *h)
{
	jw_obj(w, key);
	jw_num(w, "p50", hist_pct(h, 50), 3);
	jw_num(w, "p95", hist_pct(h, 95), 3);
	jw_num(w, "p99", hist_pct(h, 99), 3);
	jw_num(w, "max", h->n ? h->max : NAN, 3);
	jw_num(w, "mean", h->n ? h->sum / (double)h->n : NAN, 3);
	jw_obj_end(w);
}

void
jw_head(struct jw *w, const char *helper, int ok, const char *error)
{
	jw_begin(w, stdout);
	jw_str(w, "helper", helper);
	jw_bool(w, "ok", ok);
	if (!ok)
		jw_str(w, "error", error != NULL && *error ? error : "failed");
}

void
stdout_close(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "cannot write to stdout");
}

/* worker pools ----------------------------------------------------------- */

void *
shm_alloc(size_t len)
{
	void *p;

	p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED)
		err(1, "cannot map %zu bytes of shared memory", len);
	return p;	/* zero-filled */
}

void
shm_free(void *p, size_t len)
{
	munmap(p, len);
}

void
pool_start(struct pool *p, int n, int (*fn)(struct pool *, int, void *), void *arg)
{
	pid_t pid;
	int i;

	memset(p, 0, sizeof(*p));
	if ((p->pids = calloc((size_t)n, sizeof(pid_t))) == NULL)
		err(1, "calloc");
	p->ready = shm_alloc(sizeof(int));
	if (pipe(p->gofd) == -1)
		err(1, "pipe");
	fflush(NULL);
	for (i = 0; i < n; i++) {
		if ((pid = fork()) == -1) {
			warn("fork (started %d of %d workers)", i, n);
			break;
		}
		if (pid == 0) {
			close(p->gofd[1]);
			_exit(fn(p, i, arg));
		}
		p->pids[i] = pid;
		p->n = i + 1;
	}
	close(p->gofd[0]);
	p->gofd[0] = -1;
}

void
pool_ready(struct pool *p)
{
	__atomic_add_fetch(p->ready, 1, __ATOMIC_SEQ_CST);
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
		if (r == 0)
			return g_stop ? -1 : 0;
		if (r < 0 && errno != EINTR)
			return -1;
	}
}

static int
pool_alive(struct pool *p)
{
	int i, alive = 0, st;

	for (i = 0; i < p->n; i++) {
		if (p->pids[i] <= 0)
			continue;
		if (waitpid(p->pids[i], &st, WNOHANG) == p->pids[i])
			p->pids[i] = -p->pids[i];
		else
			alive++;
	}
	return alive;
}

void
pool_wait_ready(struct pool *p, double timeout_s)
{
	double end = mono_s() + timeout_s;

	while (__atomic_load_n(p->ready, __ATOMIC_SEQ_CST) < p->n && !g_stop &&
	    mono_s() < end && pool_alive(p) > 0)
		sleep_ms(2);
}

void
pool_go(struct pool *p)
{
	if (p->gofd[1] >= 0)
		close(p->gofd[1]);
	p->gofd[1] = -1;
}

static void
pool_kill(struct pool *p, int sig)
{
	int i;

	for (i = 0; i < p->n; i++)
		if (p->pids[i] > 0)
			kill(p->pids[i], sig);
}

void
pool_join(struct pool *p, double hard_deadline)
{
	sig_atomic_t seen = 0;
	int killed = 0;

	pool_go(p);
	while (pool_alive(p) > 0) {
		if (g_stop != seen) {
			seen = g_stop;
			pool_kill(p, SIGTERM);
		}
		if (!killed && hard_deadline > 0 && mono_s() > hard_deadline) {
			warnx("workers still running at the deadline: killing them");
			pool_kill(p, SIGKILL);
			killed = 1;
		}
		sleep_ms(10);
	}
}

void
pool_free(struct pool *p)
{
	if (p->ready != NULL)
		shm_free((void *)p->ready, sizeof(int));
	free(p->pids);
	memset(p, 0, sizeof(*p));
}

/* processes and cgroups -------------------------------------------------- */

/* mount point of the first filesystem of type fstype (with superopt, if given) */
static int
find_mount(const char *fstype, const char *superopt, char *out, size_t len)
{
	FILE *f;
	char line[4096], mnt[4096], *sep, type[256], src[1024], opts[2048];
	int found = 0;

	if ((f = fopen("/proc/self/mountinfo", "r")) == NULL)
		return 0;
	while (!found && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%*s %*s %*s %*s %4095s", mnt) != 1)
			continue;
		if ((sep = strstr(line, " - ")) == NULL)
			continue;
		if (sscanf(sep + 3, "%255s %1023s %2047s", type, src, opts) != 3)
			continue;
		if (strcmp(type, fstype) != 0)
			continue;
		if (superopt != NULL) {
			char *tok, *save = NULL;
			int has = 0;

			for (tok = strtok_r(opts, ",", &save); tok; tok = strtok_r(NULL, ",", &save))
				if (strcmp(tok, superopt) == 0)
					has = 1;
			if (!has)
				continue;
		}
		if (strlen(mnt) < len) {
			strcpy(out, mnt);
			found = 1;
		}
	}
	fclose(f);
	return found;
}

static int
isdir(const char *p)
{
	struct stat st;

	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int
isfile(const char *p)
{
	return access(p, R_OK) == 0;
}

static int
path_join(char *out, size_t len, const char *a, const char *b)
{
	int n = snprintf(out, len, "%s%s%s", a, (b[0] == '/' || a[strlen(a) - 1] == '/') ? "" : "/",
	    b);

	return n >= 0 && (size_t)n < len ? 0 : -1;
}

/* the unit's cgroup path: systemctl when systemd runs, else /proc/<pid>/cgroup */
static int
unit_path(const char *unit, char *v2, size_t v2len, char *v1, size_t v1len)
{
	DIR *d;
	struct dirent *de;
	FILE *f;
	char file[300], line[4096], *path, *ctl, *base;
	int found = 0;

	v2[0] = v1[0] = '\0';
	if (isdir("/run/systemd/system") && strchr(unit, '\'') == NULL) {
		char cmd[1200];

		snprintf(cmd, sizeof(cmd),
		    "systemctl show -p ControlGroup --value -- '%s' 2>/dev/null", unit);
		if ((f = popen(cmd, "r")) != NULL) {
			if (fgets(line, sizeof(line), f) != NULL) {
				line[strcspn(line, "\n")] = '\0';
				if (line[0] == '/' && strlen(line) < v2len) {
					strcpy(v2, line);
					if (strlen(line) < v1len)
						strcpy(v1, line);
					found = 1;
				}
			}
			pclose(f);
		}
		if (found)
			return 0;
	}
	if ((d = opendir("/proc")) == NULL)
		return -1;
	while (!found && (de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(file, sizeof(file), "/proc/%s/cgroup", de->d_name);
		if ((f = fopen(file, "r")) == NULL)
			continue;
		while (fgets(line, sizeof(line), f) != NULL) {
			line[strcspn(line, "\n")] = '\0';
			if ((ctl = strchr(line, ':')) == NULL || (path = strchr(ctl + 1, ':')) == NULL)
				continue;
			*path++ = '\0';
			ctl++;
			base = strrchr(path, '/');
			base = base ? base + 1 : path;
			if (strcmp(base, unit) != 0)
				continue;
			if (*ctl == '\0' || strcmp(ctl, "name=systemd") == 0) {
				if (v2[0] == '\0' && strlen(path) < v2len)
					strcpy(v2, path);
			}
			if (strstr(ctl, "cpuacct") != NULL || strcmp(ctl, "name=systemd") == 0) {
				if ((v1[0] == '\0' || strstr(ctl, "cpuacct")) && strlen(path) < v1len)
					strcpy(v1, path);
			}
			found = 1;
		}
		fclose(f);
	}
	closedir(d);
	return found ? 0 : -1;
}

void
tgt_option(struct tgt *t, int ch, const char *arg)
{
	if (ch == 'p') {
		t->pid = (pid_t)opt_num('p', arg, 1, 1L << 30);
		snprintf(t->name, sizeof(t->name), "%d", (int)t->pid);
	} else {
		if (strlen(arg) >= sizeof(t->name))
			errx(EXIT_USAGE, "option -%c: too long", ch);
		strcpy(t->name, arg);
	}
	t->kind = (char)ch;
}

int
tgt_resolve(struct tgt *t, char *msg, size_t len)
{
	char m2[4096] = "", m1[4096] = "", p2[4096], p1[4096], buf[4096];
	int have2, have1;

	t->cg2[0] = t->cg1[0] = t->procs[0] = '\0';
	have2 = find_mount("cgroup2", NULL, m2, sizeof(m2));
	have1 = find_mount("cgroup", "cpuacct", m1, sizeof(m1));
	switch (t->kind) {
	case 'p':
		if (kill(t->pid, 0) == -1 && errno == ESRCH) {
			snprintf(msg, len, "no process %d", (int)t->pid);
			return -1;
		}
		return 0;
	case 'g':
		if (t->name[0] == '/' && isdir(t->name)) {
			snprintf(buf, sizeof(buf), "%s/cpu.stat", t->name);
			if (isfile(buf) && (!have1 || strncmp(t->name, m1, strlen(m1)) != 0))
				strcpy(t->cg2, t->name);
			else
				strcpy(t->cg1, t->name);
			strcpy(t->procs, t->name);
			return 0;
		}
		if (have2 && path_join(p2, sizeof(p2), m2, t->name) == 0 && isdir(p2))
			strcpy(t->cg2, p2);
		if (have1 && path_join(p1, sizeof(p1), m1, t->name) == 0 && isdir(p1))
			strcpy(t->cg1, p1);
		strcpy(t->procs, t->cg2[0] ? t->cg2 : t->cg1);
		if (t->procs[0] == '\0') {
			snprintf(msg, len, "no cgroup directory '%s'", t->name);
			return -1;
		}
		return 0;
	case 'u':
		if (unit_path(t->name, p2, sizeof(p2), p1, sizeof(p1)) == -1) {
			snprintf(msg, len, "cannot find the cgroup of unit '%s'", t->name);
			return -1;
		}
		if (have2 && p2[0] && path_join(buf, sizeof(buf), m2, p2) == 0 && isdir(buf))
			strcpy(t->cg2, buf);
		if (have1 && p1[0] && path_join(buf, sizeof(buf), m1, p1) == 0 && isdir(buf))
			strcpy(t->cg1, buf);
		strcpy(t->procs, t->cg2[0] ? t->cg2 : t->cg1);
		if (t->procs[0] == '\0') {
			snprintf(msg, len, "unit '%s' has cgroup '%s' but no such directory", t->name, p2);
			return -1;
		}
		return 0;
	}
	snprintf(msg, len, "no target");
	return -1;
}

struct pidv {
	pid_t	*v;
	size_t	n, cap;
};

static void
pidv_add(struct pidv *pv, pid_t pid)
{
	if (pv->n == pv->cap) {
		pv->cap = pv->cap ? pv->cap * 2 : 64;
		if ((pv->v = realloc(pv->v, pv->cap * sizeof(pid_t))) == NULL)
			err(1, "realloc");
	}
	pv->v[pv->n++] = pid;
}

static void
procs_walk(const char *dir, struct pidv *pv, int depth)
{
	char file[4400];
	FILE *f;
	DIR *d;
	struct dirent *de;
	long pid;

	snprintf(file, sizeof(file), "%s/cgroup.procs", dir);
	if ((f = fopen(file, "r")) != NULL) {
		while (fscanf(f, "%ld", &pid) == 1)
			pidv_add(pv, (pid_t)pid);
		fclose(f);
	}
	if (depth > 32 || (d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.' || de->d_type != DT_DIR)
			continue;
		snprintf(file, sizeof(file), "%s/%s", dir, de->d_name);
		procs_walk(file, pv, depth + 1);
	}
	closedir(d);
}

pid_t *
proc_tree(pid_t root, size_t *n)
{
	struct pidv all = { 0 }, par = { 0 }, out = { 0 };
	DIR *d;
	struct dirent *de;
	char file[300], buf[1024], *p;
	FILE *f;
	size_t i, j;
	long ppid;

	if ((d = opendir("/proc")) == NULL)
		err(1, "cannot open '/proc'");
	while ((de = readdir(d)) != NULL) {
		if (!isdigit((unsigned char)de->d_name[0]))
			continue;
		snprintf(file, sizeof(file), "/proc/%s/stat", de->d_name);
		if ((f = fopen(file, "r")) == NULL)
			continue;
		if (fgets(buf, sizeof(buf), f) != NULL && (p = strrchr(buf, ')')) != NULL &&
		    sscanf(p + 1, " %*c %ld", &ppid) == 1) {
			pidv_add(&all, (pid_t)atol(de->d_name));
			pidv_add(&par, (pid_t)ppid);
		}
		fclose(f);
	}
	closedir(d);
	if (kill(root, 0) == 0 || errno == EPERM)
		pidv_add(&out, root);
	for (i = 0; i < out.n; i++)	/* breadth first: out grows as children are found */
		for (j = 0; j < all.n; j++)
			if (par.v[j] == out.v[i] && all.v[j] != out.v[i])
				pidv_add(&out, all.v[j]);
	free(all.v);
	free(par.v);
	*n = out.n;
	return out.v;
}

pid_t *
tgt_pids(const struct tgt *t, size_t *n)
{
	struct pidv pv = { 0 };

	if (t->kind == 'p')
		return proc_tree(t->pid, n);
	procs_walk(t->procs, &pv, 0);
	*n = pv.n;
	return pv.v;
}
