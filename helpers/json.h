/*
 * json.h - the helpers' one line: one JSON object, escaped strings, null for missing.
 */
#ifndef HELPERS_JSON_H
#define HELPERS_JSON_H

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
void	jw_str(struct jw *w, const char *key, const char *val);	/* NULL -> null */
void	jw_int(struct jw *w, const char *key, long long val);
void	jw_num(struct jw *w, const char *key, double val, int prec); /* non-finite -> null */
void	jw_bool(struct jw *w, const char *key, int val);
void	jw_null(struct jw *w, const char *key);
/* starts the line with "helper","ok" and, when !ok, "error" */
void	jw_head(struct jw *w, const char *helper, int ok, const char *error);
/* flushes stdout; err(1) when it could not be written */
void	stdout_close(void);

#endif
