/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Read errors: replayed from a snapshot's list, or remembered in this run (a port counter
 * that refused a read with EINVAL) (source-internal.h). */
#include "source/source-internal.h"

#include <fcntl.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* From now on, opening canonical path fails with err (without touching the file). */
void src_record_error(struct rd_map *m, const char *canonical, int err)
{
	*smap_put(m, rel(canonical), NULL) = (void *)(intptr_t)err;
}

int src_recorded_error(const struct rd_source *src, const char *canonical)
{
	void **v = smap_get(&src->errors, rel(canonical));
	if (!v)
		v = smap_get(&src->einval, rel(canonical));
	return v ? (int)(intptr_t)*v : 0;
}

/* The key of a file by its identity. */
static size_t file_key(const struct stat *st, char key[2 * sizeof(uint64_t)])
{
	uint64_t dev = (uint64_t)st->st_dev, ino = (uint64_t)st->st_ino;
	memcpy(key, &dev, sizeof dev);
	memcpy(key + sizeof dev, &ino, sizeof ino);
	return 2 * sizeof(uint64_t);
}

static int cmp_slot_keys(const void *a, const void *b)
{
	return strcmp((*(const struct rd_map_slot *const *)a)->key, (*(const struct rd_map_slot *const *)b)->key);
}

/* The same answer as src_recorded_error of the file's canonical path: a canonical path has no link,
 * ".", ".." or empty component, so the recorded path that is one (its directory opened with no link
 * followed, the file looked at in it) names the file read exactly when it is that file's canonical
 * path (or a hard link of it).  The recorded paths go in order, one open a directory. */
int src_recorded_error_of(struct rd_source *src, const struct stat *st)
{
	char key[2 * sizeof(uint64_t)];
	if (!src->error_files_made) {
		src->error_files_made = true;
		const struct rd_map_slot **v = rd_xmalloc((src->errors.n ? src->errors.n : 1) * sizeof *v);
		size_t n = 0;
		for (size_t i = 0; i < src->errors.cap; i++)
			if (src->errors.v[i].key)
				v[n++] = &src->errors.v[i];
		qsort(v, n, sizeof *v, cmp_slot_keys);
		char *dir = NULL;
		int dfd = -1;
		for (size_t i = 0; i < n; i++) {
			const char *p = v[i]->key, *slash = strrchr(p, '/');
			size_t dn = slash ? (size_t)(slash - p) : 0;
			if (!dir || strlen(dir) != dn || strncmp(dir, p, dn) != 0) {
				if (dfd >= 0 && dfd != src->fd)
					close(dfd);
				free(dir);
				dir = rd_xstrndup(p, dn);
				dfd = !slash ? src->fd : src_open_no_links(src, dir, O_PATH | O_DIRECTORY);
			}
			struct stat fst;
			const char *base = slash ? slash + 1 : p;
			/* (the file's name too: no "." or "..") */
			if (dfd >= 0 && src_plain_path(p) && fstatat(dfd, base, &fst, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(fst.st_mode))
				rd_map_put(&src->error_files, key, file_key(&fst, key), NULL)->val.p = v[i]->val.p;
		}
		if (dfd >= 0 && dfd != src->fd)
			close(dfd);
		free(dir);
		free(v);
	}
	const struct rd_map_slot *s = rd_map_get(&src->error_files, key, file_key(st, key));
	return s ? (int)(intptr_t)s->val.p : 0;
}

void src_load_read_errors(struct rd_source *src)
{
	struct rd_text t = {0};
	if (rd_read_file(src, READ_ERRORS_FILE, RD_CAP_FILE, &t) < 0)
		return;
	for (char *line = t.data; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		char *tab = strchr(line, '\t');
		if (tab) {
			*tab = '\0';
			int code = rd_errno_from_name(line);
			const char *p = tab + 1;
			while (*p == '/')
				p++;
			if (code && *p) {
				src_record_error(&src->errors, p, code);
				const char *base = strrchr(p, '/');
				smap_put(&src->error_bases, base ? base + 1 : p, NULL);
			}
		}
		line = nl ? nl + 1 : NULL;
	}
	rd_text_free(&t);
}

/* A failed read can be a replayed error only when some recorded path ends with the same name
 * (a missing "parent" or "has_smi" is not looked up by its canonical path). */
bool src_has_error_base(const struct rd_source *src, const char *path)
{
	const char *base = strrchr(path, '/');
	return smap_get(&src->error_bases, base ? base + 1 : path) != NULL;
}

/* Port counters: reading one makes the firmware answer a MAD on some HCAs, and one it refuses
 * (EINVAL) floods the kernel log each time, so a refusal is remembered for the rest of the run. */
bool src_is_counter_path(const char *canon)
{
	return strstr(canon, "/counters/") || strstr(canon, "/hw_counters/");
}

unsigned rd_source_einval_remembered(const struct rd_source *src)
{
	return src->einval_remembered;
}
