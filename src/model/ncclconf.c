/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* NCCL's conf files and its device lists (model/ncclconf.h). */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/ncclconf.h"
#include "source/source.h"
#include "util/util.h"

enum { NCCL_FIELD_MAX = 1023, NCCL_LINE_MAX = 4095 };

static bool conf_has(const struct rd_nccl_conf *c, const char *name)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->vars[i].name, name) == 0)
			return true;
	return false;
}

static void conf_line(struct rd_nccl_conf *c, const char *file, const char *line, size_t len)
{
	if (len > 0 && line[len - 1] == '\n')
		len--;
	if (len > 0 && line[len - 1] == '\r')
		len--;
	if (len == 0 || line[0] == '#')
		return;
	const char *eq = memchr(line, '=', len);
	if (!eq)
		return;
	size_t nlen = (size_t)(eq - line), vlen = len - nlen - 1;
	char *name = rd_xasprintf("%.*s", (int)(nlen < NCCL_FIELD_MAX ? nlen : NCCL_FIELD_MAX), line);
	if (!*name || conf_has(c, name)) { /* setenv(3) refuses an empty name; no overwrite */
		free(name);
		return;
	}
	c->vars = rd_xrealloc(c->vars, (c->n + 1) * sizeof *c->vars);
	c->vars[c->n++] = (struct rd_nccl_confvar){
		name, rd_xasprintf("%.*s", (int)(vlen < NCCL_FIELD_MAX ? vlen : NCCL_FIELD_MAX), eq + 1), file};
}

void rd_nccl_conf_parse(struct rd_nccl_conf *c, const char *file, const char *data, size_t len)
{
	size_t i = 0;
	while (i < len) {
		/* fgets with a 4096-byte buffer: a longer line is read as several */
		size_t start = i, n = 0;
		while (i < len && n < NCCL_LINE_MAX) {
			n++;
			if (data[i++] == '\n')
				break;
		}
		const char *nul = memchr(data + start, '\0', n); /* strlen() of what fgets read */
		conf_line(c, file, data + start, nul ? (size_t)(nul - (data + start)) : n);
	}
}

static void conf_file(struct rd_source *src, struct rd_nccl_conf *c, char *path)
{
	size_t k = c->nfiles++;
	c->files[k] = path;
	if (path[0] != '/') { /* NCCL would open it from the job's working directory: unknown here */
		c->errs[k] = EINVAL;
		return;
	}
	struct rd_text t = {0};
	const char *rel = path;
	while (*rel == '/')
		rel++;
	if (!*rel || rd_read_file(src, rel, RD_CAP_FILE, &t) < 0)
		c->errs[k] = *rel ? (t.err ? t.err : EIO) : EISDIR;
	else
		rd_nccl_conf_parse(c, path, t.data, t.len);
	rd_text_free(&t);
}

void rd_nccl_conf_load(struct rd_source *src, const char *conf_file_path, const char *home, struct rd_nccl_conf *c)
{
	memset(c, 0, sizeof *c);
	if (conf_file_path && *conf_file_path)
		conf_file(src, c, rd_xasprintf("%.1023s", conf_file_path));
	else if (home)
		conf_file(src, c, rd_xasprintf("%.1011s/.nccl.conf", home));
	conf_file(src, c, rd_xstrdup("/etc/nccl.conf"));
}

const char *rd_nccl_conf_get(const struct rd_nccl_conf *c, const char *name, const char **file)
{
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->vars[i].name, name) == 0) {
			if (file)
				*file = c->vars[i].file;
			return c->vars[i].value;
		}
	return NULL;
}

void rd_nccl_conf_free(struct rd_nccl_conf *c)
{
	for (size_t i = 0; i < c->n; i++) {
		free(c->vars[i].name);
		free(c->vars[i].value);
	}
	free(c->vars);
	for (size_t k = 0; k < c->nfiles; k++)
		free(c->files[k]);
	memset(c, 0, sizeof *c);
}

static bool environ_kept(const char *name, size_t n)
{
	return (n > 5 && memcmp(name, "NCCL_", 5) == 0) || (n == 4 && memcmp(name, "HOME", 4) == 0);
}

size_t rd_nccl_environ_parse(struct rd_nccl_conf *c, const char *label, const char *data, size_t len, char *kept)
{
	size_t out = 0;
	for (size_t i = 0; i < len;) {
		const char *nul = memchr(data + i, '\0', len - i);
		size_t n = nul ? (size_t)(nul - (data + i)) : len - i;
		const char *entry = data + i, *eq = memchr(entry, '=', n);
		i += n + 1;
		size_t nlen = eq ? (size_t)(eq - entry) : 0;
		if (!nlen || !environ_kept(entry, nlen))
			continue;
		char *name = rd_xasprintf("%.*s", (int)nlen, entry);
		if (conf_has(c, name)) {
			free(name);
			continue;
		}
		c->vars = rd_xrealloc(c->vars, (c->n + 1) * sizeof *c->vars);
		c->vars[c->n++] = (struct rd_nccl_confvar){name, rd_xasprintf("%.*s", (int)(n - nlen - 1), eq + 1), label};
		memcpy(kept + out, entry, n);
		out += n;
		kept[out++] = '\0';
	}
	return out;
}

void rd_nccl_environ_load(struct rd_source *src, int pid, struct rd_nccl_environ *e)
{
	memset(e, 0, sizeof *e);
	e->pid = pid > 0 ? pid : 0;
	if (!e->pid)
		return;
	snprintf(e->path, sizeof e->path, "/proc/%d/environ", e->pid);
	snprintf(e->label, sizeof e->label, "the environment of process %d", e->pid);
	struct rd_text t = {0};
	if (rd_read_file(src, e->path + 1, RD_CAP_FILE, &t) < 0) {
		e->err = t.err ? t.err : EIO;
	} else {
		char *kept = rd_xmalloc(t.len + 1);
		size_t klen = rd_nccl_environ_parse(&e->vars, e->label, t.data, t.len, kept);
		rd_source_redact(src, e->path + 1, kept, klen); /* a snapshot holds these entries only */
		free(kept);
	}
	rd_text_free(&t);
}

const char *rd_nccl_environ_get(const struct rd_nccl_environ *e, const char *name, const char **from)
{
	if (from)
		*from = NULL;
	if (!e || !e->pid) {
		const char *v = getenv(name);
		if (from && v)
			*from = "the environment";
		return v;
	}
	const char *v = rd_nccl_conf_get(&e->vars, name, NULL);
	if (from && v)
		*from = e->label;
	return v;
}

void rd_nccl_environ_free(struct rd_nccl_environ *e)
{
	rd_nccl_conf_free(&e->vars);
	memset(e, 0, sizeof *e);
}

void rd_nccl_list_parse(const char *value, struct rd_nccl_list *l)
{
	memset(l, 0, sizeof *l);
	if (!value || !*value)
		return;
	l->set = true;
	const char *s = value;
	if (*s == '^') {
		l->exclude = true;
		s++;
	}
	if (*s == '=') {
		l->exact = true;
		s++;
	}
	/* strtok_r on ',': empty entries vanish; strsep on ':' within an entry */
	while (*s && l->n < RD_NCCL_LIST_MAX) {
		size_t len = strcspn(s, ",");
		if (len) {
			const char *colon = memchr(s, ':', len);
			size_t plen = colon ? (size_t)(colon - s) : len;
			if (plen) {
				snprintf(l->e[l->n].prefix, sizeof l->e[l->n].prefix, "%.*s", (int)plen, s);
				l->e[l->n].port = -1;
				if (colon) {
					const char *p = colon + 1;
					size_t tlen = strcspn(p, ":,");
					if (tlen) {
						char num[32];
						snprintf(num, sizeof num, "%.*s", (int)(tlen < 31 ? tlen : 31), p);
						l->e[l->n].port = atoi(num);
					}
				}
				l->n++;
			}
		}
		s += len;
		while (*s == ',')
			s++;
	}
}

bool rd_nccl_list_entry_matches(const struct rd_nccl_list *l, int i, const char *name, int port)
{
	const char *ref = l->e[i].prefix;
	bool name_ok = l->exact ? strcmp(name, ref) == 0 : strncmp(name, ref, strlen(ref)) == 0;
	return name_ok && (port == -1 || l->e[i].port == -1 || port == l->e[i].port);
}

bool rd_nccl_list_selects(const struct rd_nccl_list *l, const char *name, int port)
{
	bool match = l->n == 0;
	for (int i = 0; i < l->n && !match; i++)
		match = rd_nccl_list_entry_matches(l, i, name, port);
	return match != l->exclude;
}

void rd_nccl_ifs_load(struct rd_source *src, const char *value, struct rd_nccl_ifs *ifs)
{
	memset(ifs, 0, sizeof *ifs);
	if (!value || strlen(value) <= 1)
		return;
	ifs->loaded = true;
	struct rd_nccl_list l;
	rd_nccl_list_parse(value, &l);
	int r = rd_list_dir(src, "sys/class/net", &ifs->all);
	if (r < 0) {
		ifs->err = -r;
		return;
	}
	for (size_t i = 0; i < ifs->all.n; i++) {
		const char *name = ifs->all.v[i];
		if (!rd_nccl_list_selects(&l, name, -1))
			continue;
		ifs->v = rd_xrealloc(ifs->v, (ifs->n + 1) * sizeof *ifs->v);
		struct rd_nccl_if *f = &ifs->v[ifs->n++];
		memset(f, 0, sizeof *f);
		f->name = rd_xstrdup(name);
		char *path = rd_xasprintf("sys/class/net/%s/flags", name);
		rd_attr_read(src, path, &f->flags);
		free(path);
		path = rd_xasprintf("sys/class/net/%s/operstate", name);
		rd_attr_read(src, path, &f->operstate);
		free(path);
		if (rd_attr_ok(&f->flags)) {
			char *end;
			errno = 0;
			f->flags_v = strtoul(f->flags.value, &end, 16);
			f->flags_ok = !errno && end != f->flags.value && !*end;
		}
	}
}

void rd_nccl_ifs_free(struct rd_nccl_ifs *ifs)
{
	for (size_t i = 0; i < ifs->n; i++) {
		free(ifs->v[i].name);
		rd_attr_free(&ifs->v[i].flags);
		rd_attr_free(&ifs->v[i].operstate);
	}
	free(ifs->v);
	rd_strv_free(&ifs->all);
	memset(ifs, 0, sizeof *ifs);
}

static bool pkey_value(const char *text, unsigned long *out)
{
	char *end;
	errno = 0;
	unsigned long v = strtoul(text, &end, 16);
	if (errno || end == text || *end)
		return false;
	*out = v;
	return true;
}

void rd_nccl_pkeys_load(struct rd_source *src, const struct rd_host *h, const char *value, struct rd_nccl_pkeys *pk)
{
	memset(pk, 0, sizeof *pk);
	if (!value || !*value)
		return;
	pk->loaded = true;
	errno = 0;
	long long n = strtoll(value, NULL, 0);
	bool parsed = !errno;
	if (!parsed)
		n = 0; /* NCCL's default */
	pk->index = (unsigned)(uint16_t)n;
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		if (d->node_type_v == 2 || d->node_type_v == 3)
			continue;
		for (size_t k = 0; k < d->nports; k++) {
			pk->v = rd_xrealloc(pk->v, (pk->n + 1) * sizeof *pk->v);
			struct rd_nccl_pkey_port *pp = &pk->v[pk->n++];
			memset(pp, 0, sizeof *pp);
			pp->dev = i;
			pp->port = k;
			pp->found = -1;
			char *path = rd_xasprintf("%s/pkeys/%u", d->ports[k].dir + 1, pk->index);
			rd_attr_read(src, path, &pp->entry);
			free(path);
			unsigned long pv;
			pp->valid = rd_attr_ok(&pp->entry) && pkey_value(pp->entry.value, &pv) && (pv & 0x7fff);
			if (pp->valid || n <= 0 || n > 0xffff)
				continue;
			/* the value as a P_Key: look for it in the table (128 entries at most) */
			for (int e = 0; e < 128 && pp->found < 0; e++) {
				struct rd_text t = {0};
				path = rd_xasprintf("%s/pkeys/%d", d->ports[k].dir + 1, e);
				int r = rd_read_attr(src, path, &t);
				free(path);
				if (r == 0 && pkey_value(t.data, &pv) && (pv & 0x7fff) && (pv & 0x7fff) == ((unsigned long)n & 0x7fff))
					pp->found = e;
				rd_text_free(&t);
				if (r < 0)
					break;
			}
		}
	}
}

void rd_nccl_pkeys_free(struct rd_nccl_pkeys *pk)
{
	for (size_t i = 0; i < pk->n; i++)
		rd_attr_free(&pk->v[i].entry);
	free(pk->v);
	memset(pk, 0, sizeof *pk);
}

int rd_nccl_topo_file_err(struct rd_source *src, const char *value)
{
	if (!value)
		return -1;
	if (value[0] != '/')
		return EINVAL; /* opened from the job's working directory: unknown here */
	const char *rel = value;
	while (*rel == '/')
		rel++;
	if (!*rel)
		return EISDIR;
	struct rd_text t = {0};
	int r = rd_read_prefix(src, rel, 64, &t);
	int err = r < 0 ? (t.err ? t.err : -r) : 0;
	rd_text_free(&t);
	return err;
}
