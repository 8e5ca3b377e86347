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
json_string(FILE *f, const char *s)
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
json_key(struct jw *w, const char *key)
{
	if (w->count[w->depth]++ > 0)
		fputc(',', w->f);
	json_string(w->f, key);
	fputc(':', w->f);
}

void
json_begin(struct jw *w, FILE *f)
{
	memset(w, 0, sizeof(*w));
	w->f = f;
	fputc('{', f);
}

void
json_end(struct jw *w)
{
	fputs("}\n", w->f);
	fflush(w->f);
}

void
json_obj(struct jw *w, const char *key)
{
	json_key(w, key);
	fputc('{', w->f);
	if (w->depth < 7)
		w->count[++w->depth] = 0;
}

void
json_obj_end(struct jw *w)
{
	fputc('}', w->f);
	if (w->depth > 0)
		w->depth--;
}

void
json_arr(struct jw *w, const char *key)
{
	json_key(w, key);
	fputc('[', w->f);
	if (w->depth < 7)
		w->count[++w->depth] = 0;
}

void
json_arr_end(struct jw *w)
{
	fputc(']', w->f);
	if (w->depth > 0)
		w->depth--;
}

static void
json_sep(struct jw *w)
{
	if (w->count[w->depth]++ > 0)
		fputc(',', w->f);
}

void
json_item_int(struct jw *w, long long val)
{
	json_sep(w);
	fprintf(w->f, "%lld", val);
}

void
json_item_num(struct jw *w, double val, int prec)
{
	json_sep(w);
	if (!isfinite(val))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.*g", prec, val);
}

void
json_item_str(struct jw *w, const char *val)
{
	json_sep(w);
	json_string(w->f, val);
}

void
json_item_obj(struct jw *w)
{
	json_sep(w);
	fputc('{', w->f);
	if (w->depth < 7)
		w->count[++w->depth] = 0;
}

void
json_str(struct jw *w, const char *key, const char *val)
{
	json_key(w, key);
	if (val == NULL)
		fputs("null", w->f);
	else
		json_string(w->f, val);
}

void
json_int(struct jw *w, const char *key, long long val)
{
	json_key(w, key);
	fprintf(w->f, "%lld", val);
}

void
json_num(struct jw *w, const char *key, double val, int prec)
{
	json_key(w, key);
	if (!isfinite(val))
		fputs("null", w->f);
	else
		fprintf(w->f, "%.*f", prec, val);
}

void
json_bool(struct jw *w, const char *key, int val)
{
	json_key(w, key);
	fputs(val ? "true" : "false", w->f);
}

void
json_null(struct jw *w, const char *key)
{
	json_key(w, key);
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
	json_head(&w, guard_helper, 0, guard_error[0] ? guard_error : "ended before its line");
	json_num(&w, "duration_s", (double)(mono_ns() - guard_start) / 1e9, 3);
	json_end(&w);
	fflush(stdout);
}

void
json_line_guard(const char *helper)
{
	guard_helper = helper;
	guard_pid = getpid();
	guard_start = mono_ns();
	atexit(guard_line);
}

int64_t
json_line_start_ns(void)
{
	return guard_start;
}

void
json_fatal(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(guard_error, sizeof(guard_error), fmt, ap);
	va_end(ap);
	warnx("%s", guard_error);
	exit(1);
}

void
json_head(struct jw *w, const char *helper, int ok, const char *error)
{
	if (getpid() == guard_pid)
		guard_done = 1;
	json_begin(w, stdout);
	json_str(w, "helper", helper);
	json_bool(w, "ok", ok);
	if (!ok)
		json_str(w, "error", error != NULL && *error ? error : "failed");
}

void
json_stdout_close(void)
{
	if (fflush(stdout) == EOF || ferror(stdout))
		err(1, "cannot write to stdout");
}
