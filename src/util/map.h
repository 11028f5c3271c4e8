/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A hash map from byte strings to a pointer or an index (FNV-1a, open addressing, grown when
 * 3/4 full), the one every module uses.  Zero-initialise; free with rd_map_free.
 * Ownership: the map copies its keys and owns them; a value is the caller's (rd_map_free frees
 * pointer values only when given a function for it). */
#ifndef RD_UTIL_MAP_H
#define RD_UTIL_MAP_H
#include <stdbool.h>
#include <stddef.h>

struct rd_map_slot {
	char *key; /* NUL-terminated copy of the len bytes; NULL: an empty slot */
	size_t len;
	union {
		void *p;
		size_t ix;
	} val;
};

struct rd_map {
	struct rd_map_slot *v;
	size_t cap, n; /* cap: 0 or a power of two */
};

/* The slot of key (len bytes), or NULL.  Valid until the next rd_map_put. */
struct rd_map_slot *rd_map_get(const struct rd_map *m, const char *key, size_t len);
/* The slot of key, inserted (a copy of key, value zero) when absent; *isnew (when not NULL)
 * says which.  Valid until the next rd_map_put. */
struct rd_map_slot *rd_map_put(struct rd_map *m, const char *key, size_t len, bool *isnew);
/* Frees the keys and, with free_val, each value's pointer; the map is empty again. */
void rd_map_free(struct rd_map *m, void (*free_val)(void *));
/* The map's hash of key (len bytes), for a cache of one's own keyed the same way. */
size_t rd_map_hash(const char *key, size_t len);

#endif
