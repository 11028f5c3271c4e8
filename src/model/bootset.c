/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The operator's boot-time hooks that name a tool (model/bootset.h). */
#include <fnmatch.h>
#include <stdlib.h>
#include <string.h>

#include "model/bootset.h"

#define LINE_MAX_KEPT 300
#define SCRIPT_CAP (256 * 1024)

static bool word_char(char c)
{
	return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
	       c == '.';
}

/* tool as a word of s[0..n): not inside a longer name ("dcbnl", "mlnx_qos_x"); a path before it
 * ("/usr/bin/mlnx_qos") is fine. */
static bool names_tool(const char *s, size_t n, const char *tool)
{
	size_t tl = strlen(tool);
	for (const char *p = s; tl && (size_t)(p - s) + tl <= n; p++) {
		p = memmem(p, n - (size_t)(p - s), tool, tl);
		if (!p)
			return false;
		bool left = p == s || !word_char(p[-1]);
		bool right = (size_t)(p - s) + tl == n || !word_char(p[tl]);
		if (left && right)
			return true;
	}
	return false;
}

static void keep_line(struct rd_bootset *b, const char *file, unsigned lineno, const char *s, size_t n)
{
	if (b->n == RD_BOOTSET_MAX_LINES) {
		b->truncated = true;
		return;
	}
	b->v = rd_xrealloc(b->v, (b->n + 1) * sizeof *b->v);
	struct rd_bootset_line *l = &b->v[b->n++];
	l->file = rd_xstrdup(file);
	l->line = lineno;
	l->text = rd_xstrndup(s, n < LINE_MAX_KEPT ? n : LINE_MAX_KEPT);
}

void rd_bootset_scan_text(struct rd_bootset *b, const char *file, const char *data, size_t size,
			  const char *const *tools, char **exec)
{
	unsigned lineno = 0;
	for (const char *l = data; l && l < data + size;) {
		const char *nl = memchr(l, '\n', size - (size_t)(l - data));
		size_t len = nl ? (size_t)(nl - l) : size - (size_t)(l - data);
		lineno++;
		while (len && (*l == ' ' || *l == '\t'))
			l++, len--;
		if (len && *l != '#' && *l != ';') {
			for (const char *const *tl = tools; *tl; tl++)
				if (names_tool(l, len, *tl)) {
					keep_line(b, file, lineno, l, len);
					break;
				}
			if (exec && !*exec && len > 10 && strncmp(l, "ExecStart=", 10) == 0) {
				const char *p = l + 10, *end = l + len;
				while (p < end && strchr("-@:+!", *p)) /* systemd's prefixes */
					p++;
				size_t pl = 0;
				while (p + pl < end && p[pl] != ' ' && p[pl] != '\t')
					pl++;
				if (pl > 1 && p[0] == '/' && pl < 256)
					*exec = rd_xstrndup(p, pl);
			}
		}
		l = nl ? nl + 1 : NULL;
	}
}

/* Scans one file's lines; *exec (when not NULL) gets the first absolute ExecStart= path of a unit. */
static void scan(struct rd_source *src, struct rd_bootset *b, const char *file, const char *const *tools, char **exec)
{
	if (b->files == RD_BOOTSET_MAX_FILES) {
		b->truncated = true;
		return;
	}
	struct rd_text t = {0};
	if (rd_read_file(src, file + 1, SCRIPT_CAP, &t) < 0 || !t.data) {
		rd_text_free(&t);
		return;
	}
	b->files++;
	rd_bootset_scan_text(b, file, t.data, t.len, tools, exec);
	rd_text_free(&t);
}

static bool is_rules(const char *name)
{
	size_t n = strlen(name);
	return n > 6 && strcmp(name + n - 6, ".rules") == 0;
}

static bool is_service(const char *name)
{
	size_t n = strlen(name);
	return n > 8 && strcmp(name + n - 8, ".service") == 0;
}

/* hook directories run every file (run-parts names: no dot, so no .dpkg-old) */
static bool is_hook(const char *name)
{
	return name[0] != '.' && !strchr(name, '~') && !strstr(name, ".dpkg-");
}

static void scan_dir(struct rd_source *src, struct rd_bootset *b, const char *dir, bool (*keep)(const char *),
		     const char *const *tools, bool units)
{
	struct rd_strv names = {0};
	if (rd_list_dir_only(src, dir + 1, keep, &names) < 0)
		return;
	for (size_t i = 0; i < names.n; i++) {
		char *path = rd_xasprintf("%s/%s", dir, names.v[i]);
		char *exec = NULL;
		scan(src, b, path, tools, units ? &exec : NULL);
		/* the script a unit runs (one level); a package's program (/usr/bin, /usr/sbin) is not
		 * the operator's hook and is left alone */
		if (exec && strncmp(exec, "/usr/bin/", 9) != 0 && strncmp(exec, "/usr/sbin/", 10) != 0 &&
		    strncmp(exec, "/bin/", 5) != 0 && strncmp(exec, "/sbin/", 6) != 0 && !strstr(exec, "/../"))
			scan(src, b, exec, tools, NULL);
		free(exec);
		free(path);
	}
	rd_strv_free(&names);
}

void rd_bootset_load(struct rd_source *src, const char *const *tools, struct rd_bootset *out)
{
	memset(out, 0, sizeof *out);
	scan_dir(src, out, "/etc/udev/rules.d", is_rules, tools, false);
	scan_dir(src, out, "/etc/systemd/system", is_service, tools, true);
	scan_dir(src, out, "/etc/network/if-pre-up.d", is_hook, tools, false);
	scan_dir(src, out, "/etc/network/if-up.d", is_hook, tools, false);
	scan_dir(src, out, "/etc/NetworkManager/dispatcher.d", is_hook, tools, false);
	scan(src, out, "/etc/rc.local", tools, NULL);
}

void rd_bootset_free(struct rd_bootset *b)
{
	for (size_t i = 0; i < b->n; i++) {
		free(b->v[i].file);
		free(b->v[i].text);
	}
	free(b->v);
	memset(b, 0, sizeof *b);
}

/* The next word of s (blanks, quotes and commas separate); *len its length, NULL at the end. */
static const char *next_word(const char *s, size_t *len)
{
	while (*s && strchr(" \t\"',", *s))
		s++;
	if (!*s)
		return NULL;
	size_t n = 0;
	while (s[n] && !strchr(" \t\"',", s[n]))
		n++;
	*len = n;
	return s;
}

bool rd_bootset_covers(const struct rd_bootset_line *l, const char *ifname)
{
	const char *s = l->text;
	size_t n, ifl = strlen(ifname);
	/* a udev rule matched on its kernel name covers only what the pattern matches */
	const char *k = strstr(s, "KERNEL==\"");
	if (k) {
		k += 9;
		const char *q = strchr(k, '"');
		if (q && q - k < 64) {
			char pat[64];
			memcpy(pat, k, (size_t)(q - k));
			pat[q - k] = '\0';
			return fnmatch(pat, ifname, 0) == 0;
		}
	}
	bool literal = false;
	for (const char *w = next_word(s, &n); w; w = next_word(w + n, &n)) {
		if (n == ifl && strncmp(w, ifname, n) == 0)
			return true;
		const char *v = NULL;
		size_t vn = 0;
		if ((n == 2 && strncmp(w, "-i", 2) == 0) || (n == 3 && strncmp(w, "dev", 3) == 0) ||
		    (n == 11 && strncmp(w, "--interface", 11) == 0))
			v = next_word(w + n, &vn);
		else if (n > 12 && strncmp(w, "--interface=", 12) == 0)
			v = w + 12, vn = n - 12;
		if (!v)
			continue;
		if (vn == ifl && strncmp(v, ifname, vn) == 0)
			return true;
		if (memchr(v, '$', vn) || memchr(v, '%', vn) || memchr(v, '*', vn))
			return true; /* a variable, or a glob: every interface it is run for */
		literal = true;
	}
	return !literal; /* no interface named: the line is run for whichever */
}
