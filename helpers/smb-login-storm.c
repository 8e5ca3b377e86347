/*
 * smb-login-storm - workers that log in and out as fast as they can
 * Synopsis, options, defaults and units: usage_text below, which -h prints.
 */
#define _GNU_SOURCE
#include <err.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "cgtarget.h"
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

struct run {
	struct creds	c;
	char		url[4096];
	long		seconds;
	struct meas	*slots;
};

static const char usage_text[] =
"usage: smb-login-storm [-h] [-A file] [-d seconds] [-g cgroup_dir | -p pid] [-w workers] target\n"
"Workers log in and out as fast as they can; a login is a new TCP connection,\n"
"negotiate, NTLMv2 session setup and tree connect (with libsmbclient's own\n"
"query of the share's attributes), no file operation, then the connection is\n"
"dropped (tree disconnect, close).\n"
CREDS_USAGE
"  -d seconds      length of the measured window, s (default 10)\n"
"  -g cgroup_dir   the server's cgroup (as cgcpu -g): its CPU time over the\n"
"                  measured window goes into server_cpu (default: not read)\n"
"  -h              print this help and exit\n"
"  -p pid          the same, of a process and its descendants, read from /proc\n"
"                  (as cgcpu -p; default: not read)\n"
"  -w workers      worker processes, each with its own client context\n"
"                  (default 8)\n"
"  target          //host[:port]/share (a path after the share is ignored)\n"
TARGET_USAGE
MEAS_USAGE_TIMES
"Prints exactly one JSON line on stdout (keys: docs/CONTRACTS.md section 3),\n"
"diagnostics on stderr. Exit: 0 ok, 1 failed (the line says why), 2 usage.\n";

static int
worker(struct pool *p, int i, void *arg)
{
	struct run *r = arg;
	struct meas *m = &r->slots[i];
	char msg[ERRLEN];
	SMBCCTX *ctx;
	int64_t t0, t1, deadline;
	int rc, e;

	meas_init(p, i, m);
	if ((ctx = smbctx_new(&r->c, TIMEOUT_MS, msg, sizeof(msg))) == NULL)
		meas_msg(m, msg);
	pool_ready(p);
	if (pool_wait_go(p) == -1 || ctx == NULL) {
		smbctx_free(ctx);
		return 0;
	}
	deadline = *p->go_ns + (int64_t)r->seconds * 1000000000;
	while (!g_stop && (t0 = mono_ns()) < deadline) {
		rc = smbctx_login(ctx, r->url);
		e = errno;
		t1 = mono_ns();		/* the latency is the login's; the disconnect follows */
		smbctx_purge(ctx);
		if (rc == 0)
			meas_ok(m, t0, t1, p);
		else if (!g_stop) {
			meas_fail(m, t0, t1, "login", e);
			sleep_ms(10);
		}
	}
	smbctx_free(ctx);
	return 0;
}

int
main(int argc, char *argv[])
{
	struct run r;
	struct target t;
	struct tgt cg;
	struct pool p;
	struct meas all;
	struct jw w;
	const char *cfile = NULL, *error;
	char perr[ERRLEN];
	long workers = 8;
	int ch, i, ok;

	memset(&r, 0, sizeof(r));
	memset(&cg, 0, sizeof(cg));
	r.seconds = 10;
	while ((ch = getopt(argc, argv, "A:d:g:hp:w:")) != -1) {
		switch (ch) {
		case 'A': cfile = optarg; break;
		case 'd': r.seconds = opt_num('d', optarg, 1, 86400); break;
		case 'g':
		case 'p':
			cgtarget_option(&cg, ch, optarg, usage_text);
			break;
		case 'h': usage(usage_text, 1); break;
		case 'w': workers = opt_num('w', optarg, 1, 4096); break;
		default: usage(usage_text, 0);
		}
	}
	if (argc - optind != 1)
		usage(usage_text, 0);
	if (target_parse(&t, argv[optind]) == -1)
		errx(EXIT_USAGE, "bad target '%s': want smb://host[:port]/share or //host[:port]/share",
		    argv[optind]);
	t.path[0] = '\0';	/* a login is to the share */
	if (target_url(&t, NULL, r.url, sizeof(r.url)) == -1)
		errx(EXIT_USAGE, "target '%.64s...' is too long", argv[optind]);
	creds_load(&r.c, cfile);
	signals_install();
	json_line_guard("smb-login-storm");
	smbctx_home_setup();

	r.slots = pool_shm_alloc((size_t)workers * sizeof(struct meas));
	smbpool_run(&p, (int)workers, (int)r.seconds, worker, &r, &r.c, &cg, READY_S,
	    r.seconds + TIMEOUT_MS / 1000 * 2 + 5);

	memset(&all, 0, sizeof(all));
	hist_init(&all.lat);
	hist_init(&all.elat);
	for (i = 0; i < (int)workers; i++)
		meas_merge(&all, &r.slots[i]);
	error = meas_pool_error(&p, perr, sizeof(perr));
	ok = all.ops + all.late > 0 && error == NULL;
	if (error == NULL)
		error = meas_first_error(&all);
	json_head(&w, "smb-login-storm", ok, error ? error : "no login succeeded");
	json_num(&w, "duration_s", (double)(mono_ns() - json_line_start_ns()) / 1e9, 3);
	json_int(&w, "workers", workers);
	json_int(&w, "ops", (long long)all.ops);
	json_int(&w, "errors", (long long)all.errors);
	meas_json(&w, &p, &all);
	json_str(&w, "first_error", meas_first_error(&all));
	json_end(&w);
	pool_free(&p);
	pool_shm_free(r.slots, (size_t)workers * sizeof(struct meas));
	json_stdout_close();
	return ok ? 0 : 1;
}
