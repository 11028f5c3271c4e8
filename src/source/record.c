/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Recording what a run read, for snapshot (source-internal.h). */
#include "source/source-internal.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static struct rd_map *rec_index(struct rd_recording *rec)
{
	if (!rec->index)
		rec->index = rd_xcalloc(1, sizeof(struct rd_map));
	return rec->index;
}

/* The entry of canonical path, made (of kind NODE, nothing known) when new. */
static struct rd_rec_entry *rec_entry(struct rd_recording *rec, const char *path, bool *isnew)
{
	path = rel(path);
	if (strcmp(path, ".") == 0)
		path = "";
	void **slot = smap_put(rec_index(rec), path, isnew);
	if (!*isnew)
		return &rec->entries[(uintptr_t)*slot - 1];
	rec->entries = rd_grow(rec->entries, rec->n, sizeof *rec->entries);
	struct rd_rec_entry *e = &rec->entries[rec->n++];
	memset(e, 0, sizeof *e);
	e->path = rd_xstrdup(path);
	e->kind = RD_REC_NODE;
	*slot = (void *)(uintptr_t)rec->n;
	return e;
}

static void rec_stat(struct rd_rec_entry *e, const struct stat *st)
{
	if (st && st->st_mode) {
		e->mode = st->st_mode;
		e->uid = st->st_uid;
		e->gid = st->st_gid;
	}
}

/* kind: what was met.  A FILE read replaces a NODE or DIR met before (a later read of a listed or
 * stat'ed path) and a FORGOTTEN one (read again: its bytes are used after all); a DIR listed
 * replaces a NODE; an ERROR replaces a NODE; else the first is kept. */
void src_record(struct rd_source *src, const char *canon, enum rd_rec_kind kind, const char *data, size_t len,
		int err, const struct stat *st)
{
	if (!src->rec || src->in_command || !canon)
		return;
	bool isnew;
	struct rd_rec_entry *e = rec_entry(src->rec, canon, &isnew);
	bool take = isnew || (e->kind == RD_REC_NODE && kind != RD_REC_NODE) ||
		    (kind == RD_REC_FILE && (e->kind == RD_REC_DIR || e->kind == RD_REC_FORGOTTEN));
	if (!take) {
		if (!e->mode)
			rec_stat(e, st);
		return;
	}
	free(e->data);
	e->data = NULL;
	e->len = 0;
	e->kind = kind;
	e->err = err;
	if (data) {
		e->data = rd_xmalloc(len + 1);
		memcpy(e->data, data, len);
		e->data[len] = '\0';
		e->len = len;
	}
	rec_stat(e, st);
}

void src_record_stat(struct rd_source *src, const char *canon, const struct stat *st, const char *link_target)
{
	if (S_ISLNK(st->st_mode))
		src_record(src, canon, RD_REC_LINK, link_target, link_target ? strlen(link_target) : 0, 0, st);
	else
		src_record(src, canon, S_ISDIR(st->st_mode) ? RD_REC_DIR : RD_REC_NODE, NULL, 0, 0, st);
}

void src_record_command(struct rd_source *src, const char *name, const struct rd_text *t)
{
	struct rd_recording *rec = src->rec;
	if (!rec)
		return;
	rec->commands = rd_grow(rec->commands, rec->ncommands, sizeof *rec->commands);
	struct rd_rec_command *c = &rec->commands[rec->ncommands++];
	c->name = rd_xstrdup(name);
	c->out = *t;
	c->out.data = NULL;
	if (t->data) {
		c->out.data = rd_xmalloc(t->len + 1);
		memcpy(c->out.data, t->data, t->len);
		c->out.data[t->len] = '\0';
	}
}

void rd_source_record(struct rd_source *src, struct rd_recording *rec)
{
	src->rec = rec;
	/* directories resolved before were walked unrecorded: walk them again for their links */
	smap_free(&src->dirs, true);
}

void rd_recording_free(struct rd_recording *rec)
{
	if (!rec)
		return;
	for (size_t i = 0; i < rec->n; i++) {
		free(rec->entries[i].path);
		free(rec->entries[i].data);
	}
	for (size_t i = 0; i < rec->ncommands; i++) {
		free(rec->commands[i].name);
		rd_text_free(&rec->commands[i].out);
	}
	free(rec->entries);
	free(rec->commands);
	if (rec->index) {
		smap_free(rec->index, false);
		free(rec->index);
	}
	memset(rec, 0, sizeof *rec);
}

void rd_source_forget(struct rd_source *src, const char *path)
{
	if (!src->rec)
		return;
	char *canon = NULL;
	/* a file that is gone since it was read (the comm of a process that has exited) no longer
	 * resolves: it was recorded under its own name, which is then the key */
	if (src_resolve(src, path, true, &canon) < 0) {
		free(canon);
		canon = rd_xstrdup(path);
	}
	const char *key = rel(canon);
	void **slot = smap_get(rec_index(src->rec), strcmp(key, ".") == 0 ? "" : key);
	if (slot) {
		struct rd_rec_entry *e = &src->rec->entries[(uintptr_t)*slot - 1];
		if (e->kind == RD_REC_FILE) {
			free(e->data);
			e->data = NULL;
			e->len = 0;
			e->kind = RD_REC_FORGOTTEN;
		}
	}
	free(canon);
}

void rd_source_redact(struct rd_source *src, const char *path, const char *data, size_t len)
{
	if (!src->rec)
		return;
	char *canon = NULL;
	/* a file that is gone since it was read (the comm of a process that has exited) no longer
	 * resolves: it was recorded under its own name, which is then the key */
	if (src_resolve(src, path, true, &canon) < 0) {
		free(canon);
		canon = rd_xstrdup(path);
	}
	const char *key = rel(canon);
	void **slot = smap_get(rec_index(src->rec), strcmp(key, ".") == 0 ? "" : key);
	if (slot) {
		struct rd_rec_entry *e = &src->rec->entries[(uintptr_t)*slot - 1];
		if (e->kind == RD_REC_FILE) {
			free(e->data);
			e->data = rd_xmalloc(len + 1);
			memcpy(e->data, data, len);
			e->data[len] = '\0';
			e->len = len;
		}
	}
	free(canon);
}
