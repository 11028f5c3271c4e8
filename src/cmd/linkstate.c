/* The link sample kept between runs (see cmd.h rd_link_prepare, model/state.h for the file).
 *
 * Where: --state-dir DIR, else /var/lib/rdma-doctor on the live host.  Under --root no sample is
 * kept unless --state-dir is given: a root is another host (or the same one at another time), and
 * comparing it with this machine's samples would compare unrelated counters; with --state-dir,
 * successive snapshots of one host can be compared on purpose.  --root never moves the state
 * directory into the root.
 *
 * boot_id: the one of the host read, proc/sys/kernel/random/boot_id through the source (the
 * running kernel's on the live host, the captured one in a root); a root without it has an
 * unknown boot_id, and a change from or to unknown is a new baseline too.
 *
 * The file is read with openat(O_NOFOLLOW) in the directory (a symbolic link is not followed,
 * a non-regular or oversized file refused), parsed, and replaced atomically (source/atomic.c:
 * temporary file, fsync, rename, links refused).  Every problem becomes a message in the model
 * and a new baseline, never an abort. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "checks/check.h"
#include "cmd/cmd.h"
#include "model/state.h"
#include "source/atomic.h"

int rd_link_opt(struct rd_ctx *ctx, const char *opt, const char *value)
{
	if (strcmp(opt, "--no-counters") == 0) {
		ctx->link.no_counters = true;
		return 1;
	}
	if (strcmp(opt, "--state-dir") == 0) {
		ctx->link.state_dir = value;
		return 1;
	}
	return 0;
}

static long long now_s(void)
{
	const char *sde = getenv("SOURCE_DATE_EPOCH");
	return sde && *sde ? strtoll(sde, NULL, 10) : (long long)time(NULL);
}

/* 1: st holds the file; 0: no file; -1: *problem says why it cannot be used. */
static int read_state(const char *dir, const char *name, struct rd_state *st, char **problem)
{
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		if (errno == ENOENT)
			return 0;
		*problem = rd_xasprintf("cannot open the state directory %s: %s", dir, strerror(errno));
		return -1;
	}
	int fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
	int e = errno;
	close(dfd);
	if (fd < 0 && e == ENOENT)
		return 0;
	if (fd < 0) {
		*problem = rd_xasprintf("%s/%s: %s", dir, name,
					e == ELOOP ? "a symbolic link, not followed (remove it)" : strerror(e));
		return -1;
	}
	struct stat sb;
	if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
		close(fd);
		*problem = rd_xasprintf("%s/%s: not a regular file", dir, name);
		return -1;
	}
	if (sb.st_size > RD_STATE_MAX_BYTES) {
		close(fd);
		*problem = rd_xasprintf("%s/%s: %lld bytes, larger than a state file can be (%d)", dir, name,
					(long long)sb.st_size, RD_STATE_MAX_BYTES);
		return -1;
	}
	char *buf = rd_xmalloc(RD_STATE_MAX_BYTES + 1);
	size_t len = 0;
	for (;;) {
		ssize_t r = read(fd, buf + len, RD_STATE_MAX_BYTES + 1 - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			e = errno;
			close(fd);
			free(buf);
			*problem = rd_xasprintf("%s/%s: %s", dir, name, strerror(e));
			return -1;
		}
		if (r == 0 || (len += (size_t)r) > RD_STATE_MAX_BYTES)
			break;
	}
	close(fd);
	char err[256];
	int r = rd_state_parse(buf, len, st, err, sizeof err);
	free(buf);
	if (r < 0) {
		*problem = rd_xasprintf("%s/%s: %s", dir, name, err);
		return -1;
	}
	return 1;
}

static void sample_now(const struct rd_loaded *l, const char *host, struct rd_state *st, long long now)
{
	const struct rd_link *lk = &l->sys.link;
	memset(st, 0, sizeof *st);
	snprintf(st->host, sizeof st->host, "%s", host);
	if (rd_attr_ok(&lk->boot_id) && rd_state_name_ok(lk->boot_id.value))
		snprintf(st->boot_id, sizeof st->boot_id, "%s", lk->boot_id.value);
	st->time = st->ntime = now;
	for (size_t i = 0; i < l->h.ndevices; i++) {
		const struct rd_device *d = &l->h.devices[i];
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			for (size_t c = 0; c < p->ncounters; c++)
				if (rd_attr_ok(&p->counters[c].attr))
					rd_state_add(st, RD_STATE_COUNTER, d->name, p->num, p->counters[c].name,
						     p->counters[c].value);
			for (size_t c = 0; c < p->nhw_counters; c++)
				if (rd_attr_ok(&p->hw_counters[c].attr))
					rd_state_add(st, RD_STATE_HW, d->name, p->num, p->hw_counters[c].name,
						     p->hw_counters[c].value);
		}
	}
	for (size_t i = 0; i < lk->nnetdevs; i++)
		if (rd_attr_ok(&lk->netdevs[i].carrier_changes))
			rd_state_add(st, RD_STATE_NETDEV, lk->netdevs[i].name, 0, "carrier_changes", lk->netdevs[i].changes);
}

static char *absolute(const char *dir)
{
	if (dir[0] == '/')
		return rd_xstrdup(dir);
	char cwd[4096];
	if (!getcwd(cwd, sizeof cwd))
		return NULL;
	return rd_path_join(cwd, dir);
}

static char *write_state(const char *dir, const char *name, const char *text, int *errp)
{
	char *abs = absolute(dir);
	*errp = 0;
	if (!abs)
		return *errp = errno, rd_xasprintf("cannot resolve %s: %s", dir, strerror(errno));
	struct rd_source *live = NULL;
	char err[512] = "";
	char *problem = NULL;
	int r;
	if ((r = rd_source_open(NULL, &live, err, sizeof err)) < 0) {
		*errp = -r;
		problem = rd_xasprintf("%s", err);
	} else {
		const char *rel = abs;
		while (*rel == '/')
			rel++;
		/* the message names the file as the user gave the directory (its reason, not atomic.c's
		 * absolute path) */
		if ((r = rd_atomic_write(live, *rel ? rel : ".", name, text, strlen(text), 0644, err, sizeof err)) < 0) {
			*errp = -r;
			char *shown = rd_path_join(dir, name);
			problem = rd_xasprintf("%s: %s", shown,
					       -r == ELOOP ? "a symbolic link in place of the state file, not followed and not replaced"
							   : rd_strerror(-r));
			free(shown);
		}
		rd_source_close(live);
	}
	free(abs);
	return problem;
}

/* A run that judges one of link.counters and link.flaps replaces only that check's lines: the
 * other's lines (and their time) are the previous sample's, when it is of this boot, so that its
 * baseline does not move unjudged (and a periodic run of one check does not compare with one old
 * sample forever).  counters: link.counters is the one judged. */
static void keep_unjudged(const struct rd_link_sample *s, bool counters, struct rd_state *cur)
{
	struct rd_state mine = *cur;
	mine.e = NULL;
	mine.n = mine.cap = 0;
	for (size_t i = 0; i < cur->n; i++)
		if ((cur->e[i].kind == RD_STATE_NETDEV) != counters)
			rd_state_add(&mine, cur->e[i].kind, cur->e[i].dev, cur->e[i].port, cur->e[i].name, cur->e[i].value);
	bool same_boot = s->have_prev && !s->prev_problem && strcmp(s->prev.boot_id, cur->boot_id) == 0;
	if (same_boot) {
		for (size_t i = 0; i < s->prev.n; i++)
			if ((s->prev.e[i].kind == RD_STATE_NETDEV) == counters)
				rd_state_add(&mine, s->prev.e[i].kind, s->prev.e[i].dev, s->prev.e[i].port, s->prev.e[i].name,
					     s->prev.e[i].value);
		if (counters)
			mine.ntime = s->prev.ntime;
		else
			mine.time = s->prev.time;
	}
	rd_state_free(cur);
	*cur = mine;
}

static bool selected(const struct rd_ctx *ctx, const char *id)
{
	return (!ctx->link.only || rd_check_selected(id, ctx->link.only)) &&
	       !(ctx->link.skip && rd_check_selected(id, ctx->link.skip));
}

void rd_link_prepare(struct rd_ctx *ctx, struct rd_loaded *l)
{
	struct rd_link *lk = &l->sys.link;
	if (!ctx->link.keep)
		return;
	bool counters = selected(ctx, "link.counters"), flaps = selected(ctx, "link.flaps");
	const char *dir = ctx->link.state_dir;
	if (!dir && !rd_ctx_is_root(ctx))
		dir = RD_STATE_DIR_DEFAULT;
	bool have_dir = dir && *dir;
	struct rd_link_sample *s = &lk->sample;
	if (ctx->link.no_counters)
		lk->counters_off = true;
	else if ((counters && have_dir) || ctx->link.show_counters)
		rd_link_counters_load(l->src, &l->h, &l->pol, lk); /* each read can be a firmware command */
	s->now = now_s();
	if (!counters && !flaps)
		return; /* nothing compares: the sample is neither read nor replaced */
	if (!have_dir) {
		s->no_dir = true;
		return;
	}
	s->kept = true;
	s->partial = !(counters && flaps);
	s->dir = rd_xstrdup(dir);
	const char *host = rd_attr_ok(&l->h.hostname) && *l->h.hostname.value ? l->h.hostname.value : "localhost";
	char name[RD_STATE_NAME_MAX * 4 + 16];
	rd_state_file_name(host, name, sizeof name);
	s->file = rd_path_join(dir, name);
	struct rd_state cur;
	char safe_host[sizeof cur.host];
	snprintf(safe_host, sizeof safe_host, "%.*s", (int)(strlen(name) - strlen(".link-state")), name);
	int r = read_state(dir, name, &s->prev, &s->prev_problem);
	s->first = r == 0;
	s->have_prev = r == 1;
	if (s->have_prev && strcmp(s->prev.host, safe_host) != 0) {
		s->prev_problem = rd_xasprintf("%s holds the sample of host %s, not %s", s->file, s->prev.host, safe_host);
		s->have_prev = false;
	}
	sample_now(l, safe_host, &cur, s->now);
	if (s->partial)
		keep_unjudged(s, counters, &cur);
	if (!ctx->link.no_counters && cur.n) {
		char *text = rd_state_format(&cur);
		s->write_problem = write_state(dir, name, text, &s->write_err);
		s->written = !s->write_problem;
		free(text);
	}
	rd_state_free(&cur);
}
