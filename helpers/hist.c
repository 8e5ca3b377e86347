/*
 * hist.c - the log-bucketed latency histogram (see hist.h).
 */
#define _GNU_SOURCE
#include <math.h>
#include <string.h>

#include "hist.h"
#include "json.h"

#define HIST_MIN	1e-6			/* ms: 1 ns */
#define HIST_ALPHA	0.0095			/* relative error of a bucket's midpoint */
#define HIST_GAMMA	((1 + HIST_ALPHA) / (1 - HIST_ALPHA))

void
hist_init(struct hist *h)
{
	memset(h, 0, sizeof(*h));
	h->min = INFINITY;
	h->max = -INFINITY;
}

void
hist_add(struct hist *h, double ms)
{
	double i;
	long k;

	if (!(ms >= 0))
		ms = 0;
	i = ms <= HIST_MIN ? 0 : ceil(log(ms / HIST_MIN) / log(HIST_GAMMA));
	k = i >= HIST_BUCKETS ? HIST_BUCKETS - 1 : (long)i;
	h->b[k]++;
	h->n++;
	h->sum += ms;
	if (ms < h->min)
		h->min = ms;
	if (ms > h->max)
		h->max = ms;
}

void
hist_merge(struct hist *dst, const struct hist *src)
{
	size_t i;

	if (src->n == 0)
		return;
	for (i = 0; i < HIST_BUCKETS; i++)
		dst->b[i] += src->b[i];
	dst->n += src->n;
	dst->sum += src->sum;
	if (src->min < dst->min)
		dst->min = src->min;
	if (src->max > dst->max)
		dst->max = src->max;
}

double
hist_pct(const struct hist *h, double p)
{
	uint64_t rank, acc = 0;
	double v;
	size_t i;

	if (h->n == 0)
		return NAN;
	if (p >= 100)
		return h->max;
	if (p <= 0)
		return h->min;
	rank = (uint64_t)ceil(p / 100 * (double)h->n);
	if (rank < 1)
		rank = 1;
	for (i = 0; i < HIST_BUCKETS; i++) {
		acc += h->b[i];
		if (acc >= rank)
			break;
	}
	if (i == HIST_BUCKETS)
		i--;
	v = HIST_MIN * 2 * pow(HIST_GAMMA, (double)i) / (HIST_GAMMA + 1);
	if (v < h->min)
		v = h->min;
	if (v > h->max)
		v = h->max;
	return v;
}


void
hist_lat_json(struct jw *w, const char *key, const struct hist *h)
{
	json_obj(w, key);
	json_num(w, "p50", hist_pct(h, 50), 4);
	json_num(w, "p95", hist_pct(h, 95), 4);
	json_num(w, "p99", hist_pct(h, 99), 4);
	json_num(w, "max", h->n ? h->max : NAN, 4);
	json_num(w, "mean", h->n ? h->sum / (double)h->n : NAN, 4);
	json_obj_end(w);
}

double
hist_upper_ms(int i)
{
	return HIST_MIN * pow(HIST_GAMMA, (double)i);
}

void
hist_json(struct jw *w, const char *key, const struct hist *h)
{
	int i;

	json_obj(w, key);
	json_str(w, "unit", "us");
	json_num(w, "gamma", HIST_GAMMA, 6);
	json_arr(w, "bounds");
	for (i = 0; i < HIST_BUCKETS; i++)
		if (h->b[i])
			json_item_num(w, hist_upper_ms(i) * 1000, 6);
	json_arr_end(w);
	json_arr(w, "counts");
	for (i = 0; i < HIST_BUCKETS; i++)
		if (h->b[i])
			json_item_int(w, (long long)h->b[i]);
	json_arr_end(w);
	json_obj_end(w);
}
