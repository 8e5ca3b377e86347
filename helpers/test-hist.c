/* test-hist - checks hist_pct against exact nearest-rank percentiles (make check) */
#define _DEFAULT_SOURCE
#include <err.h>
#include <stdio.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "hist.h"

static int
cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static double
exact(const double *s, size_t n, double p)
{
	size_t rank = (size_t)ceil(p / 100 * (double)n);

	if (rank < 1)
		rank = 1;
	return s[rank - 1];
}

int
main(void)
{
	static const double pcts[] = { 0, 1, 10, 25, 50, 75, 90, 95, 99, 99.9, 100 };
	enum { N = 200000, W = 8 };
	struct hist whole, part[W], merged;
	double *s, x, got, want, rel, worst = 0;
	size_t i, j, k, dist, fails = 0, n;

	if ((s = malloc(N * sizeof(*s))) == NULL)
		err(1, "malloc");
	srand48(42);
	for (dist = 0; dist < 4; dist++) {
		n = dist == 3 ? 7 : N;	/* the last case: a handful of samples */
		hist_init(&whole);
		hist_init(&merged);
		for (k = 0; k < W; k++)
			hist_init(&part[k]);
		for (i = 0; i < n; i++) {
			switch (dist) {
			case 0: x = 0.05 + drand48() * 20; break;		/* uniform */
			case 1: x = exp(drand48() * 14 - 7); break;	/* 1 us .. 1 s, log-uniform */
			case 2: x = -log(1 - drand48()) * 3 + (i % 100 == 0 ? 500 : 0); break;
			default: x = (double)(i + 1) * 1.7; break;
			}
			s[i] = x;
			hist_add(&whole, x);
			hist_add(&part[i % W], x);
		}
		for (k = 0; k < W; k++)
			hist_merge(&merged, &part[k]);
		if (memcmp(&merged.b, &whole.b, sizeof(whole.b)) != 0 || merged.n != whole.n)
			errx(1, "merge differs from the whole");
		qsort(s, n, sizeof(*s), cmp);
		for (j = 0; j < sizeof(pcts) / sizeof(pcts[0]); j++) {
			want = exact(s, n, pcts[j]);
			got = hist_pct(&merged, pcts[j]);
			rel = fabs(got - want) / want;
			if (rel > worst)
				worst = rel;
			if (rel > 0.01) {
				fprintf(stderr, "dist %zu p%g: got %g want %g (%.3f %%)\n",
				    dist, pcts[j], got, want, rel * 100);
				fails++;
			}
		}
	}
	/* merged buckets count past 2^32 (a long run of many workers) */
	hist_init(&whole);
	hist_init(&merged);
	whole.b[700] = UINT32_MAX;
	whole.n = UINT32_MAX;
	merged.b[700] = 10;
	merged.n = 10;
	hist_merge(&merged, &whole);
	if (merged.b[700] != (uint64_t)UINT32_MAX + 10)
		errx(1, "a merged bucket wrapped at 2^32");
	printf("test-hist: buckets count past 2^32: ok\n");
	hist_init(&whole);
	if (!isnan(hist_pct(&whole, 50)))
		errx(1, "empty histogram gives a number");
	free(s);
	printf("test-hist: %s, worst relative error %.4f %%\n", fails ? "FAIL" : "ok", worst * 100);
	return fails ? 1 : 0;
}
