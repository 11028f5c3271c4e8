#include "source/source.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "source/archive.h"
#include "source/reader.h"

#define MAX_LINKS 40
#define DIR_CACHE 1024 /* power of two */
#define READ_ERRORS_FILE "rdma-doctor/read-errors"
#define COMMANDS_DIR "rdma-doctor/commands"

struct rd_source {
	int fd;
	bool live;
	char *root;   /* as given */
	char *dir;    /* directory read */
	char *tmpdir; /* unpacked archive, removed on close */
	/* read errors recorded in a snapshot: path -> errno */
	struct rd_strv err_paths;
	int *err_codes;
	/* resolved directories: path as asked -> canonical; open addressing, cleared when 3/4 full */
	char *cache_key[DIR_CACHE];
	char *cache_val[DIR_CACHE];
	unsigned cache_used;
	/* deadlines (0: none): each read, and the whole run (monotonic ms) */
	int read_timeout_ms;
	long long run_deadline_ms;
	struct rd_reader *reader;
	char *slow_substr; /* tests: RD_TEST_SLOW_READ="substring:ms" delays matching reads */
	char *einval_substr; /* tests: RD_TEST_EINVAL="substring": matching reads fail with EINVAL */
	unsigned einval_remembered; /* counter files that returned EINVAL, not read again */
	int slow_ms;
};

static long long mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

void rd_text_free(struct rd_text *t)
{
	free(t->data);
	t->data = NULL;
	t->len = 0;
}

static void set_err(char *err, size_t errlen, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void set_err(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;
	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static void cache_clear(struct rd_source *src);

/* ---- read errors: replayed from a snapshot, or remembered in this run ---------------------- */

/* From now on, opening canonical path fails with err (without touching the file). */
static void record_error(struct rd_source *src, const char *canonical, int err)
{
	size_t n = src->err_paths.n;
	src->err_codes = rd_xrealloc(src->err_codes, (n + 1) * sizeof(int));
	src->err_codes[n] = err;
	rd_strv_push(&src->err_paths, canonical);
}

static void load_read_errors(struct rd_source *src)
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
			if (code && *p)
				record_error(src, p, code);
		}
		line = nl ? nl + 1 : NULL;
	}
	rd_text_free(&t);
}

static int recorded_error(const struct rd_source *src, const char *canonical)
{
	for (size_t i = 0; i < src->err_paths.n; i++)
		if (strcmp(src->err_paths.v[i], canonical) == 0)
			return src->err_codes[i];
	return 0;
}

/* ---- open / close ------------------------------------------------------------------------ */

static bool is_archive_name(const char *p)
{
	return rd_str_has_suffix(p, ".tar.gz") || rd_str_has_suffix(p, ".tgz") ||
	       rd_str_has_suffix(p, ".tar");
}

/* An archive may hold the root itself or one top directory holding it. */
static char *archive_root(const char *tmpdir)
{
	static const char *const markers[] = {"sys", "proc", "rdma-doctor", "etc"};
	struct stat st;
	for (size_t i = 0; i < sizeof markers / sizeof markers[0]; i++) {
		char *p = rd_path_join(tmpdir, markers[i]);
		bool found = lstat(p, &st) == 0;
		free(p);
		if (found)
			return rd_xstrdup(tmpdir);
	}
	DIR *d = opendir(tmpdir);
	char *only = NULL;
	int count = 0;
	if (d) {
		struct dirent *de;
		while ((de = readdir(d)) != NULL) {
			if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
				continue;
			count++;
			free(only);
			only = rd_path_join(tmpdir, de->d_name);
		}
		closedir(d);
	}
	if (count == 1 && only && lstat(only, &st) == 0 && S_ISDIR(st.st_mode))
		return only;
	free(only);
	return rd_xstrdup(tmpdir);
}

static int unpack_archive(struct rd_source *src, const char *path, char *err, size_t errlen)
{
	int in = open(path, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		int e = errno;
		set_err(err, errlen, "cannot open %s: %s", path, strerror(e));
		return -e;
	}
	const char *tmp = getenv("TMPDIR");
	char *templ = rd_xasprintf("%s/rdma-doctor-root.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(templ)) {
		int e = errno;
		set_err(err, errlen, "cannot make a temporary directory %s: %s", templ, strerror(e));
		free(templ);
		close(in);
		return -e;
	}
	src->tmpdir = templ;
	int dfd = open(templ, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		int e = errno;
		close(in);
		set_err(err, errlen, "cannot open %s: %s", templ, strerror(e));
		return -e;
	}
	char why[512] = "";
	int r = rd_archive_extract(in, dfd, why, sizeof why);
	close(dfd);
	close(in);
	if (r < 0) {
		set_err(err, errlen, "cannot read snapshot %s: %s", path, why);
		return r;
	}
	src->dir = archive_root(templ);
	return 0;
}

int rd_source_open(const char *root, struct rd_source **out, char *err, size_t errlen)
{
	struct rd_source *src = rd_xcalloc(1, sizeof *src);
	src->fd = -1;
	*out = NULL;
	if (!root || !*root)
		root = "/";
	src->root = rd_xstrdup(root);

	struct stat st;
	if (stat(root, &st) < 0) {
		int e = errno;
		set_err(err, errlen, "cannot read root %s: %s", root, strerror(e));
		rd_source_close(src);
		return -e;
	}
	if (S_ISDIR(st.st_mode)) {
		char *real = realpath(root, NULL);
		src->live = real && strcmp(real, "/") == 0;
		free(real);
		src->dir = rd_xstrdup(root);
	} else if (S_ISREG(st.st_mode) && is_archive_name(root)) {
		int r = unpack_archive(src, root, err, errlen);
		if (r < 0) {
			rd_source_close(src);
			return r;
		}
	} else {
		set_err(err, errlen, "root %s is neither a directory nor a snapshot archive (.tar.gz)", root);
		rd_source_close(src);
		return -ENOTDIR;
	}
	src->fd = open(src->dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (src->fd < 0) {
		int e = errno;
		set_err(err, errlen, "cannot open root %s: %s", root, strerror(e));
		rd_source_close(src);
		return -e;
	}
	if (!src->live)
		load_read_errors(src);
	const char *einval = getenv("RD_TEST_EINVAL");
	if (einval && *einval)
		src->einval_substr = rd_xstrdup(einval);
	*out = src;
	return 0;
}

void rd_source_close(struct rd_source *src)
{
	if (!src)
		return;
	if (src->fd >= 0)
		close(src->fd);
	if (src->tmpdir)
		rd_remove_tree(AT_FDCWD, src->tmpdir);
	cache_clear(src);
	rd_reader_stop(src->reader);
	free(src->slow_substr);
	free(src->einval_substr);
	rd_strv_free(&src->err_paths);
	free(src->err_codes);
	free(src->tmpdir);
	free(src->dir);
	free(src->root);
	free(src);
}

void rd_source_set_deadlines(struct rd_source *src, int read_timeout_ms, int run_timeout_ms)
{
	src->read_timeout_ms = read_timeout_ms > 0 ? read_timeout_ms : 0;
	src->run_deadline_ms = run_timeout_ms > 0 ? mono_ms() + run_timeout_ms : 0;
	const char *slow = getenv("RD_TEST_SLOW_READ");
	const char *colon = slow ? strrchr(slow, ':') : NULL;
	if (colon && colon > slow) {
		free(src->slow_substr);
		src->slow_substr = rd_xstrndup(slow, (size_t)(colon - slow));
		src->slow_ms = atoi(colon + 1);
	}
}

bool rd_source_is_live(const struct rd_source *src)
{
	return src->live;
}

const char *rd_source_root(const struct rd_source *src)
{
	return src->root;
}

const char *rd_source_dir(const struct rd_source *src)
{
	return src->dir;
}

int rd_source_fd(const struct rd_source *src)
{
	return src->fd;
}

/* ---- path resolution inside the root ------------------------------------------------------ */

/* A resolved path being built: components joined by '/', no leading slash. */
static void pop_component(struct rd_buf *b)
{
	char *slash = b->len ? strrchr(b->data, '/') : NULL;
	b->len = slash ? (size_t)(slash - b->data) : 0;
	if (b->data)
		b->data[b->len] = '\0';
}

/* Resolves rest[] against an already canonical base.  follow_last: resolve a final link too. */
static int resolve_from(struct rd_source *src, const char *base, const char *rest, bool follow_last,
			char **out)
{
	struct rd_buf cur = {0};
	rd_buf_puts(&cur, base);
	/* pending = components still to walk, kept as one string consumed from the front */
	char *pending = rd_xstrdup(rest);
	char *p = pending;
	int links = 0, ret = 0;

	while (*p) {
		while (*p == '/')
			p++;
		if (!*p)
			break;
		char *end = strchr(p, '/');
		size_t n = end ? (size_t)(end - p) : strlen(p);
		bool last = true;
		for (const char *q = p + n; *q; q++)
			if (*q != '/') {
				last = false;
				break;
			}
		if (n == 1 && p[0] == '.') {
			p += n;
			continue;
		}
		if (n == 2 && p[0] == '.' && p[1] == '.') {
			pop_component(&cur);
			p += n;
			continue;
		}
		size_t saved = cur.len;
		if (cur.len)
			rd_buf_putc(&cur, '/');
		rd_buf_add(&cur, p, n);
		p += n;
		if (last && !follow_last)
			break;
		struct stat st;
		if (fstatat(src->fd, cur.data, &st, AT_SYMLINK_NOFOLLOW) < 0) {
			if (errno == ENOENT && last)
				break; /* a missing final component is the caller's ENOENT */
			ret = -errno;
			break;
		}
		if (!S_ISLNK(st.st_mode)) {
			if (!last && !S_ISDIR(st.st_mode)) {
				ret = -ENOTDIR;
				break;
			}
			continue;
		}
		if (++links > MAX_LINKS) {
			ret = -ELOOP;
			break;
		}
		char target[4096];
		ssize_t tl = readlinkat(src->fd, cur.data, target, sizeof target - 1);
		if (tl < 0) {
			ret = -errno;
			break;
		}
		target[tl] = '\0';
		/* replace the link by its target, then continue with what followed it */
		cur.len = saved;
		cur.data[cur.len] = '\0';
		if (target[0] == '/') {
			cur.len = 0;
			cur.data[0] = '\0';
		}
		char *np = rd_xasprintf("%s/%s", target, p);
		free(pending);
		pending = p = np;
	}
	free(pending);
	if (ret < 0) {
		rd_buf_free(&cur);
		return ret;
	}
	*out = rd_buf_steal(&cur);
	return 0;
}

static const char *fd_path(const char *canonical)
{
	return *canonical ? canonical : ".";
}

static unsigned cache_slot(const char *key)
{
	unsigned h = 2166136261u; /* FNV-1a */
	for (; *key; key++)
		h = (h ^ (unsigned char)*key) * 16777619u;
	return h & (DIR_CACHE - 1);
}

static void cache_clear(struct rd_source *src)
{
	for (unsigned i = 0; i < DIR_CACHE; i++) {
		free(src->cache_key[i]);
		free(src->cache_val[i]);
		src->cache_key[i] = src->cache_val[i] = NULL;
	}
	src->cache_used = 0;
}

/* Canonical form of a directory path, each new directory costing one step from its parent. */
static int resolve_dir(struct rd_source *src, const char *dir, char **out)
{
	while (*dir == '/')
		dir++;
	if (!*dir) {
		*out = rd_xstrdup("");
		return 0;
	}
	unsigned slot = cache_slot(dir);
	while (src->cache_key[slot]) {
		if (strcmp(src->cache_key[slot], dir) == 0) {
			*out = rd_xstrdup(src->cache_val[slot]);
			return 0;
		}
		slot = (slot + 1) & (DIR_CACHE - 1);
	}
	const char *slash = strrchr(dir, '/');
	char *cparent = NULL;
	int r;
	if (slash) {
		char *parent = rd_xstrndup(dir, (size_t)(slash - dir));
		r = resolve_dir(src, parent, &cparent);
		free(parent);
	} else {
		cparent = rd_xstrdup("");
		r = 0;
	}
	if (r == 0)
		r = resolve_from(src, cparent, slash ? slash + 1 : dir, true, out);
	free(cparent);
	if (r < 0)
		return r;
	if (src->cache_used >= DIR_CACHE * 3 / 4)
		cache_clear(src);
	slot = cache_slot(dir);
	while (src->cache_key[slot])
		slot = (slot + 1) & (DIR_CACHE - 1);
	src->cache_key[slot] = rd_xstrdup(dir);
	src->cache_val[slot] = rd_xstrdup(*out);
	src->cache_used++;
	return 0;
}

/* Splits path into its directory's canonical form and the last component. */
static int resolve_parent(struct rd_source *src, const char *path, char **cdir, const char **base)
{
	while (*path == '/')
		path++;
	const char *slash = strrchr(path, '/');
	*base = slash ? slash + 1 : path;
	if (!slash) {
		*cdir = rd_xstrdup("");
		return 0;
	}
	char *dir = rd_xstrndup(path, (size_t)(slash - path));
	int r = resolve_dir(src, dir, cdir);
	free(dir);
	return r;
}

static int resolve(struct rd_source *src, const char *path, bool follow_last, char **out)
{
	char *cdir = NULL;
	const char *base;
	int r = resolve_parent(src, path, &cdir, &base);
	if (r < 0)
		return r;
	r = resolve_from(src, cdir, base, follow_last, out);
	free(cdir);
	return r;
}

/* Opens path inside the root with flags (O_NOFOLLOW added).  The common case, a last component
 * that is not a link, costs one openat; otherwise the link is resolved first.  Returns the fd
 * or -errno (a recorded read error counts as the error).  *canon_out (when not NULL) gets the
 * resolved path, also on a failure after resolution (else NULL). */
static int open_in_root_canon(struct rd_source *src, const char *path, int flags, char **canon_out)
{
	char *cdir = NULL, *canon = NULL;
	if (canon_out)
		*canon_out = NULL;
	const char *base;
	int r = resolve_parent(src, path, &cdir, &base);
	if (r < 0)
		return r;
	bool simple = *base && strcmp(base, ".") != 0 && strcmp(base, "..") != 0;
	if (simple)
		canon = *cdir ? rd_xasprintf("%s/%s", cdir, base) : rd_xstrdup(base);
	else if ((r = resolve_from(src, cdir, base, true, &canon)) < 0) {
		free(cdir);
		return r;
	}
	for (int attempt = 0; attempt < 2; attempt++) {
		int rec = recorded_error(src, canon);
		if (rec) {
			r = -rec;
			break;
		}
		int fd = openat(src->fd, fd_path(canon), flags | O_NOFOLLOW | O_CLOEXEC);
		if (fd >= 0 || attempt == 1 || (errno != ELOOP && errno != ENOTDIR)) {
			r = fd >= 0 ? fd : -errno;
			break;
		}
		/* the last component is a symbolic link: resolve it and open its target */
		char *full = NULL;
		if ((r = resolve_from(src, cdir, base, true, &full)) < 0)
			break;
		free(canon);
		canon = full;
	}
	free(cdir);
	if (canon_out)
		*canon_out = canon;
	else
		free(canon);
	return r;
}

static int open_in_root(struct rd_source *src, const char *path, int flags)
{
	return open_in_root_canon(src, path, flags, NULL);
}

/* Port counters: reading one makes the firmware answer a MAD on some HCAs, and one it refuses
 * (EINVAL) floods the kernel log each time, so a refusal is remembered for the rest of the run. */
static bool is_counter_path(const char *canon)
{
	return strstr(canon, "/counters/") || strstr(canon, "/hw_counters/");
}

unsigned rd_source_einval_remembered(const struct rd_source *src)
{
	return src->einval_remembered;
}

int rd_resolve(struct rd_source *src, const char *path, char **canonical)
{
	return resolve(src, path, true, canonical);
}

/* ---- reading ------------------------------------------------------------------------------ */

static long long mono_ms(void);

/* single: one read() of at most cap bytes (what libibumad does); otherwise read to EOF, with
 * EFBIG past cap unless prefix_ok.  With deadlines, the read runs in the worker of reader.h. */
static int read_common(struct rd_source *src, const char *path, size_t cap, bool prefix_ok, bool single,
		       struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	long long left = 0;
	if (src->run_deadline_ms) {
		left = src->run_deadline_ms - mono_ms();
		if (left <= 0) {
			out->err = ETIMEDOUT;
			return -ETIMEDOUT;
		}
	}
	char *canon = NULL;
	int fd = open_in_root_canon(src, path, O_RDONLY | O_NONBLOCK | O_NOCTTY, &canon);
	int r;
	if (fd < 0) {
		out->err = -fd;
		r = fd;
	} else if (src->einval_substr && strstr(path, src->einval_substr)) {
		close(fd); /* tests: the firmware refusing this counter */
		out->err = EINVAL;
		r = -EINVAL;
	} else if (!src->read_timeout_ms) {
		r = rd_read_fd(fd, cap, prefix_ok, single, out);
	} else {
		int timeout = src->read_timeout_ms;
		if (left && left < timeout)
			timeout = (int)left;
		int slow = src->slow_substr && strstr(path, src->slow_substr) ? src->slow_ms : 0;
		r = rd_reader_read(&src->reader, fd, cap, prefix_ok, single, timeout, slow, out);
	}
	if (r == -EINVAL && fd >= 0 && canon && is_counter_path(canon)) {
		record_error(src, canon, EINVAL);
		src->einval_remembered++;
	}
	free(canon);
	return r;
}

int rd_read_file(struct rd_source *src, const char *path, size_t cap, struct rd_text *out)
{
	return read_common(src, path, cap, false, false, out);
}

int rd_read_prefix(struct rd_source *src, const char *path, size_t max, struct rd_text *out)
{
	return read_common(src, path, max, true, true, out);
}

int rd_read_attr(struct rd_source *src, const char *path, struct rd_text *out)
{
	int r = rd_read_file(src, path, RD_CAP_ATTR, out);
	if (r == 0 && out->len && out->data[out->len - 1] == '\n')
		out->data[--out->len] = '\0';
	return r;
}

int rd_list_dir(struct rd_source *src, const char *path, struct rd_strv *names)
{
	int fd = open_in_root(src, path, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return fd;
	DIR *d = fdopendir(fd);
	if (!d) {
		int e = errno;
		close(fd);
		return -e;
	}
	struct dirent *de;
	errno = 0;
	while ((de = readdir(d)) != NULL) {
		if (strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0)
			continue;
		rd_strv_push(names, de->d_name);
	}
	closedir(d);
	rd_strv_sort(names);
	return 0;
}

int rd_read_link(struct rd_source *src, const char *path, char **target)
{
	char *canon = NULL;
	int r = resolve(src, path, false, &canon);
	if (r < 0)
		return r;
	char buf[4096];
	ssize_t n = readlinkat(src->fd, fd_path(canon), buf, sizeof buf - 1);
	free(canon);
	if (n < 0)
		return -errno;
	*target = rd_xstrndup(buf, (size_t)n);
	return 0;
}

int rd_stat(struct rd_source *src, const char *path, bool follow, struct stat *st)
{
	char *canon = NULL;
	int r = resolve(src, path, follow, &canon);
	if (r < 0)
		return r;
	r = fstatat(src->fd, fd_path(canon), st, AT_SYMLINK_NOFOLLOW) < 0 ? -errno : 0;
	free(canon);
	return r;
}

bool rd_exists(struct rd_source *src, const char *path)
{
	struct stat st;
	return rd_stat(src, path, true, &st) == 0;
}

/* ---- commands ----------------------------------------------------------------------------- */

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})
const struct rd_command rd_commands[] = {
	{"ofed_info-s", ARGV("ofed_info", "-s"), 5000},
	{"dkms-status", ARGV("dkms", "status"), 15000},
	{"systemctl-is-active-openibd", ARGV("systemctl", "is-active", "openibd"), 5000},
	{"systemctl-is-enabled-openibd", ARGV("systemctl", "is-enabled", "openibd"), 5000},
	{"dmesg", ARGV("dmesg"), 5000},
	{"ibv_devinfo-v", ARGV("ibv_devinfo", "-v"), 10000},
	{"rdma-link", ARGV("rdma", "link", "show"), 5000},
	{NULL, NULL, 0},
};

const struct rd_command *rd_command_find(const char *name)
{
	for (const struct rd_command *c = rd_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}


static void child_exec(const struct rd_command *c, int outfd, int errpipe, bool merge_stderr)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 2);
	}
	dup2(outfd, 1);
	if (merge_stderr)
		dup2(outfd, 2);
	const char *path = getenv("PATH");
	char *full = rd_xasprintf("%s%s/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "",
				  path && *path ? ":" : "");
	setenv("PATH", full, 1);
	free(full);
	setenv("LC_ALL", "C", 1);
	char *args[16];
	size_t n = 0;
	for (; c->argv[n] && n + 1 < sizeof args / sizeof args[0]; n++)
		args[n] = rd_xstrdup(c->argv[n]);
	args[n] = NULL;
	execvp(args[0], args);
	int e = errno;
	if (write(errpipe, &e, sizeof e) < 0) {
		/* nothing more to do */
	}
	for (size_t i = 0; i < n; i++)
		free(args[i]); /* the program is absent: leave nothing for valgrind to call lost */
	_exit(127);
}

static int run_live(const struct rd_command *c, bool merge_stderr, struct rd_text *out)
{
	int pfd[2], epfd[2];
	if (pipe2(pfd, O_CLOEXEC) < 0)
		return -errno;
	if (pipe2(epfd, O_CLOEXEC) < 0) {
		int e = errno;
		close(pfd[0]);
		close(pfd[1]);
		return -e;
	}
	pid_t pid = fork();
	if (pid < 0) {
		int e = errno;
		close(pfd[0]), close(pfd[1]), close(epfd[0]), close(epfd[1]);
		return -e;
	}
	if (pid == 0)
		child_exec(c, pfd[1], epfd[1], merge_stderr);
	close(pfd[1]);
	close(epfd[1]);

	struct rd_buf b = {0};
	long long deadline = mono_ms() + c->timeout_ms;
	bool timed_out = false, too_big = false;
	for (;;) {
		long long left = deadline - mono_ms();
		if (left <= 0) {
			timed_out = true;
			break;
		}
		struct pollfd p = {.fd = pfd[0], .events = POLLIN};
		int pr = poll(&p, 1, (int)left);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr <= 0) {
			timed_out = pr == 0;
			break;
		}
		char chunk[8192];
		ssize_t n = read(pfd[0], chunk, sizeof chunk);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		if (b.len + (size_t)n > RD_CAP_FILE) {
			too_big = true;
			break;
		}
		rd_buf_add(&b, chunk, (size_t)n);
	}
	close(pfd[0]);
	if (timed_out || too_big)
		kill(pid, SIGKILL);
	int st = 0;
	while (waitpid(pid, &st, 0) < 0 && errno == EINTR)
		;
	int exec_err = 0;
	if (read(epfd[0], &exec_err, sizeof exec_err) != (ssize_t)sizeof exec_err)
		exec_err = 0;
	close(epfd[0]);

	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (exec_err || timed_out || too_big) {
		out->err = exec_err ? exec_err : timed_out ? ETIMEDOUT : EFBIG;
		rd_buf_free(&b);
		return -out->err;
	}
	out->len = b.len;
	out->data = rd_buf_steal(&b);
	return 0;
}

int rd_run_command(struct rd_source *src, const char *name, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	const struct rd_command *c = rd_command_find(name);
	if (!c) {
		out->err = EINVAL;
		return -EINVAL;
	}
	if (src->live)
		return run_live(c, false, out);
	char *path = rd_xasprintf("%s/%s", COMMANDS_DIR, name);
	int r = rd_read_file(src, path, RD_CAP_FILE, out);
	free(path);
	if (r == -ENOENT) {
		/* a snapshot records a command that could not run (absent: ENOENT) in <name>.error */
		struct rd_text e = {0};
		char *ep = rd_xasprintf("%s/%s.error", COMMANDS_DIR, name);
		int code = rd_read_attr(src, ep, &e) == 0 ? rd_errno_from_name(e.data) : 0;
		rd_text_free(&e);
		free(ep);
		out->err = code > 0 ? code : RD_ENOTCAPTURED;
		return -out->err;
	}
	if (r == 0) {
		struct rd_text st = {0};
		char *sp = rd_xasprintf("%s/%s.status", COMMANDS_DIR, name);
		if (rd_read_attr(src, sp, &st) == 0)
			out->status = atoi(st.data);
		else
			out->status = 0;
		rd_text_free(&st);
		free(sp);
	}
	return r;
}

int rd_run_program(struct rd_source *src, const char *const argv[], int timeout_ms, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	if (!src->live) {
		out->err = EPERM;
		return -EPERM; /* in root mode no program is ever run */
	}
	const struct rd_command c = {argv[0], argv, timeout_ms};
	return run_live(&c, true, out);
}
