/*
 * smb-bigdir - what a big folder costs: full listings, lookups of missing names and of
 * names in another case, and creates, timed one by one on one connection
 * Synopsis, options, defaults and units: usage_text below, which -h prints.
 */
#define _GNU_SOURCE
#include <err.h>
#include <math.h>
#include <stdio.h>
#include <errno.h>
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "creds.h"
#include "hist.h"
#include "json.h"
#include "smbctx.h"
#include "target.h"

#define TIMEOUT_MS	5000	/* every SMB request but a listing's */
#define LIST_TIMEOUT_MS	30000	/* a listing's: one QUERY_DIRECTORY answer of a big folder is slow */
#define NAMES_MAX	10000	/* names kept from the first listing for the other-case lookups */

static const char usage_text[] =
"usage: smb-bigdir [-h] [-A file] [-l listings] [-n ops] [-t seconds] target_folder\n"
"Measures what one folder's size costs, on one connection, in four phases:\n"
"  listing    a full listing: open the folder, read every entry (SMB2\n"
"             QUERY_DIRECTORY until no more entries), close it; -l times\n"
"  missing    open a name the folder does not have (each fails with \"not\n"
"             found\": one SMB2 CREATE), as Explorer and Office do constantly\n"
"  othercase  open (read-only) and close a name of the folder with the case\n"
"             of every letter swapped (the first listing's names, spread over\n"
"             the folder); on a case-sensitive share it is not found (counted\n"
"             in not_found, not an error)\n"
"  create     create a new file (create-only, fails if it exists) and close\n"
"             it; the files are left for the caller to remove\n"
"Each of the last three stops after -n operations or -t s, whichever is first.\n"
CREDS_USAGE
"  -h              print this help and exit\n"
"  -l listings     full listings (default 3); they stop after -t s too\n"
"  -n ops          operations of each other phase at most (default 100)\n"
"  -t seconds      time limit of each phase, s (default 5); a listing or\n"
"                  operation started before it ends\n"
"  target_folder   //host[:port]/share/folder: the big folder (it must exist)\n"
TARGET_USAGE
"Keys of each phase: ops (done), errors (failed other than as expected),\n"
"lat_ms {p50,p95,p99,max,mean} of each operation (a listing's: the whole\n"
"listing), window_s (the phase's time). listing also has entries (of the\n"
"last listing, without . and ..) and entries_per_s (entries / the median\n"
"listing's time); othercase found and not_found. opens is the CREATE requests\n"
"the client sent: one per listing and per operation, and the one libsmbclient\n"
"sends on connecting (the share's file-system attributes): smbd's Create count.\n"
"Every SMB request times out after 5 s, a listing's after 30 s (one answer of\n"
"a big folder's listing is slow to make).\n"
"Prints exactly one JSON line on stdout (keys: docs/CONTRACTS.md section 3),\n"
"diagnostics on stderr. Exit: 0 ok, 1 failed (the line says why), 2 usage.\n";

struct phase {
	const char	*name;
	uint64_t	ops, errors, found, not_found;
	double		window_s;
	struct hist	lat;
};

struct run {
	SMBCCTX		*ctx;
	struct target	t;
	long		listings, ops, seconds;
	uint64_t	entries, opens;
	char		**names;	/* the first listing's names (up to NAMES_MAX) */
	size_t		nnames;
	char		first_error[ERRLEN];
};

/* remember the first error message ("what: strerror(e)") */
static void
note_error(struct run *r, const char *what, int e)
{
	if (r->first_error[0] == '\0')
		errmsg(r->first_error, sizeof(r->first_error), what, e);
}

/* the URL of NAME in the folder; -1 when it does not fit */
static int
url_of(const struct run *r, const char *name, char *buf, size_t len)
{
	return target_url(&r->t, name, buf, len);
}

/* one full listing; keeps the names of the first; -1 on failure (errno) */
static int
list_once(struct run *r, const char *dirurl)
{
	SMBCFILE *d;
	struct smbc_dirent *de;
	uint64_t n = 0;
	int keep = r->names == NULL, e;

	if (keep && (r->names = calloc(NAMES_MAX, sizeof(char *))) == NULL)
		err(1, "calloc");
	r->opens++;
	if ((d = smbc_getFunctionOpendir(r->ctx)(r->ctx, dirurl)) == NULL)
		return -1;
	errno = 0;
	while ((de = smbc_getFunctionReaddir(r->ctx)(r->ctx, d)) != NULL) {
		if (strcmp(de->name, ".") == 0 || strcmp(de->name, "..") == 0)
			continue;
		n++;
		if (keep && de->smbc_type == SMBC_FILE && r->nnames < NAMES_MAX &&
		    (r->names[r->nnames] = strdup(de->name)) != NULL)
			r->nnames++;
	}
	e = errno;
	smbc_getFunctionClosedir(r->ctx)(r->ctx, d);
	r->entries = n;
	if (e != 0 && e != ENOENT) {
		errno = e;
		return -1;
	}
	return 0;
}

/* the other-case spelling of s into buf (ASCII letters swapped); 0 when s has no letter */
static int
swap_case(const char *s, char *buf, size_t len)
{
	size_t i;
	int letters = 0;

	for (i = 0; s[i] != '\0' && i + 1 < len; i++) {
		unsigned char c = (unsigned char)s[i];

		if (isascii(c) && isalpha(c)) {
			letters = 1;
			buf[i] = (char)(isupper(c) ? tolower(c) : toupper(c));
		} else
			buf[i] = (char)c;
	}
	buf[i] = '\0';
	return letters;
}

/*
 * One operation of phase p on the name of index k: 0 counted, 1 counted as
 * expected-not-found, -1 failed (errno).
 */
static int
op_once(struct run *r, const struct phase *p, long k, char *url, size_t len)
{
	char name[512];
	SMBCFILE *f;
	int flags = O_RDONLY;

	if (strcmp(p->name, "missing") == 0)
		snprintf(name, sizeof(name), "Kit-Missing-%ld-%ld.Docx", (long)getpid(), k);
	else if (strcmp(p->name, "create") == 0) {
		snprintf(name, sizeof(name), "Kit-New-%ld-%ld.Docx", (long)getpid(), k);
		flags = O_CREAT | O_EXCL | O_WRONLY;
	} else if (!swap_case(r->names[(size_t)k * r->nnames / (size_t)r->ops % r->nnames], name,
	    sizeof(name))) {
		errno = EINVAL;
		return -1;
	}
	if (url_of(r, name, url, len) == -1) {
		errno = ENAMETOOLONG;
		return -1;
	}
	r->opens++;
	f = smbc_getFunctionOpen(r->ctx)(r->ctx, url, flags, 0644);
	if (f == NULL)
		return errno == ENOENT && strcmp(p->name, "create") != 0 ? 1 : -1;
	if (smbc_getFunctionClose(r->ctx)(r->ctx, f) != 0)
		return -1;
	return 0;
}

/* run phase p (listing when dirurl is set): up to n operations in r->seconds */
static void
phase_run(struct run *r, struct phase *p, long n, const char *dirurl)
{
	char url[4096];
	int64_t start = mono_ns(), deadline = start + (int64_t)r->seconds * 1000000000, t0, t1;
	long k;
	int rc;

	hist_init(&p->lat);
	smbc_setTimeout(r->ctx, dirurl ? LIST_TIMEOUT_MS : TIMEOUT_MS);
	for (k = 0; k < n && !g_stop && mono_ns() < deadline; k++) {
		t0 = mono_ns();
		rc = dirurl ? list_once(r, dirurl) : op_once(r, p, k, url, sizeof(url));
		t1 = mono_ns();
		if (rc == -1) {
			p->errors++;
			note_error(r, p->name, errno);
			if (dirurl)
				break;	/* a folder that cannot be listed will not list next time */
			continue;
		}
		p->ops++;
		if (rc == 1)
			p->not_found++;
		else
			p->found++;
		hist_add(&p->lat, (double)(t1 - t0) / 1e6);
	}
	p->window_s = (double)(mono_ns() - start) / 1e9;
}

static void
phase_json(struct jw *w, const struct run *r, const struct phase *p)
{
	double med;

	json_obj(w, p->name);
	json_int(w, "ops", (long long)p->ops);
	json_int(w, "errors", (long long)p->errors);
	if (strcmp(p->name, "listing") == 0) {
		med = hist_pct(&p->lat, 50);
		json_int(w, "entries", (long long)r->entries);
		json_num(w, "entries_per_s", p->ops > 0 && med > 0 ? (double)r->entries / (med / 1e3) :
		    NAN, 6);
	} else if (strcmp(p->name, "othercase") == 0) {
		json_int(w, "found", (long long)p->found);
		json_int(w, "not_found", (long long)p->not_found);
	} else if (strcmp(p->name, "missing") == 0)
		json_int(w, "found", (long long)p->found);
	json_num(w, "window_s", p->window_s, 4);
	hist_lat_json(w, "lat_ms", &p->lat);
	json_obj_end(w);
}

int
main(int argc, char *argv[])
{
	struct creds c;
	struct run r = { .listings = 3, .ops = 100, .seconds = 5 };
	struct phase ph[] = { { .name = "listing" }, { .name = "missing" },
	    { .name = "othercase" }, { .name = "create" } };
	struct jw w;
	const char *cfile = NULL;
	char dirurl[4096], msg[ERRLEN] = "";
	int ch, ok;
	size_t i;

	while ((ch = getopt(argc, argv, "A:hl:n:t:")) != -1) {
		switch (ch) {
		case 'A': cfile = optarg; break;
		case 'h': usage(usage_text, 1); break;
		case 'l': r.listings = opt_num('l', optarg, 1, 1000); break;
		case 'n': r.ops = opt_num('n', optarg, 1, 1000000); break;
		case 't': r.seconds = opt_num('t', optarg, 1, 3600); break;
		default: usage(usage_text, 0);
		}
	}
	if (argc - optind != 1)
		usage(usage_text, 0);
	if (target_parse(&r.t, argv[optind]) == -1)
		errx(EXIT_USAGE, "bad target '%s': want smb://host[:port]/share/folder or //host[:port]/share/folder",
		    argv[optind]);
	if (target_url(&r.t, NULL, dirurl, sizeof(dirurl)) == -1)
		errx(EXIT_USAGE, "target '%.64s...' is too long", argv[optind]);
	creds_load(&c, cfile);
	signals_install();
	json_line_guard("smb-bigdir");
	smbctx_home_setup();
	r.ctx = smbctx_new(&c, TIMEOUT_MS, msg, sizeof(msg));
	smbctx_home_remove();
	if (r.ctx == NULL)
		json_fatal("%s", msg);

	phase_run(&r, &ph[0], r.listings, dirurl);
	/* on connecting, libsmbclient reads the share's file-system attributes: CREATE of its
	 * root, GETINFO, CLOSE (on the wire; once per connection) */
	if (ph[0].ops > 0)
		r.opens++;
	if (ph[0].ops == 0)
		snprintf(msg, sizeof(msg), "the folder could not be listed: %.200s", r.first_error);
	else {
		phase_run(&r, &ph[1], r.ops, NULL);
		if (r.nnames > 0)
			phase_run(&r, &ph[2], r.ops, NULL);
		else
			hist_init(&ph[2].lat);
		phase_run(&r, &ph[3], r.ops, NULL);
		if (g_stop)
			snprintf(msg, sizeof(msg), "stopped by a signal");
		else if (r.nnames == 0)
			snprintf(msg, sizeof(msg), "the folder has no file to look up in another case");
	}
	smbctx_free(r.ctx);
	creds_wipe(&c);	/* the context asks for them at its first connection */
	ok = msg[0] == '\0';

	json_head(&w, "smb-bigdir", ok, ok ? NULL : msg);
	json_bool(&w, "interrupted", g_stop != 0);
	json_num(&w, "duration_s", (double)(mono_ns() - json_line_start_ns()) / 1e9, 4);
	json_int(&w, "entries", (long long)r.entries);
	json_int(&w, "opens", (long long)r.opens);
	for (i = 0; i < sizeof(ph) / sizeof(ph[0]); i++)
		phase_json(&w, &r, &ph[i]);
	json_int(&w, "errors", (long long)(ph[0].errors + ph[1].errors + ph[2].errors + ph[3].errors));
	json_str(&w, "first_error", r.first_error[0] ? r.first_error : NULL);
	json_end(&w);
	json_stdout_close();
	for (i = 0; i < r.nnames; i++)
		free(r.names[i]);
	free(r.names);
	return ok ? 0 : 1;
}
