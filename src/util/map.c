/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The string map (see map.h). */
#include "util/map.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

size_t rd_map_hash(const char *key, size_t len)
{
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)key[i]) * 1099511628211ull;
	return (size_t)(h ^ (h >> 29));
}

/* The slot holding key, or the empty slot where it would go (cap > 0). */
static size_t slot_of(const struct rd_map_slot *v, size_t cap, const char *key, size_t len)
{
	size_t i = rd_map_hash(key, len) & (cap - 1);
	while (v[i].key && !(v[i].len == len && memcmp(v[i].key, key, len) == 0))
		i = (i + 1) & (cap - 1);
	return i;
}

struct rd_map_slot *rd_map_get(const struct rd_map *m, const char *key, size_t len)
{
	if (!m->n)
		return NULL;
	struct rd_map_slot *s = &m->v[slot_of(m->v, m->cap, key, len)];
	return s->key ? s : NULL;
}

struct rd_map_slot *rd_map_put(struct rd_map *m, const char *key, size_t len, bool *isnew)
{
	if ((m->n + 1) * 4 > m->cap * 3) {
		size_t ncap = m->cap ? m->cap * 2 : 64;
		struct rd_map_slot *nv = rd_xcalloc(ncap, sizeof *nv);
		for (size_t i = 0; i < m->cap; i++)
			if (m->v[i].key)
				nv[slot_of(nv, ncap, m->v[i].key, m->v[i].len)] = m->v[i];
		free(m->v);
		m->v = nv;
		m->cap = ncap;
	}
	struct rd_map_slot *s = &m->v[slot_of(m->v, m->cap, key, len)];
	if (isnew)
		*isnew = !s->key;
	if (!s->key) {
		s->key = rd_xstrndup(key, len);
		s->len = len;
		memset(&s->val, 0, sizeof s->val);
		m->n++;
	}
	return s;
}

void rd_map_free(struct rd_map *m, void (*free_val)(void *))
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->v[i].key);
		if (free_val && m->v[i].key)
			free_val(m->v[i].val.p);
	}
	free(m->v);
	memset(m, 0, sizeof *m);
}
