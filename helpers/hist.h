/*
 * hist.h - latency histogram, in milliseconds. Buckets grow by gamma =
 * 1.0095/0.9905, so the midpoint of a bucket is within 1 % of every value in
 * it; range 1 ns to about 2e6 ms, values outside are clamped into the end
 * buckets (min and max are kept exactly, and p0/p100 return them). Fixed
 * size, plain data: it can live in shared memory and is merged by adding
 * buckets.
 */
#ifndef HELPERS_HIST_H
#define HELPERS_HIST_H

#include <stdint.h>

#define HIST_BUCKETS	1500
struct hist {
	uint64_t	n;
	double		sum;
	double		min;
	double		max;
	uint64_t	b[HIST_BUCKETS];
};
void	hist_init(struct hist *h);
void	hist_add(struct hist *h, double ms);
void	hist_merge(struct hist *dst, const struct hist *src);
/* nearest-rank percentile (p in 0..100) within 1 %; NAN when empty */
double	hist_pct(const struct hist *h, double p);

struct jw;
/* key:{"p50","p95","p99","max","mean"} in ms, 4 decimals (0.1 us) */
void	hist_lat_json(struct jw *w, const char *key, const struct hist *h);
/*
 * key:{"unit":"us","gamma":G,"bounds":[...],"counts":[...]}: the non-empty
 * buckets only, each by its upper bound in us (6 significant digits); bucket i
 * holds the values in (bound/G, bound]; counts add up to n.
 */
void	hist_json(struct jw *w, const char *key, const struct hist *h);
double	hist_upper_ms(int i);	/* the upper bound of bucket i */

#endif
