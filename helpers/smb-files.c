/*
 * smb-files - create small files as fast as possible, then delete them all
 * Synopsis, options, defaults and units: usage_text below, which -h prints.
 */
#define _GNU_SOURCE
#include <err.h>
#include <stdio.h>
#include <errno.h>
#include <sys/stat.h>

#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "creds.h"
#include "hist.h"
#include "json.h"
#include "meas.h"
#include "pool.h"
#include "smbctx.h"
#include "smbpool.h"
#include "target.h"

#define TIMEOUT_MS	5000	/* every SMB request */
#define READY_S		10	/* set-up time the workers get */
#define MAX_FAIL_RUN	10	/* consecutive delete failures that end the delete phase */

struct slot {
	uint64_t	made;		/* files that exist (the open succeeded) */
	uint64_t	left;
	uint64_t	swept;		/* removed by the final sweep */
	int		folder;		/* the folder was made */
	int		checked;	/* left was counted on the server */
	int		cut;		/* the delete phase stopped at the hard deadline */
	int64_t		del_start, del_end;	/* 0: deleted nothing */
	struct meas	cm;		/* create phase */
	struct meas	dm;		/* delete phase */
};

struct run {
	struct creds	c;
	struct target	t;
	pid_t		parent;	/* names the folders, even if the parent dies */
	long		seconds;
	long		kib;
	struct slot	*slots;
	char		*buf;	/* what each file holds: made once before the fork, read only, so
				 * the workers share its pages (memory -s KiB, not -w times that) */
};

static const char usage_text[] =
"usage: smb-files [-h] [-A file] [-d seconds] [-s KiB] [-w workers] target_folder\n"
"Workers, each with its own connection and its own folder\n"
"target_folder/smb-files.PID.N, create files (create + write -s KiB + close,\n"
"one at a time) for -d s, then delete them all and their folders (signals\n"
"are blocked then, so the delete phase completes), and count what is left.\n"
CREDS_USAGE
"  -d seconds      length of the create phase, s (default 10)\n"
"  -h              print this help and exit\n"
"  -s KiB          bytes written into each file, KiB (default 4, at most 65536:\n"
"                  one buffer, shared by the workers)\n"
"  -w workers      worker processes (default 8)\n"
"  target_folder   //host[:port]/share[/folder]; the folder must exist\n"
TARGET_USAGE
MEAS_USAGE_TIMES
"The create rate is over the create window; the delete window runs from the\n"
"first delete to the last, over the workers that deleted something. Hard\n"
"deadline: a worker stops deleting 2 * -d + 15 s after the workers were\n"
"released (what is left is counted); workers alive 10 s later are killed.\n"
"The top-level ops, late_ops, errors, window_s, rate_per_s, per_s, lat_ms and\n"
"hist are the create phase's (create.ops, create.rate_per_s, create.lat_ms\n"
"repeat them).\n"
"Prints exactly one JSON line on stdout (keys: docs/CONTRACTS.md section 3),\n"
"diagnostics on stderr. Exit: 0 ok, 1 failed (the line says why), 2 usage.\n";


static int
file_url(const struct run *r, int i, uint64_t n, char *buf, size_t len)
{
	char rel[128];

	if (n == UINT64_MAX)
		snprintf(rel, sizeof(rel), "smb-files.%d.%d", (int)r->parent, i);
	else
		snprintf(rel, sizeof(rel), "smb-files.%d.%d/f%07llu", (int)r->parent, i,
		    (unsigned long long)n);
	return target_url(&r->t, rel, buf, len);
}

/* one create + write + close; 0 done, -1 failed with *what and errno in *e */
static int
create_one(SMBCCTX *ctx, struct slot *s, const char *url, const char *buf, size_t len,
    const char **what, int *e)
{
	SMBCFILE *f;
	size_t off = 0;
	ssize_t n;
	int rc = 0;

	f = smbc_getFunctionOpen(ctx)(ctx, url, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (f == NULL) {
		*what = "create";
		*e = errno;
		return -1;
	}
	s->made++;
	while (off < len) {
		n = smbc_getFunctionWrite(ctx)(ctx, f, buf + off, len - off);
		if (n <= 0) {
			*what = "write";
			*e = errno;
			rc = -1;
			break;
		}
		off += (size_t)n;
	}
	if (smbc_getFunctionClose(ctx)(ctx, f) != 0 && rc == 0) {
		*what = "close";
		*e = errno;
		rc = -1;
	}
	return rc;
}

/* removes whatever else is in the folder (a create that failed on our side may have
 * worked on the server); returns how many it removed */
static uint64_t
sweep(SMBCCTX *ctx, const struct run *r, int i, const char *dirurl)
{
	SMBCFILE *d;
	struct smbc_dirent *de;
	char names[64][NAME_MAX + 1], rel[NAME_MAX + 64], url[4096];
	uint64_t removed = 0;
	int n, k, round;

	for (round = 0; round < 100; round++) {	/* 64 names at a time */
		if ((d = smbc_getFunctionOpendir(ctx)(ctx, dirurl)) == NULL)
			break;
		n = 0;
		while (n < 64 && (de = smbc_getFunctionReaddir(ctx)(ctx, d)) != NULL)
			if (strcmp(de->name, ".") != 0 && strcmp(de->name, "..") != 0)
				snprintf(names[n++], sizeof(names[0]), "%s", de->name);
		smbc_getFunctionClosedir(ctx)(ctx, d);
		if (n == 0)
			break;
		for (k = 0; k < n; k++) {
			snprintf(rel, sizeof(rel), "smb-files.%d.%d/%.255s", (int)r->parent, i,
			    names[k]);
			target_url(&r->t, rel, url, sizeof(url));
			if (smbc_getFunctionUnlink(ctx)(ctx, url) == 0)
				removed++;
			else
				return removed;
		}
	}
	return removed;
}

static void
count_left(SMBCCTX *ctx, struct slot *s, const char *dirurl)
{
	SMBCFILE *d;
	struct smbc_dirent *de;

	if ((d = smbc_getFunctionOpendir(ctx)(ctx, dirurl)) == NULL)
		return;
	s->left = 1;	/* the folder itself */
	while ((de = smbc_getFunctionReaddir(ctx)(ctx, d)) != NULL)
		if (strcmp(de->name, ".") != 0 && strcmp(de->name, "..") != 0)
			s->left++;
	smbc_getFunctionClosedir(ctx)(ctx, d);
	s->checked = 1;
}

static int
worker(struct pool *p, int i, void *arg)
{
	struct run *r = arg;
	struct slot *s = &r->slots[i];
	SMBCCTX *ctx;
	char dirurl[4096], url[4096], msg[ERRLEN];
	const char *buf = r->buf;
	size_t len = (size_t)r->kib * 1024;
	int64_t t0, t1, deadline, hard;
	uint64_t n, fails = 0;
	const char *what = NULL;
	sigset_t block;
	int rc, e = 0, go;

	meas_init(p, i, &s->cm);
	hist_init(&s->dm.lat);
	hist_init(&s->dm.elat);
	if ((ctx = smbctx_new(&r->c, TIMEOUT_MS, msg, sizeof(msg))) == NULL) {
		meas_msg(&s->cm, msg);
		pool_ready(p);
		return 0;
	}
	file_url(r, i, UINT64_MAX, dirurl, sizeof(dirurl));
	if (smbc_getFunctionMkdir(ctx)(ctx, dirurl, 0755) == 0)
		s->folder = 1;
	else
		meas_note(&s->cm, "mkdir", errno);
	pool_ready(p);
	go = pool_wait_go(p) == 0;
	hard = (*p->go_ns ? *p->go_ns : mono_ns()) + (2 * r->seconds + 15) * 1000000000LL;
	if (go && s->folder) {
		deadline = *p->go_ns + (int64_t)r->seconds * 1000000000;
		while (!g_stop && (t0 = mono_ns()) < deadline) {
			file_url(r, i, s->made, url, sizeof(url));
			rc = create_one(ctx, s, url, buf, len, &what, &e);
			t1 = mono_ns();
			if (rc == 0)
				meas_ok(&s->cm, t0, t1, p);
			else if (!g_stop) {
				meas_fail(&s->cm, t0, t1, what, e);
				sleep_ms(10);
			}
		}
	}

	/* delete everything, whatever signals come now, until the hard deadline */
	signals_stop_set(&block);
	sigprocmask(SIG_BLOCK, &block, NULL);
	for (n = 0; n < s->made && fails < MAX_FAIL_RUN; n++) {
		if ((t0 = mono_ns()) >= hard) {
			s->cut = 1;
			break;
		}
		if (s->del_start == 0)
			s->del_start = t0;
		file_url(r, i, n, url, sizeof(url));
		rc = smbc_getFunctionUnlink(ctx)(ctx, url);
		e = errno;
		s->del_end = t1 = mono_ns();
		if (rc == 0) {
			meas_ok(&s->dm, t0, t1, p);
			fails = 0;
		} else {
			meas_fail(&s->dm, t0, t1, "delete", e);
			fails++;
		}
	}
	if (s->folder && mono_ns() < hard) {
		rc = smbc_getFunctionRmdir(ctx)(ctx, dirurl);
		if (rc != 0 && mono_ns() < hard && (s->swept = sweep(ctx, r, i, dirurl)) > 0) {
			warnx("worker %d: removed %llu files it had not counted", i,
			    (unsigned long long)s->swept);
			rc = smbc_getFunctionRmdir(ctx)(ctx, dirurl);
		}
		if (rc == 0) {
			s->left = 0;
			s->checked = 1;
		} else {
			meas_note(&s->dm, "rmdir", errno);
			if (mono_ns() < hard)
				count_left(ctx, s, dirurl);
		}
	} else if (s->folder)
		s->cut = 1;
	else
		s->checked = 1;
	smbctx_free(ctx);
	return 0;
}

/* one phase's object; with_hist: its histogram too (the delete phase's: the create phase's is the
 * line's own 'hist'), so the lines of several client hosts merge to exact percentiles */
static void
phase(struct jw *w, const char *key, const struct meas *m, int64_t start, int64_t end, int with_hist)
{
	double dur = start > 0 && end > start ? (double)(end - start) / 1e9 : 0;

	json_obj(w, key);
	json_int(w, "ops", (long long)m->ops);
	json_int(w, "errors", (long long)m->errors);
	json_num(w, "rate_per_s", dur > 0 ? (double)m->ops / dur : 0, 1);
	json_num(w, "duration_s", dur, 3);
	hist_lat_json(w, "lat_ms", &m->lat);
	if (with_hist)
		hist_json(w, "hist", &m->lat);
	json_obj_end(w);
}

int
main(int argc, char *argv[])
{
	struct run r;
	struct pool p;
	struct meas cm, dm, kinds;
	struct jw w;
	const char *cfile = NULL, *error = NULL;
	char perr[ERRLEN], probe[4096];
	long workers = 8;
	uint64_t left = 0, perdir = 0;
	int64_t ds = 0, de = 0, ce;
	int ch, i, ok, cut = 0;

	memset(&r, 0, sizeof(r));
	r.seconds = 10;
	r.kib = 4;
	while ((ch = getopt(argc, argv, "A:d:hs:w:")) != -1) {
		switch (ch) {
		case 'A': cfile = optarg; break;
		case 'd': r.seconds = opt_num('d', optarg, 1, 86400); break;
		case 'h': usage(usage_text, 1); break;
		case 's': r.kib = opt_num('s', optarg, 0, 65536); break;
		case 'w': workers = opt_num('w', optarg, 1, 4096); break;
		default: usage(usage_text, 0);
		}
	}
	if (argc - optind != 1)
		usage(usage_text, 0);
	if (target_parse(&r.t, argv[optind]) == -1)
		errx(EXIT_USAGE, "bad target '%s': want smb://host[:port]/share[/folder] or "
		    "//host[:port]/share[/folder]", argv[optind]);
	r.parent = getpid();
	/* the longest URL a worker makes must fit */
	if (file_url(&r, (int)workers, UINT64_MAX - 1, probe, sizeof(probe)) == -1)
		errx(EXIT_USAGE, "target '%.64s...' is too long", argv[optind]);
	creds_load(&r.c, cfile);
	signals_install();
	json_line_guard("smb-files");
	smbctx_home_setup();

	if ((r.buf = malloc(r.kib ? (size_t)r.kib * 1024 : 1)) == NULL)
		json_fatal("cannot allocate the %ld KiB of a file", r.kib);
	memset(r.buf, 'x', (size_t)r.kib * 1024);
	r.slots = pool_shm_alloc((size_t)workers * sizeof(struct slot));
	smbpool_run(&p, (int)workers, (int)r.seconds, worker, &r, &r.c, NULL, READY_S,
	    2 * r.seconds + 15 + 10);

	memset(&cm, 0, sizeof(cm));
	hist_init(&cm.lat);
	hist_init(&cm.elat);
	dm = cm;
	for (i = 0; i < (int)workers; i++) {
		struct slot *s = &r.slots[i];

		meas_merge(&cm, &s->cm);
		meas_merge(&dm, &s->dm);
		if (i >= p.started || WIFSIGNALED(p.status[i]) || !s->checked)
			left += s->made - s->dm.ops + (uint64_t)s->folder;	/* not counted */
		else
			left += s->left;
		if (s->made > perdir)
			perdir = s->made;
		if (s->del_start && (ds == 0 || s->del_start < ds))
			ds = s->del_start;
		if (s->del_end > de)
			de = s->del_end;
		cut |= s->cut;
	}
	kinds = cm;
	meas_merge_kinds(&kinds, &dm);
	error = meas_pool_error(&p, perr, sizeof(perr));
	if (error == NULL && cut)
		error = "the delete phase stopped at the hard deadline";
	if (error == NULL)
		error = meas_first_error(&kinds);
	ok = cm.ops + cm.late > 0 && left == 0 && meas_pool_error(&p, perr, sizeof(perr)) == NULL && !cut;
	if (!ok && error == NULL)
		error = left ? "files left behind" : "no file created";
	json_head(&w, "smb-files", ok, error);
	json_num(&w, "duration_s", (double)(mono_ns() - json_line_start_ns()) / 1e9, 3);
	json_int(&w, "workers", workers);
	json_int(&w, "ops", (long long)cm.ops);		/* the measured (create) phase's */
	json_int(&w, "errors", (long long)cm.errors);
	ce = *p.go_ns + (int64_t)(meas_window_s(&p, &cm) * 1e9);	/* create.duration_s = window_s */
	phase(&w, "create", &cm, *p.go_ns, ce, 0);
	phase(&w, "delete", &dm, ds, de, 1);
	json_int(&w, "files_per_folder", (long long)perdir);
	json_int(&w, "left_behind", (long long)left);
	json_bool(&w, "delete_cut", cut);
	meas_json(&w, &p, &kinds);
	json_str(&w, "first_error", meas_first_error(&kinds));
	json_end(&w);
	pool_free(&p);
	pool_shm_free(r.slots, (size_t)workers * sizeof(struct slot));
	free(r.buf);
	json_stdout_close();
	return ok ? 0 : 1;
}
