/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
#include "source/watchdog.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "util/map.h"
#include "util/util.h"

/* ---- the run's log: what each read gave, for a takeover to answer the same ------------------- */

/* The entry of a path in the root, or of "\1" + a command's name. */
struct lent {
	int ret;            /* 0 or -errno */
	struct rd_text t;   /* data (when ret == 0), err, status */
	struct stat st;
	size_t cap;
	bool prefix_ok, single;
};

static struct rd_map log_map;

static struct lent *log_find(const char *key)
{
	struct rd_map_slot *s = rd_map_get(&log_map, key, strlen(key));
	return s ? s->val.p : NULL;
}

/* The entry of key, made (empty) when new; an existing one is replaced. */
static struct lent *log_put(const char *key)
{
	struct rd_map_slot *s = rd_map_put(&log_map, key, strlen(key), NULL);
	struct lent *e = s->val.p;
	if (e)
		rd_text_free(&e->t);
	else
		e = s->val.p = rd_xmalloc(sizeof *e);
	memset(e, 0, sizeof *e);
	return e;
}

static void lent_free(void *p)
{
	struct lent *e = p;
	rd_text_free(&e->t);
	free(e);
}

static void log_free(void)
{
	rd_map_free(&log_map, lent_free);
}

static void text_copy(struct rd_text *dst, const struct rd_text *src)
{
	*dst = *src;
	dst->data = NULL;
	if (src->data) {
		dst->data = rd_xmalloc(src->len + 1);
		memcpy(dst->data, src->data, src->len);
		dst->data[src->len] = '\0';
	}
}

/