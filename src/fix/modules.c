/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The plan of `fix modules`: the guide's "universal fix" (all nine modules in
 * /etc/modules-load.d/rdma.conf) and nvidia_peermem after ib_core, keeping every line, comment
 * and order the operator already had. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/fix.h"

#define ETC "etc/modules-load.d"

void rd_fix_plan_free(struct rd_fix_plan *p)
{
	for (size_t i = 0; i < p->nfiles; i++) {
		free(p->files[i].dir);
		free(p->files[i].name);
		free(p->files[i].old);
		free(p->files[i].new);
		free(p->files[i].why);
	}
	free(p->files);
	rd_strv_free(&p->load);
	rd_strv_free(&p->notes);
	rd_strv_free(&p->errors);
	memset(p, 0, sizeof *p);
}

/* The working view: every modules-load.d file by name with the text that will be in effect. */
struct view_file {
	char *name;
	int rank;             /* of the effective file; 0 = /etc */
	const char *path;     /* host path of the effective file */
	char *text;           /* its text (possibly changed by the plan) */
	size_t len;           /* bytes in text (the file as read may hold NUL bytes) */
	bool changed, in_etc, unparseable;
	char *from;           /* lower-precedence file copied into a new /etc override, or NULL */
	char *why;            /* what the plan does to it */
};

struct view {
	struct view_file *f;
	size_t n;
};

static struct view_file *view_get(struct view *v, const char *name)
{
	for (size_t i = 0; i < v->n; i++)
		if (strcmp(v->f[i].name, name) == 0)
			return &v->f[i];
	return NULL;
}

static struct view_file *view_add(struct view *v, const char *name)
{
	v->f = rd_xrealloc(v->f, (v->n + 1) * sizeof *v->f);
	struct view_file *f = &v->f[v->n++];
	memset(f, 0, sizeof *f);
	f->name = rd_xstrdup(name);
	f->in_etc = true;
	f->text = rd_xstrdup("");
	f->len = 0;
	return f;
}

static int cmp_view(const void *a, const void *b)
{
	return strcmp(((const struct view_file *)a)->name, ((const struct view_file *)b)->name);
}

/* Position of a module in boot order (files by name, then lines), -1 when no file lists it. */
static long position(struct view *v, const char *module, struct view_file **where)
{
	if (v->n > 1)
		qsort(v->f, v->n, sizeof *v->f, cmp_view);
	for (size_t i = 0; i < v->n; i++) {
		struct rd_strv m = {0};
		rd_parse_modules_load(v->f[i].text, v->f[i].len, &m, NULL, NULL);
		for (size_t k = 0; k < m.n; k++)
			if (strcmp(m.v[k], module) == 0) {
				rd_strv_free(&m);
				*where = &v->f[i];
				return (long)i * 100000 + (long)k;
			}
		rd_strv_free(&m);
	}
	*where = NULL;
	return -1;
}

/* Turn a file of /run or /usr/lib into a copy in /etc (which then overrides it). */
static void take_over(struct view_file *f)
{
	if (f->in_etc)
		return;
	const char *from = f->path ? f->path : f->name;
	char *t = rd_xasprintf("# overrides %s (copied from it by rdma-doctor fix modules)\n%s", from, f->text);
	free(f->text);
	f->text = t;
	f->len = strlen(t);
	f->from = rd_xstrdup(from);
	f->in_etc = true;
}

static void set_why(struct view_file *f, char *why)
{
	free(f->why);
	f->why = why;
}

static void append_line(struct view_file *f, const char *line)
{
	size_t n = strlen(f->text);
	char *t = rd_xasprintf("%s%s%s\n", f->text, n && f->text[n - 1] != '\n' ? "\n" : "", line);
	free(f->text);
	f->text = t;
	f->len = strlen(t);
	f->changed = true;
}

/* Removes the lines that name module (as modules-load.d reads them), keeping all others. */
static void remove_module_lines(struct view_file *f, const char *module)
{
	struct rd_buf out = {0};
	for (const char *line = f->text; *line;) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) + 1 : strlen(line);
		char *one = rd_xstrndup(line, len);
		struct rd_strv m = {0};
		rd_parse_modules_load(one, len, &m, NULL, NULL);
		if (!(m.n == 1 && strcmp(m.v[0], module) == 0))
			rd_buf_add(&out, line, len);
		rd_strv_free(&m);
		free(one);
		line += len;
	}
	free(f->text);
	f->len = out.len;
	f->text = out.len ? rd_buf_steal(&out) : rd_xstrdup("");
	rd_buf_free(&out);
	f->changed = true;
}

/* What the operator meant by "ib_ipoib   # storage": systemd-modules-load takes the whole line as
 * one module name (only a line starting with '#' or ';' is a comment), so the comment goes on a
 * line of its own before the module.  Returns the new text, or NULL (with an error naming each
 * line) when a line is not a module followed by a comment. */
static char *split_comment_lines(const struct rd_modload_file *m, struct rd_fix_plan *plan, unsigned *nsplit)
{
	struct rd_buf out = {0};
	bool ok = true;
	*nsplit = 0;
	unsigned lineno = 0;
	for (const char *line = m->text.value, *end = m->text.value + m->len; line < end;) {
		const char *nl = memchr(line, '\n', (size_t)(end - line));
		size_t len = nl ? (size_t)(nl - line) + 1 : (size_t)(end - line);
		lineno++;
		struct rd_strv mods = {0}, head_mods = {0};
		size_t bad = rd_parse_modules_load(line, len, &mods, NULL, NULL);
		if (!bad) {
			rd_buf_add(&out, line, len);
		} else {
			const char *p = line, *q = line + len;
			while (p < q && strchr(" \t\r\n\v\f", *p))
				p++;
			while (q > p && strchr(" \t\r\n\v\f", q[-1]))
				q--;
			const char *c = p;
			while (c < q && *c != '#' && *c != ';')
				c++;
			if (c < q && rd_parse_modules_load(p, (size_t)(c - p), &head_mods, NULL, NULL) == 0 && head_mods.n == 1) {
				rd_buf_add(&out, c, (size_t)(q - c));
				rd_buf_add(&out, "\n", 1);
				rd_buf_printf(&out, "%s\n", head_mods.v[0]);
				++*nsplit;
			} else {
				for (size_t i = 0; i < m->nbad; i++)
					if (m->bad[i].line == lineno)
						rd_strv_push_owned(&plan->errors,
								   rd_xasprintf("%s:%u: \"%s\" is not a module name: systemd-modules-load "
										"takes the whole line as one and loads nothing for it; left "
										"untouched (put one module on a line, a comment on a line "
										"of its own)",
										m->path, lineno, m->bad[i].text));
				ok = false;
			}
		}
		rd_strv_free(&mods);
		rd_strv_free(&head_mods);
		line += len;
	}
	if (!ok) {
		rd_buf_free(&out);
		return NULL;
	}
	char *t = out.len ? rd_buf_steal(&out) : rd_xstrdup("");
	rd_buf_free(&out);
	return t;
}

void rd_fix_modules_plan(const struct rd_host *h, const struct rd_system *s, const struct rd_policy *p, bool live,
			 struct rd_fix_plan *plan)
{
	memset(plan, 0, sizeof *plan);
	plan->live = live;
	if (!rd_host_has_rdma_hardware(h, s)) {
		rd_strv_push(&plan->notes, "no RDMA hardware on this host: no module needs to load, now or at boot");
		return;
	}
	if (!s->etc_present) {
		rd_strv_push(&plan->errors, "this root has no /etc at all (a partial capture): cannot tell what loads at boot");
		return;
	}
	struct view v = {0};
	/* the effective file of each name (sorted by name, then rank: the first of a name wins) */
	for (size_t i = 0; i < s->nmodload; i++) {
		const struct rd_modload_file *m = &s->modload[i];
		if (m->overridden)
			continue;
		struct view_file *f = view_add(&v, m->name);
		f->rank = m->rank;
		f->path = m->path;
		f->in_etc = m->rank == 0;
		free(f->text);
		bool ok = rd_attr_ok(&m->text);
		f->len = ok ? m->len : 0;
		f->text = rd_xmalloc(f->len + 1);
		if (f->len)
			memcpy(f->text, m->text.value, f->len);
		f->text[f->len] = '\0';
		if (!ok) {
			f->unparseable = true;
			rd_strv_push_owned(&plan->errors, rd_xasprintf("%s: cannot read it (%s): left untouched, its modules are not counted",
								       m->path, rd_strerror(m->text.err)));
		} else if (m->has_nul) {
			f->unparseable = true;
			rd_strv_push_owned(&plan->errors,
					   rd_xasprintf("%s: holds NUL bytes (at byte %zu; systemd-modules-load ends a line at each): "
							"left untouched; remove them first (tr -d '\\000')",
							m->path, (size_t)((const char *)memchr(m->text.value, '\0', m->len) - m->text.value)));
		} else if (m->nbad) {
			unsigned nsplit = 0;
			char *t = split_comment_lines(m, plan, &nsplit);
			if (!t) {
				f->unparseable = true;
			} else {
				free(f->text);
				f->text = t;
				f->len = strlen(t);
				f->changed = true;
				take_over(f);
				set_why(f, f->from ? rd_xasprintf("a copy of %s that overrides it, with %u \"module  # comment\" "
								  "line%s split in two (systemd took each as one module name)",
								  f->from, nsplit, nsplit == 1 ? "" : "s")
						   : rd_xasprintf("%u \"module  # comment\" line%s split in two (systemd took "
								  "each as one module name), everything else kept",
								  nsplit, nsplit == 1 ? "" : "s"));
			}
		}
	}

	/* 1. every module of the policy in some file */
	struct rd_strv missing = {0};
	for (size_t i = 0; i < p->modules.n; i++) {
		struct view_file *w;
		if (position(&v, p->modules.v[i], &w) < 0)
			rd_strv_push(&missing, p->modules.v[i]);
	}
	if (missing.n) {
		struct view_file *r = view_get(&v, "rdma.conf");
		if (r && r->unparseable) {
			rd_strv_push_owned(&plan->errors, rd_xasprintf("not adding %zu modules to %s: fix that file first",
								       missing.n, r->path));
		} else {
			if (!r) {
				r = view_add(&v, "rdma.conf");
				free(r->text);
				r->text = rd_xstrdup("# RDMA modules loaded at every boot, not only when a device appears (rdma-doctor fix modules)\n");
			}
			bool fresh = !r->path;
			take_over(r);
			for (size_t i = 0; i < missing.n; i++)
				append_line(r, missing.v[i]);
			char *why = fresh    ? rd_xasprintf("new: the %zu missing modules", missing.n)
				    : r->why ? rd_xasprintf("%s; plus %zu missing modules", r->why, missing.n)
				    : r->from ? rd_xasprintf("a copy of %s that overrides it, plus %zu missing modules", r->from, missing.n)
					      : rd_xasprintf("%zu missing modules added, everything else kept", missing.n);
			set_why(r, why);
		}
	}

	/* 2. nvidia_peermem after ib_core */
	struct view_file *pf, *cf;
	long peer = position(&v, "nvidia_peermem", &pf);
	long core = position(&v, "ib_core", &cf);
	if (peer >= 0 && (core < 0 || peer < core)) {
		if (pf->unparseable) {
			rd_strv_push_owned(&plan->errors, rd_xasprintf("nvidia_peermem loads before ib_core but %s cannot be parsed: left untouched",
								       pf->path ? pf->path : pf->name));
		} else if (core < 0) {
			rd_strv_push(&plan->notes, "nvidia_peermem is configured but ib_core is in no modules-load.d file "
						   "(and not in the policy's module list): add ib_core to rdma.conf");
		} else {
			char *peer_name = rd_xstrdup(pf->name), *core_name = rd_xstrdup(cf->name);
			take_over(pf);
			remove_module_lines(pf, "nvidia_peermem");
			if (pf->why && strstr(pf->why, "missing"))
				set_why(pf, rd_xasprintf("%s; nvidia_peermem moved out", pf->why));
			else
				set_why(pf, pf->from ? rd_xasprintf("a copy of %s that overrides it, without nvidia_peermem", pf->from)
						     : rd_xstrdup("nvidia_peermem moved out, everything else kept"));
			const char *dest = strcmp("nvidia-peermem.conf", core_name) > 0 ? "nvidia-peermem.conf" : "zz-nvidia-peermem.conf";
			struct view_file *d = view_get(&v, dest);
			if (d && d->unparseable) {
				rd_strv_push_owned(&plan->errors, rd_xasprintf("cannot move nvidia_peermem into %s: it cannot be parsed", dest));
			} else {
				if (!d) {
					d = view_add(&v, dest);
					free(d->text);
					d->text = rd_xasprintf("# after %s, which loads ib_core: nvidia_peermem registers with ib_core\n",
							       core_name);
				}
				bool fresh = !d->path && !d->changed;
				take_over(d);
				append_line(d, "nvidia_peermem");
				set_why(d, rd_xstrdup(fresh ? "new: nvidia_peermem, after ib_core" : "nvidia_peermem added"));
				rd_strv_push_owned(&plan->notes, rd_xasprintf("nvidia_peermem moves from %s to %s, which sorts after %s",
									      peer_name, dest, core_name));
			}
			free(peer_name);
			free(core_name);
		}
	}

	/* the changes */
	for (size_t i = 0; i < v.n; i++) {
		struct view_file *f = &v.f[i];
		if (!f->changed)
			continue;
		plan->files = rd_xrealloc(plan->files, (plan->nfiles + 1) * sizeof *plan->files);
		struct rd_file_change *c = &plan->files[plan->nfiles++];
		memset(c, 0, sizeof *c);
		c->dir = rd_xstrdup(ETC);
		c->name = rd_xstrdup(f->name);
		c->new = rd_xstrdup(f->text);
		if (f->rank == 0 && f->path) {
			const struct rd_modload_file *orig = NULL;
			for (size_t k = 0; k < s->nmodload; k++)
				if (s->modload[k].rank == 0 && strcmp(s->modload[k].name, f->name) == 0)
					orig = &s->modload[k];
			c->old = orig && rd_attr_ok(&orig->text) ? rd_xstrdup(orig->text.value) : NULL;
		}
		c->why = rd_xstrdup(f->why ? f->why : "changed");
	}
	if (missing.n)
		rd_strv_push(&plan->notes, "listing a module that is already loaded is harmless: modprobe is idempotent");

	/* 3. load what is not loaded: the same answer modules.loaded gives */
	if (rd_modules_to_load(h, s, p, &plan->load) < 0)
		rd_strv_push(&plan->errors, "cannot read /proc/modules: cannot tell which modules need loading now");

	rd_strv_free(&missing);
	for (size_t i = 0; i < v.n; i++) {
		free(v.f[i].name);
		free(v.f[i].text);
		free(v.f[i].from);
		free(v.f[i].why);
	}
	free(v.f);
}

void rd_fix_plan_shell(const struct rd_fix_plan *plan, struct rd_strv *lines)
{
	const char *made = NULL;
	for (size_t i = 0; i < plan->nfiles; i++) {
		const struct rd_file_change *c = &plan->files[i];
		if (!made || strcmp(made, c->dir) != 0) {
			rd_strv_push_owned(lines, rd_xasprintf("mkdir -p /%s", c->dir));
			made = c->dir;
		}
		/* a delimiter that is no line of the content */
		char delim[32] = "EOF";
		for (unsigned n = 0;; n++) {
			size_t dl = strlen(delim);
			bool clash = false;
			for (const char *p = c->new; p && *p;) {
				const char *nl = strchr(p, '\n');
				size_t len = nl ? (size_t)(nl - p) : strlen(p);
				if (len == dl && memcmp(p, delim, dl) == 0)
					clash = true;
				p = nl ? nl + 1 : p + len;
			}
			if (!clash)
				break;
			snprintf(delim, sizeof delim, "RDMA_DOCTOR_EOF%u", n);
		}
		rd_strv_push_owned(lines, rd_xasprintf("cat > /%s/%s <<'%s'", c->dir, c->name, delim));
		for (const char *p = c->new; p && *p;) {
			const char *nl = strchr(p, '\n');
			size_t len = nl ? (size_t)(nl - p) : strlen(p);
			rd_strv_push_owned(lines, rd_xstrndup(p, len));
			p = nl ? nl + 1 : p + len;
		}
		rd_strv_push(lines, delim);
	}
}
