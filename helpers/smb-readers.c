/*
 * smb-readers - many clients, each reading random blocks of one file
 * Synopsis, options, defaults and units: usage_text below, which -h prints.
 */
#define _GNU_SOURCE
#include <err.h>
#include <stdio.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
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
#define READY_S		15	/* set-up time the clients get */

struct slot {
	int		connected;
	int64_t		end;		/* when its last read ended */
	struct meas	m;
};

struct run {
	struct creds	c;
	char		url[4096];
	long		seconds;
	long		block;
	struct slot	*slots;
};

static const char usage_text[] =
"usage: smb-readers [-h] [-A file] [-b bytes] [-c clients] [-d seconds] [-g cgroup_dir | -p pid] target_file\n"
"Clients, each a process with its own connection (so its own smbd process),\n"
"connect and open the file; then together each reads -b bytes at random\n"
"-b-aligned offsets, one request at a time, for -d s.\n"
CREDS_USAGE
"  -b bytes        size of each read, bytes (default 4096)\n"
"  -c clients      client processes (default 1)\n"
"  -d seconds      length of the measured window, s (default 10)\n"
"  -g cgroup_dir   the server's cgroup (as cgcpu -g): its CPU time over the\n"
"                  measured window goes into server_cpu (default: not read)\n"
"  -h              print this help and exit\n"
"  -p pid          the same, of a process and its descendants, read from /proc\n"
"                  (as cgcpu -p; default: not read)\n"
"  target_file     //host[:port]/share/path/to/file (at least -b bytes)\n"
TARGET_USAGE
MEAS_USAGE_TIMES
"Prints exactly one JSON line on stdout (keys: docs/CONTRACTS.md section 3),\n"
"diagnostics on stderr. Exit: 0 ok, 1 failed (the line says why), 2 usage.\n";

static uint64_t
xorshift(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

static int
worker(struct pool *p, int i, void *arg)
{
	struct run *r = arg;
	struct slot *s = &r->slots[i];
	struct meas *m = &s->m;
	SMBCCTX *ctx;
	SMBCFILE *f = NULL;
	struct stat st;
	uint64_t rnd, blocks = 0;
	int64_t t0, deadline;
	char *buf = NULL, msg[ERRLEN];
	ssize_t n;
	off_t off;

	meas_init(p, i, m);
	rnd = (uint64_t)real_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)i;
	if (rnd == 0)
		rnd = 88172645463325252ULL;
	if ((ctx = smbctx_new(&r->c, TIMEOUT_MS, msg, sizeof(msg))) == NULL)
		meas_msg(m, msg);
	else if ((f = smbc_getFunctionOpen(ctx)(ctx, r->url, O_RDONLY, 0)) == NULL)
		meas_note(m, "open", errno);
	else if (smbc_getFunctionFstat(ctx)(ctx, f, &st) != 0)
		meas_note(m, "fstat", errno);
	else if ((blocks = (uint64_t)st.st_size / (uint64_t)r->block) == 0)
		meas_note(m, "file smaller than one block", EINVAL);
	else if ((buf = malloc((size_t)r->block)) == NULL)
		meas_note(m, "malloc", errno);
	else
		s->connected = 1;
	pool_ready(p);
	if (pool_wait_go(p) == 0 && s->connected) {
		deadline = *p->go_ns + (int64_t)r->seconds * 1000000000;
		while (!g_stop && (t0 = mono_ns()) < deadline) {
			off = (off_t)(xorshift(&rnd) % blocks) * r->block;
			if (smbc_getFunctionLseek(ctx)(ctx, f, off, SEEK_SET) != off) {
				if (!g_stop)
					meas_fail(m, t0, mono_ns(), "seek", errno);
				continue;
			}
			n = smbc_getFunctionRead(ctx)(ctx, f, buf, (size_t)r->block);
			if (n == r->block)
				meas_ok(m, t0, mono_ns(), p);
			else if (!g_stop) {
				meas_fail(m, t0, mono_ns(), "read", n < 0 ? errno : EIO);
				sleep_ms(10);
			}
		}
		s->end = mono_ns();
	}
	free(buf);
	if (f != NULL)
		smbc_getFunctionClose(ctx)(ctx, f);
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
	long clients = 1;
	double cdur, iops, min_iops = NAN, max_iops = NAN;
	int ch, i, connected = 0, ok;

	memset(&r, 0, sizeof(r));
	memset(&cg, 0, sizeof(cg));
	r.seconds = 10;
	r.block = 4096;
	while ((ch = getopt(argc, argv, "A:b:c:d:g:hp:")) != -1) {
		switch (ch) {
		case 'A': cfile = optarg; break;
		case 'b': r.block = opt_num('b', optarg, 1, 16 * 1024 * 1024); break;
		case 'c': clients = opt_num('c', optarg, 1, 4096); break;
		case 'd': r.seconds = opt_num('d', optarg, 1, 86400); break;
		case 'g':
		case 'p':
			cgtarget_option(&cg, ch, optarg, usage_text);
			break;
		case 'h': usage(usage_text, 1); break;
		default: usage(usage_text, 0);
		}
	}
	if (argc - optind != 1)
		usage(usage_text, 0);
	if (target_parse(&t, argv[optind]) == -1 || t.path[0] == '\0')
		errx(EXIT_USAGE, "bad target '%s': want smb://host[:port]/share/file or "
		    "//host[:port]/share/file", argv[optind]);
	if (target_url(&t, NULL, r.url, sizeof(r.url)) == -1)
		errx(EXIT_USAGE, "target '%.64s...' is too long", argv[optind]);
	creds_load(&r.c, cfile);
	signals_install();
	json_line_guard("smb-readers");
	smbctx_home_setup();

	r.slots = pool_shm_alloc((size_t)clients * sizeof(struct slot));
	smbpool_run(&p, (int)clients, (int)r.seconds, worker, &r, &r.c, &cg, READY_S,
	    r.seconds + TIMEOUT_MS / 1000 * 2 + 5);

	memset(&all, 0, sizeof(all));
	hist_init(&all.lat);
	hist_init(&all.elat);
	for (i = 0; i < (int)clients; i++) {
		struct slot *s = &r.slots[i];

		meas_merge(&all, &s->m);
		if (!s->connected)
			continue;
		connected++;
		cdur = s->end > *p.go_ns ? (double)(s->end - *p.go_ns) / 1e9 : 0;
		if (cdur > (double)p.window_ns / 1e9)
			cdur = (double)p.window_ns / 1e9;	/* its ops are those inside */
		iops = cdur > 0 ? (double)s->m.ops / cdur : 0;
		if (isnan(min_iops) || iops < min_iops)
			min_iops = iops;
		if (isnan(max_iops) || iops > max_iops)
			max_iops = iops;
	}
	error = meas_pool_error(&p, perr, sizeof(perr));
	ok = connected > 0 && all.ops + all.late > 0 && error == NULL;
	if (error == NULL)
		error = meas_first_error(&all);
	json_head(&w, "smb-readers", ok, error ? error : "no read succeeded");
	json_num(&w, "duration_s", (double)(mono_ns() - json_line_start_ns()) / 1e9, 3);
	json_int(&w, "clients", clients);
	json_int(&w, "connected", connected);
	json_int(&w, "ops", (long long)all.ops);
	json_int(&w, "errors", (long long)all.errors);
	meas_json(&w, &p, &all);
	json_obj(&w, "per_client");
	json_num(&w, "min_iops", min_iops, 1);
	json_num(&w, "max_iops", max_iops, 1);
	json_obj_end(&w);
	json_str(&w, "first_error", meas_first_error(&all));
	json_end(&w);
	pool_free(&p);
	pool_shm_free(r.slots, (size_t)clients * sizeof(struct slot));
	json_stdout_close();
	return ok ? 0 : 1;
}
