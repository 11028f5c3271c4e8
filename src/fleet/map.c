/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* String -> index hash map: FNV-1a, open addressing, grown at 70 % (see map.h). */
#include "fleet/map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

static uint64_t hash(const char *s, size_t len)
{
	uint64_t h = 1469598103934665603ull;
	for (size_t i = 0; i < len; i++) {
		h ^= (unsigned char)s[i];
		h *= 1099511628211ull;
	}
	return h;
}

static size_t slot(const struct rd_fleet_map *m, const char *key, size_t len)
{
	size_t i = (size_t)hash(key, len) & (m->cap - 1);
	while (m->keys[i] && !(strlen(m->keys[i]) == len && memcmp(m->keys[i], key, len) == 0))
		i = (i + 1) & (m->cap - 1);
	return i;
}

size_t *rd_fleet_map_get(const struct rd_fleet_map *m, const char *key, size_t len)
{
	if (!m->cap)
		return NULL;
	size_t i = slot(m, key, len);
	return m->keys[i] ? &m->vals[i] : NULL;
}

void rd_fleet_map_put(struct rd_fleet_map *m, const char *key, size_t len, size_t val)
{
	if ((m->n + 1) * 10 >= m->cap * 7) {
		struct rd_fleet_map g = {.cap = m->cap ? m->cap * 2 : 64};
		g.keys = rd_xcalloc(g.cap, sizeof *g.keys);
		g.vals = rd_xcalloc(g.cap, sizeof *g.vals);
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t j = slot(&g, m->keys[i], strlen(m->keys[i]));
				g.keys[j] = m->keys[i];
				g.vals[j] = m->vals[i];
			}
		g.n = m->n;
		free(m->keys);
		free(m->vals);
		*m = g;
	}
	size_t i = slot(m, key, len);
	if (!m->keys[i]) {
		m->keys[i] = rd_xstrndup(key, len);
		m->n++;
	}
	m->vals[i] = val;
}

void rd_fleet_map_free(struct rd_fleet_map *m)
{
	for (size_t i = 0; i < m->cap; i++)
		free(m->keys[i]);
	free(m->keys);
	free(m->vals);
	memset(m, 0, sizeof *m);
}

void *rd_fleet_grow(void *v, size_t n, size_t sz)
{
	if (n == 0)
		return rd_xrealloc(v, 4 * sz);
	if (n >= 4 && (n & (n - 1)) == 0)
		return rd_xrealloc(v, 2 * n * sz);
	return v;
}
