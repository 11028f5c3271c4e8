/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* RPM hosts (model/rpmdb.h): os-release, /etc/infiniband/info, and the rpm database read by librpm
 * in a child process from a private copy of its files. */
#include "model/rpmdb.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <rpm/header.h>
#include <rpm/rpmdb.h>
#include <rpm/rpmlog.h>
#include <rpm/rpmmacro.h>
#include <rpm/rpmtag.h>
#include <rpm/rpmts.h>

#include "model/stack.h"
#include "source/source.h"
#include "source/spawn.h"

const char *const rd_rpm_names[] = {
	"mlnx-ofa_kernel", "kmod-mlnx-ofa_kernel", "mlnx-ofa_kernel-modules", "mlnx-ofa_kernel-dkms",
	"mlnx-ofed-all", "mlnx-ofed-basic", "mlnx-ofed-hpc", "mlnx-ofed-kernel-only",
	"doca-ofed", "doca-ofed-userspace", "ofed-scripts", "rdma-core", "libibverbs", "mft", NULL,
};

static bool known_name(const char *s)
{
	for (const char *const *n = rd_rpm_names; *n; n++)
		if (strcmp(*n, s) == 0)
			return true;
	return false;
}

const char *rd_rpm_backend_name(enum rd_rpm_backend b)
{
	switch (b) {
	case RD_RPMDB_SQLITE: return "sqlite";
	case RD_RPMDB_BDB: return "bdb_ro";
	case RD_RPMDB_NDB: return "ndb";
	case RD_RPMDB_NONE: break;
	}
	return "none";
}

/* ---- parsers --------------------------------------------------------------------------------- */

static void copy_value(const char *v, size_t n, char *out, size_t len)
{
	while (n && (v[n - 1] == ' ' || v[n - 1] == '\t' || v[n - 1] == '\r'))
		n--;
	if (n >= 2 && (v[0] == '"' || v[0] == '\'') && v[n - 1] == v[0]) {
		v++;
		n -= 2;
	}
	size_t o = 0;
	for (size_t i = 0; i < n && o + 1 < len; i++) {
		if (v[i] == '\\' && i + 1 < n)
			i++;
		unsigned char c = (unsigned char)v[i];
		out[o++] = c < 0x20 || c == 0x7f ? '?' : (char)c;
	}
	out[o] = '\0';
}

int rd_parse_os_release(const char *text, struct rd_os_release *out)
{
	memset(out, 0, sizeof *out);
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		while (n && (*p == ' ' || *p == '\t'))
			p++, n--;
		static const struct {
			const char *key;
			size_t off, len;
		} keys[] = {
			{"ID=", offsetof(struct rd_os_release, id), sizeof out->id},
			{"ID_LIKE=", offsetof(struct rd_os_release, id_like), sizeof out->id_like},
			{"VERSION_ID=", offsetof(struct rd_os_release, version_id), sizeof out->version_id},
		};
		for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
			size_t kl = strlen(keys[k].key);
			if (n >= kl && memcmp(p, keys[k].key, kl) == 0)
				copy_value(p + kl, n - kl, (char *)out + keys[k].off, keys[k].len);
		}
		p = e ? e + 1 : NULL;
	}
	return 0;
}

static bool word_in(const char *list, const char *w)
{
	size_t wl = strlen(w);
	for (const char *p = list; *p;) {
		size_t n = strcspn(p, " \t");
		if (n == wl && memcmp(p, w, n) == 0)
			return true;
		p += n;
		p += strspn(p, " \t");
	}
	return false;
}

enum rd_rpm_backend rd_os_release_rpmdb(const struct rd_os_release *os)
{
	const char *id = os->id;
	unsigned major = (unsigned)strtoul(os->version_id, NULL, 10);
	if (word_in(id, "sles") || word_in(id, "sled") || word_in(id, "opensuse-leap") ||
	    word_in(id, "opensuse-tumbleweed") || word_in(os->id_like, "suse"))
		return RD_RPMDB_NDB;
	if (strcmp(id, "fedora") == 0)
		return major >= 33 || !major ? RD_RPMDB_SQLITE : RD_RPMDB_BDB;
	bool el = word_in(id, "rhel") || word_in(id, "centos") || word_in(id, "rocky") || word_in(id, "almalinux") ||
		  word_in(id, "ol") || word_in(id, "amzn") || word_in(id, "anolis") || word_in(id, "openEuler") ||
		  word_in(os->id_like, "rhel") || word_in(os->id_like, "fedora") || word_in(os->id_like, "centos");
	if (!el)
		return RD_RPMDB_NONE;
	if (strcmp(id, "amzn") == 0) /* Amazon Linux 2 (BDB), 2023 (sqlite) */
		return major >= 2023 ? RD_RPMDB_SQLITE : RD_RPMDB_BDB;
	if (!major)
		return RD_RPMDB_NONE;
	return major >= 9 ? RD_RPMDB_SQLITE : RD_RPMDB_BDB;
}

int rd_parse_ib_info(const char *text, char *kver, size_t len)
{
	kver[0] = '\0';
	for (const char *p = text; p && *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		const char *q = p;
		while (n && (*q == ' ' || *q == '\t'))
			q++, n--;
		if (n >= 5 && memcmp(q, "echo", 4) == 0 && (q[4] == ' ' || q[4] == '\t')) {
			q += 5, n -= 5;
			while (n && (*q == ' ' || *q == '\t' || *q == '"' || *q == '\''))
				q++, n--;
		}
		if (n > 7 && memcmp(q, "Kernel=", 7) == 0) {
			q += 7, n -= 7;
			size_t m = 0;
			while (m < n && q[m] > ' ' && q[m] != '"' && q[m] != '\'' && q[m] != 0x7f)
				m++;
			if (m && m < len) {
				memcpy(kver, q, m);
				kver[m] = '\0';
				return 0;
			}
		}
		p = e ? e + 1 : NULL;
	}
	return -RD_EPARSE;
}

int rd_rpm_release_kernel(const char *release, char *kver, size_t len)
{
	kver[0] = '\0';
	const char *k = NULL;
	for (const char *p = strstr(release, "kver."); p; p = strstr(p + 1, "kver."))
		if (p == release || p[-1] == '.')
			k = p + 5;
	if (!k || !*k || strlen(k) >= len)
		return -RD_EPARSE;
	const char *us = strchr(k, '_');
	if (!us || us == k)
		return -RD_EPARSE;
	for (const char *c = k; *c; c++)
		if (!((*c >= '0' && *c <= '9') || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || *c == '.' ||
		      *c == '_' || *c == '+' || *c == '~'))
			return -RD_EPARSE;
	memcpy(kver, k, strlen(k) + 1);
	kver[us - k] = '-';
	return 0;
}

bool rd_rpm_version_is_ofed(const char *version)
{
	return strstr(version, "mlnx") != NULL;
}

/* field i (0-based) of a tab-separated line of n bytes, into out; false when missing or too long */
static bool field(const char *line, size_t n, unsigned i, char *out, size_t len)
{
	const char *p = line, *end = line + n;
	for (unsigned k = 0; k < i; k++) {
		const char *t = memchr(p, '\t', (size_t)(end - p));
		if (!t)
			return false;
		p = t + 1;
	}
	const char *t = memchr(p, '\t', (size_t)(end - p));
	size_t m = (size_t)((t ? t : end) - p);
	if (m >= len)
		return false;
	for (size_t k = 0; k < m; k++)
		if ((unsigned char)p[k] < 0x20 || p[k] == 0x7f)
			return false;
	memcpy(out, p, m);
	out[m] = '\0';
	return true;
}

static size_t tabs(const char *line, size_t n)
{
	size_t t = 0;
	for (size_t i = 0; i < n; i++)
		t += line[i] == '\t';
	return t;
}

int rd_rpm_parse_answer(const char *text, size_t len, struct rd_rpmdb *out)
{
	bool done = false;
	size_t cap = 0;
	for (size_t off = 0; off < len;) {
		const char *line = text + off;
		const char *nl = memchr(line, '\n', len - off);
		size_t n = nl ? (size_t)(nl - line) : len - off;
		off += n + (nl != NULL);
		if (!nl)
			break; /* a line cut short: the child did not finish it */
		if (n >= 2 && line[0] == 'P' && line[1] == '\t') {
			struct rd_rpm_pkg p;
			memset(&p, 0, sizeof p);
			char epoch[24];
			if (!field(line, n, 1, p.name, sizeof p.name) || !field(line, n, 2, epoch, sizeof epoch) ||
			    !field(line, n, 3, p.version, sizeof p.version) || !field(line, n, 4, p.release, sizeof p.release) ||
			    !field(line, n, 5, p.arch, sizeof p.arch) || tabs(line, n) != 5 ||
			    !known_name(p.name) || !p.version[0])
				continue;
			char *end;
			errno = 0;
			p.epoch = strtoul(epoch, &end, 10);
			if (!epoch[0] || *end || errno || epoch[0] == '-')
				continue;
			if (p.epoch)
				snprintf(p.evr, sizeof p.evr, "%lu:%s%s%s", p.epoch, p.version, p.release[0] ? "-" : "", p.release);
			else
				snprintf(p.evr, sizeof p.evr, "%s%s%s", p.version, p.release[0] ? "-" : "", p.release);
			if (out->npkgs >= 1024)
				continue;
			if (out->npkgs == cap) {
				cap = cap ? cap * 2 : 8;
				out->pkgs = rd_xrealloc(out->pkgs, cap * sizeof *out->pkgs);
			}
			out->pkgs[out->npkgs++] = p;
		} else if (n >= 2 && line[0] == 'T' && line[1] == '\t') {
			char num[24], *end;
			if (!field(line, n, 1, num, sizeof num) || !num[0] || num[0] == '-')
				continue;
			errno = 0;
			unsigned long long v = strtoull(num, &end, 10);
			if (*end || errno)
				continue;
			out->headers = (size_t)v;
			done = true;
		} else if (n >= 2 && line[0] == 'E' && line[1] == '\t') {
			char msg[200];
			size_t m = n - 2 < sizeof msg - 1 ? n - 2 : sizeof msg - 1;
			memcpy(msg, line + 2, m);
			msg[m] = '\0';
			for (size_t k = 0; k < m; k++)
				if ((unsigned char)msg[k] < 0x20 || msg[k] == 0x7f)
					msg[k] = '?';
			while (m && msg[m - 1] == '?')
				msg[--m] = '\0';
			out->err = RD_EPARSE;
			snprintf(out->reason, sizeof out->reason, "%s cannot be read: librpm: %s", out->path ? out->path : "the rpm database",
				 msg[0] ? msg : "error");
			done = true;
		}
	}
	return done ? 0 : -RD_EPARSE;
}

/* ---- the child: librpm ---------------------------------------------------------------------- */

#define RD_RPM_SYMS(X)                                                                                  \
	X(rpmDefineMacro) X(rpmtsCreate) X(rpmtsSetRootDir) X(rpmtsSetVSFlags) X(rpmtsOpenDB)           \
	X(rpmtsInitIterator) X(rpmdbNextIterator) X(rpmdbFreeIterator) X(headerGetString)              \
	X(headerGetNumber) X(rpmtsFree) X(rpmlogSetCallback) X(rpmlogRecMessage) X(rpmlogRecPriority)

struct rd_librpm {
#define RD_RPM_MEMBER(name) __typeof__(&name) name;
	RD_RPM_SYMS(RD_RPM_MEMBER)
#undef RD_RPM_MEMBER
};

static char first_error[200];
static const struct rd_librpm *logfns;
static const char *private_dir; /* left out of messages: they name the root's paths */

/* msg without private_dir, the text after its last ": " when that leaves a cause (sqlite's
 * "sqlite failure: CREATE TABLE ...: file is not a database" -> "file is not a database"),
 * control characters as spaces */
static void set_first_error(const char *m)
{
	char buf[512];
	size_t o = 0, dl = private_dir ? strlen(private_dir) : 0;
	for (const char *p = m; *p && o + 1 < sizeof buf;) {
		if (dl && strncmp(p, private_dir, dl) == 0) {
			p += dl;
			continue;
		}
		unsigned char c = (unsigned char)*p++;
		buf[o++] = c < 0x20 || c == 0x7f ? ' ' : (char)c;
	}
	while (o && buf[o - 1] == ' ')
		o--;
	buf[o] = '\0';
	const char *cause = buf;
	if (strncmp(buf, "sqlite failure: ", 16) == 0) {
		const char *last = NULL;
		for (const char *p = strstr(buf, ": "); p; p = strstr(p + 1, ": "))
			last = p;
		if (last && last[2])
			cause = last + 2;
	}
	snprintf(first_error, sizeof first_error, "%.199s", cause);
}

static int log_cb(rpmlogRec rec, rpmlogCallbackData data)
{
	(void)data;
	if (!first_error[0] && logfns->rpmlogRecPriority(rec) <= RPMLOG_ERR) {
		const char *m = logfns->rpmlogRecMessage(rec);
		set_first_error(m ? m : "error");
	}
	return 0; /* nothing printed */
}

static void put_clean(struct rd_buf *b, const char *s, size_t max)
{
	for (size_t i = 0; s && s[i] && i < max; i++) {
		unsigned char c = (unsigned char)s[i];
		rd_buf_putc(b, c < 0x20 || c == 0x7f ? '?' : (char)c);
	}
}

static void write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			return;
		p += w;
		n -= (size_t)w;
	}
}

static void child_say(int fd, const char *fmt, const char *a, const char *b)
{
	char line[512];
	int n = snprintf(line, sizeof line, fmt, a, b);
	for (int i = 2; i < n && i < (int)sizeof line - 1; i++)
		if ((unsigned char)line[i] < 0x20 && line[i] != '\n')
			line[i] = '?';
	if (n > 0)
		write_all(fd, line, (size_t)n < sizeof line ? (size_t)n : sizeof line - 1);
}

static void child_main(int fd, const char *dir, const char *soname, enum rd_rpm_backend backend)
{
	void *h = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		child_say(fd, "E\t%s%s\n", e ? e : "dlopen failed", " (apt-get install librpm9)");
		return;
	}
	struct rd_librpm t;
#define RD_RPM_SYM(name)                                                                                \
	{                                                                                               \
		void *sym = dlsym(h, #name);                                                            \
		if (!sym) {                                                                             \
			child_say(fd, "E\t%s has no function %s\n", soname, #name);                     \
			return;                                                                         \
		}                                                                                       \
		memcpy(&t.name, &sym, sizeof sym);                                                      \
	}
	RD_RPM_SYMS(RD_RPM_SYM)
#undef RD_RPM_SYM
	logfns = &t;
	private_dir = dir;
	t.rpmlogSetCallback(log_cb, NULL);
	/* no rpmReadConfigFiles: the host's rpm configuration is never read */
	t.rpmDefineMacro(NULL, "_dbpath /var/lib/rpm", 0);
	char m[64];
	snprintf(m, sizeof m, "_db_backend %s", rd_rpm_backend_name(backend));
	t.rpmDefineMacro(NULL, m, 0);
	rpmts ts = t.rpmtsCreate();
	if (!ts || t.rpmtsSetRootDir(ts, dir) != 0) {
		child_say(fd, "E\t%s%s\n", "cannot set up a transaction set", "");
		return;
	}
	t.rpmtsSetVSFlags(ts, RPMVSF_MASK_NODIGESTS | RPMVSF_MASK_NOSIGNATURES | RPMVSF_NOHDRCHK);
	if (t.rpmtsOpenDB(ts, O_RDONLY) != 0) {
		child_say(fd, "E\t%s%s\n", first_error[0] ? first_error : "cannot open the database", "");
		t.rpmtsFree(ts);
		return;
	}
	struct rd_buf b = {0};
	size_t headers = 0, sent = 0;
	rpmdbMatchIterator mi = t.rpmtsInitIterator(ts, RPMDBI_PACKAGES, NULL, 0);
	for (Header hd; mi && (hd = t.rpmdbNextIterator(mi));) {
		headers++;
		const char *name = t.headerGetString(hd, RPMTAG_NAME);
		if (!name || !known_name(name) || sent >= 512)
			continue;
		sent++;
		rd_buf_printf(&b, "P\t%s\t%llu\t", name, (unsigned long long)t.headerGetNumber(hd, RPMTAG_EPOCH));
		put_clean(&b, t.headerGetString(hd, RPMTAG_VERSION), 63);
		rd_buf_putc(&b, '\t');
		put_clean(&b, t.headerGetString(hd, RPMTAG_RELEASE), 127);
		rd_buf_putc(&b, '\t');
		put_clean(&b, t.headerGetString(hd, RPMTAG_ARCH), 23);
		rd_buf_putc(&b, '\n');
	}
	if (mi)
		t.rpmdbFreeIterator(mi);
	if (!headers && first_error[0])
		rd_buf_printf(&b, "E\t%s\n", first_error);
	else
		rd_buf_printf(&b, "T\t%zu\n", headers);
	write_all(fd, b.data, b.len);
	rd_buf_free(&b);
	t.rpmtsFree(ts); /* after the answer: a failure in it cannot lose it */
}

/* ---- the parent -------------------------------------------------------------------------------- */

/* SIGINT, SIGTERM and SIGHUP while the private copy exists only set a flag: the child is killed,
 * the copy removed, the caller's handling restored, and the signal raised again. */
static volatile sig_atomic_t caught;
static void on_signal(int sig)
{
	caught = sig;
}
static const int held_sigs[] = {SIGINT, SIGTERM, SIGHUP};
struct held {
	struct sigaction old[3];
	bool installed[3];
};

static void hold_signals(struct held *h)
{
	struct sigaction sa = {.sa_handler = on_signal};
	sigemptyset(&sa.sa_mask);
	caught = 0;
	for (int i = 0; i < 3; i++) {
		h->installed[i] = false;
		if (sigaction(held_sigs[i], NULL, &h->old[i]) == 0 && h->old[i].sa_handler != SIG_IGN)
			h->installed[i] = sigaction(held_sigs[i], &sa, NULL) == 0;
	}
}

static void release_signals(struct held *h)
{
	for (int i = 0; i < 3; i++)
		if (h->installed[i])
			sigaction(held_sigs[i], &h->old[i], NULL);
	if (caught)
		raise(caught);
}

struct child_args {
	const char *dir, *soname;
	enum rd_rpm_backend backend;
};

static void child_run(int fd, void *arg)
{
	const struct child_args *c = arg;
	child_main(fd, c->dir, c->soname, c->backend);
}

/* Runs the child on dir (source/spawn.h: forked, killed at timeout_ms or when a held signal
 * came); its answer into *ans.  Returns 0, or an errno with reason filled. */
static int run_child(const char *dir, const char *soname, enum rd_rpm_backend backend, long long timeout_ms,
		     const char *file, struct rd_buf *ans, char *reason, size_t rlen)
{
	struct child_args args = {dir, soname, backend};
	const struct rd_spawn s = {.fn = child_run, .arg = &args, .timeout_ms = (int)timeout_ms, .cap = 1u << 20,
				   .cap_keeps_reading = true, .stop = &caught};
	int status = 0;
	int r = rd_spawn_run(&s, ans, &status);
	if (r == -EINTR) {
		snprintf(reason, rlen, "%s cannot be read: interrupted (%s)", file, strsignal(caught));
		return EINTR;
	}
	if (r == -ETIMEDOUT) {
		snprintf(reason, rlen, "%s cannot be read: librpm did not finish within %lld ms", file, timeout_ms);
		return ETIMEDOUT;
	}
	if (r < 0) {
		snprintf(reason, rlen, "%s cannot be read: fork: %s", file, strerror(-r));
		return -r;
	}
	if (WIFSIGNALED(status)) {
		snprintf(reason, rlen, "%s cannot be read: librpm died of signal %d (%s)", file, WTERMSIG(status),
			 strsignal(WTERMSIG(status)));
		return EIO;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) != 0) { /* a sanitizer's report of a crash, say */
		snprintf(reason, rlen, "%s cannot be read: librpm exited with status %d", file, WEXITSTATUS(status));
		return EIO;
	}
	return 0;
}

static int write_private(const char *dir, const char *name, const struct rd_text *t)
{
	char *p = rd_xasprintf("%s/%s", dir, name);
	int fd = open(p, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
	free(p);
	if (fd < 0)
		return errno;
	const char *d = t->data;
	size_t n = t->len;
	int e = 0;
	while (n) {
		ssize_t w = write(fd, d, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0) {
			e = errno;
			break;
		}
		d += w;
		n -= (size_t)w;
	}
	if (close(fd) < 0 && !e)
		e = errno;
	return e;
}

static void read_attr_file(struct rd_source *src, const char *path, struct rd_attr *a)
{
	struct rd_text t;
	a->path = rd_xasprintf("/%s", path);
	rd_read_file(src, path, RD_CAP_ATTR, &t);
	a->value = t.data;
	a->err = t.err;
}

static const char *const db_dirs[] = {"var/lib/rpm", "usr/lib/sysimage/rpm", NULL};

static const char *db_file(enum rd_rpm_backend b)
{
	return b == RD_RPMDB_SQLITE ? "rpmdb.sqlite" : b == RD_RPMDB_BDB ? "Packages" : "Packages.db";
}

static bool is_file(struct rd_source *src, const char *dir, const char *name)
{
	char *p = rd_xasprintf("%s/%s", dir, name);
	struct stat st;
	bool ok = rd_stat(src, p, true, &st) == 0;
	free(p);
	return ok;
}

static void set_err(struct rd_rpmdb *r, int err, const char *fmt, const char *a, const char *b)
{
	r->err = err;
	snprintf(r->reason, sizeof r->reason, fmt, a, b);
}

/* the backend's files besides the main one: copied when present */
static const char *const *companions(enum rd_rpm_backend b)
{
	static const char *const sqlite[] = {"rpmdb.sqlite-wal", "rpmdb.sqlite-shm", NULL};
	static const char *const ndb[] = {"Index.db", NULL};
	static const char *const none[] = {NULL};
	return b == RD_RPMDB_SQLITE ? sqlite : b == RD_RPMDB_NDB ? ndb : none;
}

/* The files handed to librpm: the main one, then the companions present. */
struct db_file {
	const char *name;
	char *rel;
	struct rd_text t;
	bool present;
};

static unsigned long long mib(unsigned long long n)
{
	return (n + (1u << 20) - 1) >> 20;
}

/* Stats every file before anything is read: what is copied is bounded by its length (the memory
 * and TMPDIR it costs) and by its allocated size, and a file much longer than what the root holds
 * on disk (mostly holes) is not copied either.  Returns 0, or EFBIG with the reason set. */
static int bound_files(struct rd_source *src, struct db_file *f, size_t n, struct rd_rpmdb *r)
{
	unsigned long long len = 0, alloc = 0, holes = 0;
	const char *holey = NULL;
	for (size_t i = 0; i < n; i++) {
		struct stat st;
		f[i].present = rd_stat(src, f[i].rel, true, &st) == 0 && S_ISREG(st.st_mode);
		if (!f[i].present)
			continue;
		unsigned long long l = st.st_size > 0 ? (unsigned long long)st.st_size : 0;
		unsigned long long a = st.st_blocks > 0 ? (unsigned long long)st.st_blocks * 512 : 0;
		len += l;
		alloc += a;
		if (l > a && l - a > holes) {
			holes = l - a;
			holey = f[i].name;
		}
	}
	if (len > RD_RPMDB_CAP || alloc > RD_RPMDB_CAP) {
		snprintf(r->reason, sizeof r->reason,
			 "%s cannot be read: too big to copy for librpm (%llu MiB long, %llu MiB allocated with its "
			 "companion files; at most %u MiB)",
			 r->path, mib(len), mib(alloc), RD_RPMDB_CAP >> 20);
	} else if (holes > RD_RPMDB_HOLES) {
		snprintf(r->reason, sizeof r->reason,
			 "%s cannot be read: %s is sparse (%llu MiB of it is not on disk; a copy for librpm would "
			 "cost that much memory and TMPDIR; at most %u MiB)",
			 r->path, holey, mib(holes), RD_RPMDB_HOLES >> 20);
	} else {
		return 0;
	}
	r->err = EFBIG;
	/* an EFBIG read of the main file (nothing read), so that a snapshot replays the refusal */
	struct rd_text t;
	rd_read_file(src, f[0].rel, 0, &t);
	rd_text_free(&t);
	return EFBIG;
}

static void read_db(struct rd_source *src, const char *soname, const char *dir, struct rd_rpmdb *r)
{
	/* everything is read before the private directory exists: a read that never returns (its
	 * loader abandoned, source/watchdog.h) or a signal meanwhile leaves nothing behind */
	struct db_file f[4] = {{.name = db_file(r->backend)}};
	size_t n = 1;
	for (const char *const *c = companions(r->backend); *c && n < 4; c++)
		f[n++].name = *c;
	for (size_t i = 0; i < n; i++)
		f[i].rel = rd_xasprintf("%s/%s", dir, f[i].name);
	int e = bound_files(src, f, n, r);
	size_t left = RD_RPMDB_CAP;
	for (size_t i = 0; i < n && !e; i++) {
		if (i && !f[i].present)
			continue;
		/* read (so a snapshot keeps it) even when not handed over: sqlite rebuilds -shm itself */
		rd_read_file(src, f[i].rel, left, &f[i].t);
		if (f[i].t.err == 0)
			left -= f[i].t.len;
		if (i == 0 && f[i].t.err) {
			e = f[i].t.err;
			r->err = e;
			if (e == EFBIG) /* grown since it was stat'ed, or a snapshot's refusal replayed */
				snprintf(r->reason, sizeof r->reason,
					 "%s cannot be read: too big to copy for librpm (at most %u MiB with its companion files)",
					 r->path, RD_RPMDB_CAP >> 20);
			else
				set_err(r, e, "%s cannot be read: %s", r->path, rd_strerror(e));
		}
	}
	if (e)
		goto out;
	const char *tmpbase = getenv("TMPDIR");
	if (!tmpbase || !*tmpbase)
		tmpbase = "/tmp";
	char *tmp = rd_xasprintf("%s/rdma-doctor-rpmdb.XXXXXX", tmpbase);
	struct held held;
	hold_signals(&held);
	if (!mkdtemp(tmp)) {
		e = errno;
		set_err(r, e, "%s cannot be read: no private directory for librpm: %s", r->path, strerror(e));
		free(tmp);
		release_signals(&held);
		goto out;
	}
	char *db = rd_xasprintf("%s/var/lib/rpm", tmp);
	char *var = rd_xasprintf("%s/var", tmp), *lib = rd_xasprintf("%s/var/lib", tmp);
	e = mkdir(var, 0700) < 0 || mkdir(lib, 0700) < 0 || mkdir(db, 0700) < 0 ? errno : 0;
	free(var);
	free(lib);
	for (size_t i = 0; i < n && !e && !caught; i++) {
		if (f[i].t.err == 0 && f[i].t.data && strcmp(f[i].name, "rpmdb.sqlite-shm") != 0)
			e = write_private(db, f[i].name, &f[i].t);
		rd_text_free(&f[i].t);
	}
	if (e) {
		set_err(r, e, "%s cannot be read: cannot copy it for librpm: %s", r->path, strerror(e));
	} else if (!caught) {
		long long tleft = rd_source_time_left_ms(src);
		long long timeout = tleft > 0 && tleft < RD_RPMDB_TIMEOUT_MS ? tleft : RD_RPMDB_TIMEOUT_MS;
		if (tleft < 0) {
			set_err(r, ETIMEDOUT, "%s cannot be read: %s", r->path, rd_strerror(ETIMEDOUT));
		} else {
			struct rd_buf ans = {0};
			int ce = run_child(tmp, soname, r->backend, timeout, r->path, &ans, r->reason, sizeof r->reason);
			/* a complete answer stands even if the child then failed (in its own clean-up, or a
			 * checker's report at exit); without one, the child's failure is the reason */
			if (ce == ETIMEDOUT || ce == EINTR) {
				r->err = ce;
			} else if (rd_rpm_parse_answer(ans.data ? ans.data : "", ans.len, r) < 0) {
				if (ce)
					r->err = ce;
				else
					set_err(r, RD_EPARSE, "%s cannot be read: librpm stopped without an answer%s", r->path, "");
			} else if (!r->err && r->headers == 0) {
				set_err(r, RD_EPARSE, "%s cannot be read: librpm found no package in it%s", r->path,
					r->backend == RD_RPMDB_NDB ? " (SUSE's ndb format: Debian's librpm is built without "
								     "the ndb backend)"
								   : "");
			}
			rd_buf_free(&ans);
		}
	}
	if (caught && !r->err) /* before librpm ran: the caller's own handler may let the run go on */
		set_err(r, EINTR, "%s cannot be read: interrupted%s", r->path, "");
	rd_remove_tree(AT_FDCWD, tmp); /* whatever librpm made in it too; no link followed */
	free(db);
	free(tmp);
	release_signals(&held);
out:
	if (r->err) {
		free(r->pkgs);
		r->pkgs = NULL;
		r->npkgs = 0;
	}
	for (size_t i = 0; i < n; i++) {
		rd_text_free(&f[i].t);
		free(f[i].rel);
	}
}

void rd_rpmdb_load_with(struct rd_source *src, bool dpkg_host, const char *soname, struct rd_rpmdb *r)
{
	memset(r, 0, sizeof *r);
	read_attr_file(src, "etc/os-release", &r->os_release);
	if (r->os_release.err == ENOENT) {
		rd_attr_free(&r->os_release);
		read_attr_file(src, "usr/lib/os-release", &r->os_release);
	}
	if (rd_attr_ok(&r->os_release)) {
		rd_parse_os_release(r->os_release.value, &r->os);
		r->expect = rd_os_release_rpmdb(&r->os);
	}
	read_attr_file(src, "etc/infiniband/info", &r->ib_info);
	if (rd_attr_ok(&r->ib_info))
		rd_parse_ib_info(r->ib_info.value, r->ib_info_kernel, sizeof r->ib_info_kernel);
	if (dpkg_host && r->expect == RD_RPMDB_NONE)
		return;
	const char *dir = NULL;
	enum rd_rpm_backend found = RD_RPMDB_NONE;
	static const enum rd_rpm_backend order[] = {RD_RPMDB_SQLITE, RD_RPMDB_BDB, RD_RPMDB_NDB};
	for (const char *const *d = db_dirs; *d && !found; d++) {
		if (r->expect && is_file(src, *d, db_file(r->expect)))
			found = r->expect;
		for (size_t i = 0; i < 3 && !found; i++)
			if (is_file(src, *d, db_file(order[i])))
				found = order[i];
		if (found)
			dir = *d;
	}
	if (!found) {
		if (r->expect == RD_RPMDB_NONE)
			return; /* not an rpm host */
		r->consulted = true;
		r->path = rd_xasprintf("/var/lib/rpm/%s", db_file(r->expect));
		r->err = ENOENT;
		snprintf(r->reason, sizeof r->reason, "%s cannot be read: %s (expected on %s %s)", r->path,
			 rd_strerror(ENOENT), r->os.id, r->os.version_id);
		return;
	}
	r->consulted = true;
	r->backend = found;
	r->path = rd_xasprintf("/%s/%s", dir, db_file(found));
	read_db(src, soname, dir, r);
}

void rd_rpmdb_load(struct rd_source *src, bool dpkg_host, struct rd_rpmdb *r)
{
	rd_rpmdb_load_with(src, dpkg_host, RD_RPMDB_SONAME, r);
}

void rd_rpmdb_free(struct rd_rpmdb *r)
{
	rd_attr_free(&r->os_release);
	rd_attr_free(&r->ib_info);
	free(r->path);
	free(r->pkgs);
	memset(r, 0, sizeof *r);
}

const struct rd_rpm_pkg *rd_rpmdb_find(const struct rd_rpmdb *r, const char *name)
{
	for (size_t i = 0; i < r->npkgs; i++)
		if (strcmp(r->pkgs[i].name, name) == 0)
			return &r->pkgs[i];
	return NULL;
}

static const struct rd_rpm_pkg *first_of(const struct rd_rpmdb *r, const char *const *names)
{
	for (; *names; names++) {
		const struct rd_rpm_pkg *p = rd_rpmdb_find(r, *names);
		if (p)
			return p;
	}
	return NULL;
}

bool rd_rpmdb_stack(const struct rd_rpmdb *r, struct rd_stack *st)
{
	if (!r->consulted)
		return false;
	st->installed_by = r->path;
	if (r->err) {
		st->installed = RD_STACK_UNKNOWN;
		st->unknown_why = r->reason;
		return true;
	}
	static const char *const doca[] = {"doca-ofed", "doca-ofed-userspace", NULL};
	static const char *const mlnx[] = {"mlnx-ofed-all", "mlnx-ofed-basic", "mlnx-ofed-hpc", "mlnx-ofed-kernel-only", NULL};
	static const char *const kernel[] = {"mlnx-ofa_kernel", "kmod-mlnx-ofa_kernel", "mlnx-ofa_kernel-modules",
					     "mlnx-ofa_kernel-dkms", NULL};
	static const char *const user[] = {"rdma-core", "libibverbs", NULL};
	const struct rd_rpm_pkg *p, *u = first_of(r, user);
	if ((p = first_of(r, doca))) {
		st->installed = RD_STACK_DOCA_OFED;
		snprintf(st->version, sizeof st->version, "%.95s", p->evr);
	} else if ((p = first_of(r, mlnx))) {
		st->installed = RD_STACK_MLNX_OFED;
		const struct rd_rpm_pkg *k = first_of(r, kernel);
		snprintf(st->version, sizeof st->version, "%.95s", (k ? k : p)->evr);
	} else if ((p = first_of(r, kernel))) {
		st->installed = RD_STACK_OFED;
		snprintf(st->version, sizeof st->version, "%.95s", p->evr);
	} else if (u && rd_rpm_version_is_ofed(u->version)) {
		st->installed = RD_STACK_OFED;
		snprintf(st->version, sizeof st->version, "%.14s %.80s", u->name, u->evr);
	} else {
		st->installed = RD_STACK_INBOX;
		if (u)
			snprintf(st->version, sizeof st->version, "%.14s %.80s", u->name, u->evr);
	}
	return true;
}
