/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* An in-memory tree of a snapshot archive's entries, read through libarchive (larchive.h).
 *
 * Building never follows a link: every component before an entry's last must be a directory
 * already in the tree (or is created as one), so an entry can only ever land where its own path
 * says.  Every limit is checked as entries arrive, before anything is allocated for them.
 *
 * Lookups: one hash table over (parent, name) holds every node, so finding a child is O(1)
 * whatever the directory's size; a directory's children are also kept in a vector, sorted once
 * when reading ends, for listing. */
#include "source/memtree.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "source/larchive.h"

const struct rd_memtree_limits rd_memtree_default_limits = {
	.max_entries = 200000,
	.max_depth = 64,
	.max_name = 4096,
	.max_bytes = 1ull << 30,
	.max_file = 256ull << 20,
	.deadline_ms = 0,
};

/* What one entry costs toward max_bytes besides its contents (node, name, hash slot, list slot). */
#define ENTRY_COST 128u
/* The deadline is looked at every DEADLINE_EVERY entries and after every data chunk. */
#define DEADLINE_EVERY 256u
#define CHUNK (64u * 1024u)
/* Shown of an entry's name in an error before "..." */
#define SHOW_NAME 120

struct rd_memnode {
	struct rd_memnode *parent; /* NULL for the archive's top */
	mode_t mode;               /* S_IFREG/S_IFDIR/S_IFLNK | permissions */
	uid_t uid;
	gid_t gid;
	unsigned long ino;
	size_t hash;
	char *data; /* a file's contents or a link's target (NUL-terminated either way) */
	size_t len;
	struct rd_memnode **kids; /* a directory's children */
	size_t nkids, capkids;
	size_t namelen;
	char name[];
};

struct rd_memtree {
	struct rd_memnode *top;  /* the archive's own top */
	struct rd_memnode *root; /* what paths are relative to: top, or its one directory */
	struct rd_memnode **slots;
	size_t mask, used;
	unsigned long next_ino;
};

/* ---- hash table ---------------------------------------------------------------------------- */

static size_t hash_of(const struct rd_memnode *parent, const char *name, size_t len)
{
	uint64_t h = 1469598103934665603ull ^ (uint64_t)(uintptr_t)parent;
	for (size_t i = 0; i < len; i++)
		h = (h ^ (unsigned char)name[i]) * 1099511628211ull;
	h ^= h >> 33; /* a final mix, so that the low bits (the slot) depend on every byte */
	h *= 0xff51afd7ed558ccdull;
	h ^= h >> 33;
	return (size_t)h;
}

static struct rd_memnode *find_child(const struct rd_memtree *t, const struct rd_memnode *dir, const char *name,
				     size_t len)
{
	size_t h = hash_of(dir, name, len);
	for (size_t i = h & t->mask;; i = (i + 1) & t->mask) {
		struct rd_memnode *n = t->slots[i];
		if (!n)
			return NULL;
		if (n->hash == h && n->parent == dir && n->namelen == len && memcmp(n->name, name, len) == 0)
			return n;
	}
}

static void slot_put(struct rd_memnode **slots, size_t mask, struct rd_memnode *n)
{
	size_t i = n->hash & mask;
	while (slots[i])
		i = (i + 1) & mask;
	slots[i] = n;
}

static void table_add(struct rd_memtree *t, struct rd_memnode *n)
{
	if ((t->used + 1) * 2 > t->mask + 1) {
		size_t cap = (t->mask + 1) * 2;
		struct rd_memnode **s = rd_xcalloc(cap, sizeof *s);
		for (size_t i = 0; i <= t->mask; i++)
			if (t->slots[i])
				slot_put(s, cap - 1, t->slots[i]);
		free(t->slots);
		t->slots = s;
		t->mask = cap - 1;
	}
	slot_put(t->slots, t->mask, n);
	t->used++;
}

static struct rd_memnode *node_new(struct rd_memtree *t, struct rd_memnode *parent, const char *name, size_t len,
				   mode_t mode)
{
	struct rd_memnode *n = rd_xcalloc(1, sizeof *n + len + 1);
	memcpy(n->name, name, len);
	n->namelen = len;
	n->parent = parent;
	n->mode = mode;
	n->ino = ++t->next_ino;
	if (parent) {
		n->hash = hash_of(parent, name, len);
		if (parent->nkids == parent->capkids) {
			parent->capkids = parent->capkids ? parent->capkids * 2 : 4;
			parent->kids = rd_xrealloc(parent->kids, parent->capkids * sizeof *parent->kids);
		}
		parent->kids[parent->nkids++] = n;
		table_add(t, n);
	}
	return n;
}

void rd_memtree_free(struct rd_memtree *t)
{
	if (!t)
		return;
	for (size_t i = 0; t->slots && i <= t->mask; i++) {
		struct rd_memnode *n = t->slots[i];
		if (n) {
			free(n->data);
			free(n->kids);
			free(n);
		}
	}
	if (t->top) {
		free(t->top->kids);
		free(t->top);
	}
	free(t->slots);
	free(t);
}

/* ---- reading ------------------------------------------------------------------------------- */

struct reader {
	const struct rd_larchive *la;
	struct archive *a;
	const struct rd_memtree_limits *lim;
	struct rd_memtree *t;
	size_t entries;   /* nodes made, plus entries that replaced one */
	uint64_t bytes;   /* contents plus ENTRY_COST and the name per entry */
	size_t headers;   /* archive entries seen */
	const unsigned char *head; /* the input's first bytes, to say what it is when not tar */
	size_t headlen;
	bool head_unknown;         /* they could not be read (an fd that cannot pread) */
	char *err;
	size_t errlen;
};

static bool past_deadline(const struct reader *r)
{
	return r->lim->deadline_ms > 0 && rd_mono_ms() >= r->lim->deadline_ms;
}

__attribute__((format(printf, 3, 4))) static int fail(struct reader *r, int e, const char *fmt, ...)
{
	if (r->err && r->errlen) {
		va_list ap;
		va_start(ap, fmt);
		vsnprintf(r->err, r->errlen, fmt, ap);
		va_end(ap);
		for (char *c = r->err; *c; c++) /* one line, whatever an entry's name holds */
			if ((unsigned char)*c < 0x20 || *c == 0x7f)
				*c = '?';
	}
	return e;
}

/* "entry NAME: " with a long name cut, then the reason. */
__attribute__((format(printf, 4, 5))) static int fail_entry(struct reader *r, int e, const char *name,
							      const char *fmt, ...)
{
	char why[256];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof why, fmt, ap);
	va_end(ap);
	size_t n = strlen(name);
	return fail(r, e, "entry %.*s%s: %s", n > SHOW_NAME ? SHOW_NAME : (int)n, name, n > SHOW_NAME ? "..." : "",
		    why);
}

static const char *la_error(const struct reader *r)
{
	const char *s = r->la->error_string(r->a);
	return s && *s ? s : "unknown libarchive error";
}

/* What the input is, from its first bytes, in file(1)'s words. */
static const char *sniff(const struct reader *r)
{
	const unsigned char *b = r->head;
	size_t n = r->headlen;
	if (r->head_unknown)
		return "data of an unknown kind";
	static const struct {
		const char *magic;
		size_t len;
		const char *what;
	} kinds[] = {
		{"\x1f\x8b", 2, "gzip compressed data, but not a tar archive inside"},
		{"PK\x03\x04", 4, "Zip archive data"},
		{"PK\x05\x06", 4, "Zip archive data (empty)"},
		{"7z\xbc\xaf\x27\x1c", 6, "7-zip archive data"},
		{"\xfd" "7zXZ", 6, "XZ compressed data (only gzip-compressed or plain tar is read)"},
		{"BZh", 3, "bzip2 compressed data (only gzip-compressed or plain tar is read)"},
		{"\x28\xb5\x2f\xfd", 4, "Zstandard compressed data (only gzip-compressed or plain tar is read)"},
		{"\x04\x22\x4d\x18", 4, "LZ4 compressed data (only gzip-compressed or plain tar is read)"},
		{"\x1f\x9d", 2, "compress'd data (only gzip-compressed or plain tar is read)"},
		{"Rar!", 4, "RAR archive data"},
		{"!<arch>\n", 8, "current ar archive"},
		{"070701", 6, "ASCII cpio archive"},
		{"070707", 6, "ASCII cpio archive (pre-SVR4)"},
		{"\x7f" "ELF", 4, "ELF"},
		{"%PDF-", 5, "PDF document"},
		{"\x89PNG", 4, "PNG image data"},
		{"\xff\xd8\xff", 3, "JPEG image data"},
		{"SQLite format 3", 15, "SQLite 3.x database"},
	};
	if (n == 0)
		return "empty";
	for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++)
		if (n >= kinds[i].len && memcmp(b, kinds[i].magic, kinds[i].len) == 0)
			return kinds[i].what;
	bool text = true;
	for (size_t i = 0; i < n && text; i++)
		text = (b[i] >= 0x20 && b[i] < 0x7f) || b[i] == '\n' || b[i] == '\t' || b[i] == '\r';
	return text ? "ASCII text" : "data";
}

static const char *kind_word(mode_t type)
{
	switch (type) {
	case AE_IFCHR:
		return "character device";
	case AE_IFBLK:
		return "block device";
	case AE_IFIFO:
		return "FIFO";
	case AE_IFSOCK:
		return "socket";
	default:
		return "entry of unknown type";
	}
}

static int charge(struct reader *r, const char *path, uint64_t n)
{
	if (n > r->lim->max_bytes - r->bytes) {
		char lim[32];
		return fail_entry(r, -EFBIG, path, "the archive holds more than %s (contents plus %u bytes per entry)",
				  rd_size_words(r->lim->max_bytes, lim, sizeof lim), ENTRY_COST);
	}
	r->bytes += n;
	return 0;
}

static int count_entry(struct reader *r, const char *path, size_t namelen)
{
	if (r->entries >= r->lim->max_entries)
		return fail_entry(r, -EFBIG, path, "more than %zu entries (directories included)", r->lim->max_entries);
	r->entries++;
	return charge(r, path, ENTRY_COST + namelen);
}

/* The contents of the current entry, read in chunks with the limits and the deadline checked. */
static int read_contents(struct reader *r, const char *path, uint64_t declared, char **data, size_t *len)
{
	size_t cap = 0, n = 0;
	char *buf = NULL;
	/* the first buffer holds what the header declares, up to 16 MiB (a header may lie) */
	size_t first = declared < 4096 ? 4096 : declared > (16u << 20) ? (16u << 20) : (size_t)declared;
	for (;;) {
		if (n == cap) {
			size_t ncap = cap ? cap * 2 : first;
			if (ncap > r->lim->max_file + 1)
				ncap = (size_t)r->lim->max_file + 1;
			if (ncap <= cap) {
				free(buf);
				char lim[32];
				return fail_entry(r, -EFBIG, path, "file larger than %s",
						  rd_size_words(r->lim->max_file, lim, sizeof lim));
			}
			char *nb = realloc(buf, ncap + 1);
			if (!nb) {
				free(buf);
				return fail_entry(r, -ENOMEM, path, "out of memory");
			}
			buf = nb;
			cap = ncap;
		}
		size_t want = cap - n < CHUNK ? cap - n : CHUNK;
		la_ssize_t got = r->la->read_data(r->a, buf + n, want);
		if (got < 0) {
			free(buf);
			return fail_entry(r, -EIO, path, "truncated or corrupt data: %s", la_error(r));
		}
		if (got == 0)
			break;
		if (n + (size_t)got > r->lim->max_file) {
			free(buf);
			char lim[32];
			return fail_entry(r, -EFBIG, path, "file larger than %s",
					  rd_size_words(r->lim->max_file, lim, sizeof lim));
		}
		int c = charge(r, path, (uint64_t)got);
		if (c < 0) {
			free(buf);
			return c;
		}
		n += (size_t)got;
		if (past_deadline(r)) {
			free(buf);
			return fail_entry(r, -ETIMEDOUT, path, "deadline passed while reading its data (%zu entries read)",
					  r->headers - 1);
		}
	}
	buf[n] = '\0';
	*data = buf;
	*len = n;
	return 0;
}

static int add_entry(struct reader *r, struct archive_entry *e)
{
	const struct rd_larchive *la = r->la;
	const struct rd_memtree_limits *lim = r->lim;
	const char *path = la->entry_pathname(e);
	if (!path || !*path)
		return fail(r, -EINVAL, "entry #%zu: no path name", r->headers);
	size_t plen = strlen(path);
	if (plen > lim->max_name)
		return fail_entry(r, -ENAMETOOLONG, path, "path of %zu bytes (at most %zu)", plen, lim->max_name);
	if (path[0] == '/')
		return fail_entry(r, -EPERM, path, "absolute path refused");

	/* components: checked all before anything is made */
	size_t depth = 0;
	for (const char *p = path; *p;) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		const char *q = p;
		while (*q && *q != '/')
			q++;
		if (q - p == 2 && p[0] == '.' && p[1] == '.')
			return fail_entry(r, -EPERM, path, "\"..\" in the path refused");
		if (!(q - p == 1 && p[0] == '.') && ++depth > lim->max_depth)
			return fail_entry(r, -ELOOP, path, "more than %zu components deep", lim->max_depth);
		p = q;
	}

	mode_t type = la->entry_filetype(e);
	const char *hard = la->entry_hardlink(e);
	if (hard && *hard)
		return fail_entry(r, -EPERM, path, "hard link not supported");
	const char *target = NULL;
	switch (type) {
	case AE_IFREG:
		if (la->entry_size_is_set(e) && la->entry_size(e) > 0 && (uint64_t)la->entry_size(e) > lim->max_file) {
			char l[32];
			return fail_entry(r, -EFBIG, path, "file larger than %s", rd_size_words(lim->max_file, l, sizeof l));
		}
		break;
	case AE_IFDIR:
		break;
	case AE_IFLNK:
		target = la->entry_symlink(e);
		if (!target || !*target)
			return fail_entry(r, -EINVAL, path, "symbolic link without a target");
		if (strlen(target) > lim->max_name)
			return fail_entry(r, -ENAMETOOLONG, path, "link target of %zu bytes (at most %zu)", strlen(target),
					  lim->max_name);
		break;
	default:
		return fail_entry(r, -EPERM, path, "%s not supported", kind_word(type));
	}

	/* walk, making the directories the path implies; never through a link or a file */
	struct rd_memnode *dir = r->t->top;
	const char *last = NULL;
	size_t lastlen = 0;
	for (const char *p = path;;) {
		while (*p == '/')
			p++;
		const char *q = p;
		while (*q && *q != '/')
			q++;
		const char *next = q;
		while (*next == '/')
			next++;
		if (q == p)
			break;
		bool dot = q - p == 1 && p[0] == '.';
		if (!*next) { /* the entry's own name */
			if (!dot)
				last = p, lastlen = (size_t)(q - p);
			break;
		}
		if (!dot) {
			struct rd_memnode *c = find_child(r->t, dir, p, (size_t)(q - p));
			if (!c) {
				int rc = count_entry(r, path, (size_t)(q - p));
				if (rc < 0)
					return rc;
				c = node_new(r->t, dir, p, (size_t)(q - p), S_IFDIR | 0755);
			} else if (!S_ISDIR(c->mode)) {
				return fail_entry(r, -ENOTDIR, path, "%.*s is a %s in the archive, not a directory",
						  (int)(q - path), path, S_ISLNK(c->mode) ? "symbolic link" : "file");
			}
			dir = c;
		}
		p = next;
	}

	mode_t perm = la->entry_perm(e) & 07777;
	la_int64_t uid = la->entry_uid(e), gid = la->entry_gid(e);
	struct rd_memnode *n;
	if (!last) { /* "." or "./", "sys/.": the directory the path ends in */
		if (type != AE_IFDIR)
			return fail_entry(r, -EINVAL, path, "ends in \".\" (a directory) but is not one");
		n = dir;
		int rc = count_entry(r, path, 0);
		if (rc < 0)
			return rc;
	} else {
		n = find_child(r->t, dir, last, lastlen);
		int rc = count_entry(r, path, lastlen);
		if (rc < 0)
			return rc;
		if (n && (S_ISDIR(n->mode) != (type == AE_IFDIR)))
			return fail_entry(r, -EEXIST, path, "appears again as a %s, earlier as a %s",
					  type == AE_IFDIR ? "directory" : "non-directory",
					  S_ISDIR(n->mode) ? "directory" : "non-directory");
		if (!n)
			n = node_new(r->t, dir, last, lastlen, 0);
	}
	char *data = NULL;
	size_t len = 0;
	if (type == AE_IFREG) {
		la_int64_t declared = la->entry_size_is_set(e) ? la->entry_size(e) : 0;
		int rc = read_contents(r, path, declared > 0 ? (uint64_t)declared : 0, &data, &len);
		if (rc < 0)
			return rc;
	} else if (type == AE_IFLNK) {
		len = strlen(target);
		int rc = charge(r, path, len);
		if (rc < 0)
			return rc;
		data = rd_xstrdup(target);
	}
	if (type != AE_IFDIR) { /* a later entry of the same path replaces an earlier one, as tar does */
		free(n->data);
		n->data = data;
		n->len = len;
	}
	n->mode = (mode_t)type | perm;
	n->uid = uid >= 0 && uid <= (la_int64_t)(uid_t)-1 ? (uid_t)uid : 0;
	n->gid = gid >= 0 && gid <= (la_int64_t)(gid_t)-1 ? (gid_t)gid : 0;
	return 0;
}

static int cmp_node(const void *a, const void *b)
{
	const struct rd_memnode *x = *(const struct rd_memnode *const *)a, *y = *(const struct rd_memnode *const *)b;
	return strcmp(x->name, y->name);
}

static void sort_dirs(struct rd_memtree *t)
{
	if (t->top->nkids > 1)
		qsort(t->top->kids, t->top->nkids, sizeof *t->top->kids, cmp_node);
	for (size_t i = 0; i <= t->mask; i++) {
		struct rd_memnode *n = t->slots[i];
		if (n && n->nkids > 1)
			qsort(n->kids, n->nkids, sizeof *n->kids, cmp_node);
	}
}

/* The archive may hold the root itself or one top directory holding it. */
static void choose_root(struct rd_memtree *t)
{
	static const char *const markers[] = {"sys", "proc", "rdma-doctor", "etc"};
	t->root = t->top;
	for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++)
		if (find_child(t, t->top, markers[i], strlen(markers[i])))
			return;
	if (t->top->nkids == 1 && S_ISDIR(t->top->kids[0]->mode))
		t->root = t->top->kids[0];
}

static int read_all(struct reader *r)
{
	for (;;) {
		if (r->headers % DEADLINE_EVERY == DEADLINE_EVERY - 1 && past_deadline(r))
			return fail(r, -ETIMEDOUT, "deadline passed after %zu entries", r->headers);
		struct archive_entry *e = NULL;
		int rc = r->la->read_next_header(r->a, &e);
		if (rc == ARCHIVE_EOF)
			break;
		if (rc < ARCHIVE_WARN || !e) {
			if (r->headers == 0 && strstr(la_error(r), "Unrecognized archive format"))
				return fail(r, -EINVAL, "not a tar archive: %s", sniff(r));
			if (r->headers == 0)
				return fail(r, -EINVAL, "corrupt archive: %s", la_error(r));
			return fail(r, -EINVAL, "corrupt archive after %zu entries: %s", r->headers, la_error(r));
		}
		r->headers++;
		rc = add_entry(r, e);
		if (rc < 0)
			return rc;
	}
	if (r->headers == 0)
		return fail(r, -EINVAL, r->headlen || r->head_unknown ? "empty archive (no entries)" : "not a tar archive: empty");
	return 0;
}

static int read_common(struct reader *r, const void *mem, size_t memlen, int fd, struct rd_memtree **out)
{
	*out = NULL;
	if (r->err && r->errlen)
		r->err[0] = '\0';
	char why[256];
	r->la = rd_larchive(why, sizeof why);
	if (!r->la)
		return fail(r, -ELIBACC, "cannot read archives: %s", why);
	r->a = r->la->read_new();
	if (!r->a)
		return fail(r, -ENOMEM, "out of memory");
	if (r->la->read_support_filter_gzip(r->a) != ARCHIVE_OK || r->la->read_support_filter_none(r->a) != ARCHIVE_OK ||
	    r->la->read_support_format_tar(r->a) != ARCHIVE_OK) {
		int rc = fail(r, -EINVAL, "cannot set up libarchive: %s", la_error(r));
		r->la->read_free(r->a);
		return rc;
	}
	int rc = mem ? r->la->read_open_memory(r->a, mem, memlen) : r->la->read_open_fd(r->a, fd, CHUNK);
	if (rc != ARCHIVE_OK) {
		if (strstr(la_error(r), "Unrecognized archive format"))
			rc = fail(r, -EINVAL, "not a tar archive: %s", sniff(r));
		else
			rc = fail(r, -EINVAL, "cannot read: %s", la_error(r));
		r->la->read_free(r->a);
		return rc;
	}
	r->t = rd_xcalloc(1, sizeof *r->t);
	r->t->mask = 63;
	r->t->slots = rd_xcalloc(r->t->mask + 1, sizeof *r->t->slots);
	r->t->top = node_new(r->t, NULL, "", 0, S_IFDIR | 0755);
	rc = read_all(r);
	r->la->read_free(r->a);
	if (rc < 0) {
		rd_memtree_free(r->t);
		return rc;
	}
	sort_dirs(r->t);
	choose_root(r->t);
	*out = r->t;
	return 0;
}

int rd_memtree_read_fd(int fd, const struct rd_memtree_limits *lim, struct rd_memtree **out, char *err, size_t errlen)
{
	unsigned char head[512];
	off_t at = lseek(fd, 0, SEEK_CUR);
	ssize_t n = at >= 0 ? pread(fd, head, sizeof head, at) : -1;
	struct reader r = {.lim = lim ? lim : &rd_memtree_default_limits, .head = head,
			   .headlen = n > 0 ? (size_t)n : 0, .head_unknown = n < 0, .err = err, .errlen = errlen};
	return read_common(&r, NULL, 0, fd, out);
}

int rd_memtree_read_mem(const void *buf, size_t len, const struct rd_memtree_limits *lim, struct rd_memtree **out,
			char *err, size_t errlen)
{
	static const char empty[1];
	struct reader r = {.lim = lim ? lim : &rd_memtree_default_limits, .head = buf,
			   .headlen = len < 512 ? len : 512, .err = err, .errlen = errlen};
	return read_common(&r, buf ? buf : empty, len, -1, out);
}

/* ---- lookups ------------------------------------------------------------------------------- */

/* The path of n relative to the root ("" for the root), with "/extra" appended when extralen > 0. */
static char *path_of(const struct rd_memtree *t, const struct rd_memnode *n, const char *extra, size_t extralen)
{
	size_t len = extralen ? extralen + 1 : 0;
	for (const struct rd_memnode *p = n; p && p != t->root; p = p->parent)
		len += p->namelen + 1;
	char *s = rd_xmalloc(len + 1);
	size_t at = len;
	s[at] = '\0';
	if (extralen) {
		at -= extralen;
		memcpy(s + at, extra, extralen);
		s[--at] = '/';
	}
	for (const struct rd_memnode *p = n; p && p != t->root; p = p->parent) {
		at -= p->namelen;
		memcpy(s + at, p->name, p->namelen);
		s[--at] = '/';
	}
	if (len) /* drop the leading '/' */
		memmove(s, s + 1, len);
	return s;
}

int rd_memtree_lookup(const struct rd_memtree *t, const char *path, bool follow_last, const struct rd_memnode **node,
		      char **canonical)
{
	if (node)
		*node = NULL;
	if (canonical)
		*canonical = NULL;
	const struct rd_memnode *cur = t->root;
	char *buf = rd_xstrdup(path ? path : "");
	size_t p = 0;
	int links = 0, rc = 0;
	for (;;) {
		while (buf[p] == '/')
			p++;
		if (!buf[p])
			break;
		size_t q = p;
		while (buf[q] && buf[q] != '/')
			q++;
		size_t next = q;
		while (buf[next] == '/')
			next++;
		bool is_last = !buf[next];
		size_t len = q - p;
		if (!S_ISDIR(cur->mode)) {
			rc = -ENOTDIR;
			break;
		}
		if (len == 1 && buf[p] == '.') {
			p = q;
			continue;
		}
		if (len == 2 && buf[p] == '.' && buf[p + 1] == '.') {
			if (cur != t->root && cur->parent)
				cur = cur->parent;
			p = q;
			continue;
		}
		const struct rd_memnode *c = find_child(t, cur, buf + p, len);
		if (!c) {
			rc = -ENOENT;
			if (is_last && canonical)
				*canonical = path_of(t, cur, buf + p, len);
			break;
		}
		if (S_ISLNK(c->mode) && (!is_last || follow_last)) {
			if (++links > RD_MEMTREE_MAX_LINKS) {
				rc = -ELOOP;
				break;
			}
			char *nb = rd_xasprintf("%s/%s", c->data, buf + q);
			free(buf);
			buf = nb;
			p = 0;
			if (c->data[0] == '/')
				cur = t->root;
			continue;
		}
		cur = c;
		p = q;
	}
	free(buf);
	if (rc < 0)
		return rc;
	if (node)
		*node = cur;
	if (canonical)
		*canonical = path_of(t, cur, "", 0);
	return 0;
}

void rd_memnode_stat(const struct rd_memnode *n, struct stat *st)
{
	memset(st, 0, sizeof *st);
	st->st_mode = n->mode;
	st->st_uid = n->uid;
	st->st_gid = n->gid;
	st->st_ino = n->ino;
	st->st_dev = 0;
	st->st_nlink = S_ISDIR(n->mode) ? 2 : 1;
	st->st_size = S_ISDIR(n->mode) ? 0 : (off_t)n->len;
	st->st_blksize = 4096;
	st->st_blocks = (blkcnt_t)((n->len + 511) / 512);
}

int rd_memnode_data(const struct rd_memnode *n, const char **data, size_t *len)
{
	if (S_ISDIR(n->mode))
		return -EISDIR;
	if (!S_ISREG(n->mode))
		return -EINVAL;
	*data = n->data ? n->data : "";
	*len = n->len;
	return 0;
}

int rd_memnode_link(const struct rd_memnode *n, const char **target)
{
	if (!S_ISLNK(n->mode))
		return -EINVAL;
	*target = n->data;
	return 0;
}

int rd_memnode_list(const struct rd_memnode *n, struct rd_strv *names)
{
	if (!S_ISDIR(n->mode))
		return -ENOTDIR;
	for (size_t i = 0; i < n->nkids; i++)
		rd_strv_push(names, n->kids[i]->name);
	return 0;
}
