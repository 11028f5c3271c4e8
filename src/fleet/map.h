/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A string -> index hash map for the fleet (hosts, values).  Ownership: the map copies its keys
 * and owns them; values are the caller's indexes. */
#ifndef RD_FLEET_MAP_H
#define RD_FLEET_MAP_H
#include <stddef.h>

struct rd_fleet_map {
	char **keys;
	size_t *vals;
	size_t cap, n;
};

/* The value stored for key (len bytes), or NULL. */
size_t *rd_fleet_map_get(const struct rd_fleet_map *m, const char *key, size_t len);
/* Stores val for key (replacing any). */
void rd_fleet_map_put(struct rd_fleet_map *m, const char *key, size_t len, size_t val);
void rd_fleet_map_free(struct rd_fleet_map *m);

/* An array of n elements of sz bytes, grown (by doubling) to hold one more: the capacity follows
 * from n alone (4, 8, 16 ...), so appending stays linear in time (with ASan's realloc too). */
void *rd_fleet_grow(void *v, size_t n, size_t sz);

#endif
