/*
 * json.c - one JSON object on one line (after util-linux lib/jsonwrt.c).
 */
#define _GNU_SOURCE
#include <err.h>
#include <math.h>
#include <string.h>

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
