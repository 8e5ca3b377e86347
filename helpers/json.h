/*
 * json.h - the helpers' one line: one JSON object, escaped strings, null for missing.
 */
#ifndef HELPERS_JSON_H
#define HELPERS_JSON_H

#include <stdint.h>
#include <stdio.h>

struct jw {
	FILE	*f;
	int	depth;
	int	count[8];
};
void	jw_begin(struct jw *w, FILE *f);
void	jw_end(struct jw *w);			/* "}\n" */
void	jw_obj(struct jw *w, const char *key);
void	jw_obj_end(struct jw *w);
/* arrays: jw_arr(key), items, jw_arr_end; jw_item_obj opens an object closed by jw_obj_end */
void	jw_arr(struct jw *w, const char *key);
void	jw_arr_end(struct jw *w);
void	jw_item_int(struct jw *w, long long val);
void	jw_item_num(struct jw *w, double val, int prec);	/* %.*g: prec significant digits */
void	jw_item_str(struct jw *w, const char *val);
void	jw_item_obj(struct jw *w);
void	jw_str(struct jw *w, const char *key, const char *val);	/* NULL -> null */
void	jw_int(struct jw *w, const char *key, long long val);
void	jw_num(struct jw *w, const char *key, double val, int prec); /* non-finite -> null */
void	jw_bool(struct jw *w, const char *key, int val);
void	jw_null(struct jw *w, const char *key);
/*
 * The line guard, set right after option parsing: when the process that set it
 * exits without having printed its line (fatal(), err(), a failed set-up), an
 * atexit handler prints {"helper","ok":false,"error","duration_s"}.
 */
void	line_guard(const char *helper);
int64_t	line_start_ns(void);	/* mono_ns() when the guard was set: the run's start */
/* the error goes into the guard's line and on stderr; exit(1) */
void	fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* starts the line with "helper","ok" and, when !ok, "error" */
void	jw_head(struct jw *w, const char *helper, int ok, const char *error);
/* flushes stdout; err(1) when it could not be written */
void	stdout_close(void);

#endif
