/*
 * json.c - one JSON object on one line (after util-linux lib/jsonwrt.c).
 */
#define _GNU_SOURCE
#include <err.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base.h"
#include "json.h"

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
jw_arr(struct jw *w, const char *key)
{
	jw_key(w, key);
	fputc('[', w->f);
	if (w->depth < 7)
		w->count[++w->depth] = 0;
}

void
jw_arr_end(struct jw *w)
{
	fputc(']', w->f);
	if (w->depth > 0)
		w->depth--;
}

static void
jw_sep(struct jw *w)
{
	if (w->count[w->depth]++ > 0)
		fputc(',', w->f);
}

void
jw_item_int(struct jw *w, long long val)
{
	jw_sep(w);
	fprintf(w->f, "%lld", val);
}

void
jw_item_num(struct jw *w, double val, int prec)
{
	jw_sep(w);
	if (!isfinite(val))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.*g", prec, val);
}

void
jw_item_str(struct jw *w, const char *val)
{
	jw_sep(w);
	jw_string(w->f, val);
}

void
jw_item_obj(struct jw *w)
{
	jw_sep(w);
	fputc('{', w->f);
	if (w->depth < 7)
		w->count[++w->depth] = 0;
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


/* the line guard: one line on every path past option parsing */
static const char	*guard_helper;
static pid_t		 guard_pid;
static int		 guard_done;
static int64_t		 guard_start;
static char		 guard_error[ERRLEN];

static void
guard_line(void)
{
	struct jw w;

	if (guard_helper == NULL || guard_done || getpid() != guard_pid)
		return;
	jw_head(&w, guard_helper, 0, guard_error[0] ? guard_error : "ended before its line");
	jw_num(&w, "duration_s", (double)(mono_ns() - guard_start) / 1e9, 3);
	jw_end(&w);
	fflush(stdout);
}

void
line_guard(const char *helper)
{
	guard_helper = helper;
	guard_pid = getpid();
	guard_start = mono_ns();
	atexit(guard_line);
}

int64_t
line_start_ns(void)
{
	return guard_start;
}

void
fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(guard_error, sizeof(guard_error), fmt, ap);
	va_end(ap);
	warnx("%s", guard_error);
	exit(1);
}

void
jw_head(struct jw *w, const char *helper, int ok, const char *error)
{
	if (getpid() == guard_pid)
		guard_done = 1;
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
