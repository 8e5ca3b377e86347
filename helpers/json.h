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
void	json_begin(struct jw *w, FILE *f);
void	json_end(struct jw *w);			/* "}\n" */
void	json_obj(struct jw *w, const char *key);
void	json_obj_end(struct jw *w);
/* arrays: json_arr(key), items, json_arr_end; json_item_obj opens an object closed by json_obj_end */
void	json_arr(struct jw *w, const char *key);
void	json_arr_end(struct jw *w);
void	json_item_int(struct jw *w, long long val);
void	json_item_num(struct jw *w, double val, int prec);	/* %.*g: prec significant digits */
void	json_item_str(struct jw *w, const char *val);
void	json_item_obj(struct jw *w);
void	json_str(struct jw *w, const char *key, const char *val);	/* NULL -> null */
void	json_int(struct jw *w, const char *key, long long val);
void	json_num(struct jw *w, const char *key, double val, int prec); /* non-finite -> null */
void	json_bool(struct jw *w, const char *key, int val);
void	json_null(struct jw *w, const char *key);
/*
 * The line guard, set right after option parsing: when the process that set it
 * exits without having printed its line (json_fatal(), err(), a failed set-up), an
 * atexit handler prints {"helper","ok":false,"error","duration_s"}.
 */
void	json_line_guard(const char *helper);
int64_t	json_line_start_ns(void);	/* mono_ns() when the guard was set: the run's start */
/* the error goes into the guard's line and on stderr; exit(1) */
void	json_fatal(const char *fmt, ...) __attribute__((noreturn, format(printf, 1, 2)));
/* starts the line with "helper","ok" and, when !ok, "error" */
void	json_head(struct jw *w, const char *helper, int ok, const char *error);
/* flushes stdout; err(1) when it could not be written */
void	json_stdout_close(void);

#endif
