/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The link state file: see state.h. */
#include "model/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

bool rd_state_name_ok(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++) {
		char c = s[n];
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || strchr("_.:@+-", c)))
			return false;
	}
	return n > 0 && n < RD_STATE_NAME_MAX;
}

const char *rd_state_safe_name(const char *host, char *buf, size_t len)
{
	size_t n = 0;
	for (const char *c = host && *host ? host : "localhost"; *c && n + 1 < len; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			  *c == '-' || *c == '_' || (*c == '.' && n > 0);
		buf[n++] = ok ? *c : '_';
	}
	if (len)
		buf[n] = '\0';
	return buf;
}

const char *rd_state_file_name(const char *host, char *buf, size_t len)
{
	char safe[RD_STATE_NAME_MAX * 4];
	rd_state_safe_name(host, safe, sizeof safe);
	snprintf(buf, len, "%s.link-state", safe);
	return buf;
}

static void sample_grow(struct rd_state_sample *s)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->e = rd_xrealloc(s->e, s->cap * sizeof *s->e);
	}
}

void rd_state_add(struct rd_state_sample *s, char kind, const char *dev, unsigned port, const char *name,
		  uint64_t value)
{
	if (s->n >= RD_STATE_MAX_ENTRIES || !rd_state_name_ok(dev) || !rd_state_name_ok(name))
		return;
	sample_grow(s);
	struct rd_state_entry *e = &s->e[s->n++];
	memset(e, 0, sizeof *e);
	e->kind = kind;
	strcpy(e->dev, dev);
	e->port = port;
	strcpy(e->name, name);
	e->value = value;
}

struct rd_state_sample *rd_state_add_sample(struct rd_state *st, int kind, long long time, const char *boot_id)
{
	if (st->ns == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 8;
		st->s = rd_xrealloc(st->s, st->cap * sizeof *st->s);
	}
	struct rd_state_sample *s = &st->s[st->ns++];
	memset(s, 0, sizeof *s);
	s->kind = kind;
	s->time = time;
	if (boot_id && rd_state_name_ok(boot_id) && strlen(boot_id) < sizeof s->boot_id)
		strcpy(s->boot_id, boot_id);
	return s;
}

const struct rd_state_entry *rd_state_find(const struct rd_state_sample *s, char kind, const char *dev,
					   unsigned port, const char *name)
{
	for (size_t i = 0; s && i < s->n; i++) {
		const struct rd_state_entry *e = &s->e[i];
		if (e->kind == kind && e->port == port && strcmp(e->dev, dev) == 0 && strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

void rd_state_sample_free(struct rd_state_sample *s)
{
	free(s->e);
	memset(s, 0, sizeof *s);
}

void rd_state_free(struct rd_state *st)
{
	for (size_t i = 0; i < st->ns; i++)
		rd_state_sample_free(&st->s[i]);
	free(st->s);
	memset(st, 0, sizeof *st);
}

/* Splits line (NUL-terminated, modified) into at most max space-separated words. */
static size_t split(char *line, char **w, size_t max)
{
	size_t n = 0;
	for (char *p = line; *p;) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		if (n == max)
			return max + 1;
		w[n++] = p;
		while (*p && *p != ' ')
			p++;
		if (*p)
			*p++ = '\0';
	}
	return n;
}

static bool parse_u64(const char *s, uint64_t *out)
{
	uint64_t v = 0;
	if (!*s || strlen(s) > 20)
		return false;
	for (const char *c = s; *c; c++) {
		if (*c < '0' || *c > '9')
			return false;
		unsigned d = (unsigned)(*c - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	*out = v;
	return true;
}

static bool parse_time(const char *s, long long *out)
{
	uint64_t v;
	if (!parse_u64(s, &v) || v > (uint64_t)1 << 40)
		return false;
	*out = (long long)v;
	return true;
}

static const char *const kind_words[] = {"counters", "carrier"};

/* An entry line (words w[0..n-1]) into s: NULL, or why not. */
static const char *entry_line(char **w, size_t n, struct rd_state_sample *s)
{
	uint64_t v, port;
	if (!s)
		return "an entry before the first sample line";
	if ((strcmp(w[0], "c") == 0 || strcmp(w[0], "h") == 0 || strcmp(w[0], "e") == 0) && n == 5 && rd_state_name_ok(w[1]) &&
	    parse_u64(w[2], &port) && port > 0 && port < 65536 && rd_state_name_ok(w[3]) && parse_u64(w[4], &v)) {
		if (s->kind != RD_SAMPLE_COUNTERS)
			return "a counter line in a carrier sample";
		if (s->n >= RD_STATE_MAX_ENTRIES)
			return "too many entries";
		rd_state_add(s, w[0][0], w[1], (unsigned)port, w[3], v);
		return NULL;
	}
	if (strcmp(w[0], "n") == 0 && n == 4 && rd_state_name_ok(w[1]) && rd_state_name_ok(w[2]) &&
	    parse_u64(w[3], &v)) {
		if (s->kind != RD_SAMPLE_CARRIER)
			return "a carrier line in a counters sample";
		if (s->n >= RD_STATE_MAX_ENTRIES)
			return "too many entries";
		rd_state_add(s, 'n', w[1], 0, w[2], v);
		return NULL;
	}
	return "not a state line";
}

int rd_state_parse(const char *text, size_t len, struct rd_state *st, char *err, size_t errlen)
{
	memset(st, 0, sizeof *st);
	if (len > RD_STATE_MAX_BYTES) {
		rd_set_err(err, errlen, "larger than %d bytes", RD_STATE_MAX_BYTES);
		return -1;
	}
	if (memchr(text, '\0', len)) {
		rd_set_err(err, errlen, "holds a NUL byte: not a state file");
		return -1;
	}
	char *copy = rd_xstrndup(text, len);
	unsigned lineno = 0;
	bool have_host = false, have_boot = false, have_time = false, have_ntime = false;
	/* version 1: one sample, its c/h lines and n lines gathered apart and timed at the end */
	struct rd_state_sample v1[2] = {{.kind = RD_SAMPLE_COUNTERS}, {.kind = RD_SAMPLE_CARRIER}};
	long long time1 = 0, ntime1 = 0;
	char boot1[64] = "";
	struct rd_state_sample *cur = NULL;
	size_t nkind[2] = {0, 0};
	const char *why = NULL;
	char *save = NULL;
	for (char *line = copy, *nl; line && !why; line = save) {
		nl = strchr(line, '\n');
		save = nl ? nl + 1 : NULL;
		if (nl)
			*nl = '\0';
		else if (!*line)
			break;
		else {
			why = "the last line is not complete (a file cut short)";
			lineno++;
			break;
		}
		lineno++;
		char *w[6];
		size_t n = split(line, w, 5);
		if (lineno == 1) {
			if (n == 2 && strcmp(w[0], "rdma-doctor-link-state") == 0 && (strcmp(w[1], "1") == 0 || strcmp(w[1], "2") == 0))
				st->version = w[1][0] - '0';
			else
				why = "not a link state file (no \"rdma-doctor-link-state 1\" or \"2\" line)";
			continue;
		}
		if (n == 0)
			continue;
		if (strcmp(w[0], "host") == 0 && n == 2 && strlen(w[1]) < sizeof st->host && !have_host) {
			strcpy(st->host, w[1]);
			have_host = true;
		} else if (st->version == 1 && strcmp(w[0], "boot_id") == 0 && n == 2 && strlen(w[1]) < sizeof boot1 &&
			   !have_boot) {
			strcpy(boot1, strcmp(w[1], "-") == 0 ? "" : w[1]);
			have_boot = true;
		} else if (st->version == 1 && strcmp(w[0], "time") == 0 && n == 2 && !have_time && parse_time(w[1], &time1)) {
			have_time = true;
		} else if (st->version == 1 && strcmp(w[0], "ntime") == 0 && n == 2 && !have_ntime &&
			   parse_time(w[1], &ntime1)) {
			have_ntime = true;
		} else if (st->version == 1) {
			why = entry_line(w, n, strcmp(w[0], "n") == 0 ? &v1[1] : &v1[0]);
		} else if (strcmp(w[0], "sample") == 0) {
			long long t;
			int kind = -1;
			for (int k = 0; k < 2; k++)
				if (n == 4 && strcmp(w[1], kind_words[k]) == 0)
					kind = k;
			if (kind < 0 || !parse_time(w[2], &t) ||
			    !(strcmp(w[3], "-") == 0 || (rd_state_name_ok(w[3]) && strlen(w[3]) < sizeof cur->boot_id)))
				why = "not a sample line (sample counters|carrier TIME BOOT_ID)";
			else if (st->ns && t < st->s[st->ns - 1].time)
				why = "samples out of order (oldest first)";
			else if (++nkind[kind] > RD_STATE_MAX_SAMPLES)
				why = "too many samples";
			else
				cur = rd_state_add_sample(st, kind, t, strcmp(w[3], "-") == 0 ? "" : w[3]);
		} else {
			why = entry_line(w, n, cur);
		}
	}
	if (!why && lineno == 0)
		why = "empty";
	else if (!why && !have_host)
		why = "host missing";
	else if (!why && st->version == 1 && (!have_boot || !have_time))
		why = "host, boot_id or time missing";
	if (!why && st->version == 1) {
		/* one sample of each kind it holds, the n lines at their own time (ntime) */
		long long t[2] = {time1, have_ntime ? ntime1 : time1};
		int order[2] = {0, 1};
		if (t[1] < t[0])
			order[0] = 1, order[1] = 0;
		for (int i = 0; i < 2; i++) {
			struct rd_state_sample *from = &v1[order[i]];
			if (!from->n)
				continue;
			struct rd_state_sample *to = rd_state_add_sample(st, from->kind, t[order[i]], boot1);
			to->e = from->e;
			to->n = from->n;
			to->cap = from->cap;
			from->e = NULL;
		}
	}
	rd_state_sample_free(&v1[0]);
	rd_state_sample_free(&v1[1]);
	free(copy);
	if (why) {
		if (lineno > 1)
			rd_set_err(err, errlen, "line %u: %s", lineno, why);
		else
			rd_set_err(err, errlen, "%s", why);
		rd_state_free(st);
		return -1;
	}
	return 0;
}

char *rd_state_format(const struct rd_state *st)
{
	struct rd_buf b = {0};
	rd_buf_printf(&b, "rdma-doctor-link-state 2\nhost %s\n", st->host[0] ? st->host : "-");
	for (size_t k = 0; k < st->ns; k++) {
		const struct rd_state_sample *s = &st->s[k];
		rd_buf_printf(&b, "sample %s %lld %s\n", kind_words[s->kind == RD_SAMPLE_CARRIER], s->time,
			      s->boot_id[0] ? s->boot_id : "-");
		for (size_t i = 0; i < s->n; i++) {
			const struct rd_state_entry *e = &s->e[i];
			if (e->kind == RD_STATE_NETDEV)
				rd_buf_printf(&b, "n %s %s %llu\n", e->dev, e->name, (unsigned long long)e->value);
			else
				rd_buf_printf(&b, "%c %s %u %s %llu\n", e->kind, e->dev, e->port, e->name,
					      (unsigned long long)e->value);
		}
	}
	return rd_buf_steal(&b);
}

/* ---- the history: what a run compares with, and what it keeps ---- */

void rd_state_baseline(const struct rd_state *st, int kind, const char *boot_id, long long now, long long window,
		       struct rd_baseline *b)
{
	memset(b, 0, sizeof *b);
	const char *boot = boot_id ? boot_id : "";
	const struct rd_state_sample *before = NULL, *oldest = NULL, *other = NULL, *future = NULL, *old = NULL;
	bool any = false;
	for (size_t i = 0; i < st->ns; i++) {
		const struct rd_state_sample *s = &st->s[i];
		if (s->kind != kind)
			continue;
		any = true;
		if (strcmp(s->boot_id, boot) != 0)
			other = s; /* the latest */
		else if (s->time > now)
			future = future ? future : s; /* the earliest */
		else if (s->time < now - 2 * window)
			old = s;
		else {
			if (!oldest)
				oldest = s;
			if (s->time <= now - window)
				before = s; /* the newest at or before the window's start */
		}
	}
	if (before || oldest) {
		b->why = RD_BASE_FOUND;
		b->s = before ? before : oldest;
	} else if (old) {
		b->why = RD_BASE_OLD;
		b->newest = old;
	} else if (future) {
		b->why = RD_BASE_FUTURE;
		b->newest = future;
	} else if (other) {
		b->why = RD_BASE_BOOT;
		b->newest = other;
	} else {
		b->why = any ? RD_BASE_BOOT : RD_BASE_NONE;
	}
}

static void drop(struct rd_state *st, size_t i)
{
	rd_state_sample_free(&st->s[i]);
	memmove(&st->s[i], &st->s[i + 1], (st->ns - i - 1) * sizeof *st->s);
	st->ns--;
}

void rd_state_record(struct rd_state *st, struct rd_state_sample *cur, long long now, long long window)
{
	int kind = cur->kind;
	if (window < 1)
		window = 1;
	/* another boot, dated far after now (a clock set back), too old to be a baseline again */
	for (size_t i = st->ns; i-- > 0;) {
		const struct rd_state_sample *s = &st->s[i];
		if (s->kind == kind &&
		    (strcmp(s->boot_id, cur->boot_id) != 0 || s->time > now + window || s->time < now - 2 * window))
			drop(st, i);
	}
	/* cur goes in at its place in time (oldest first) */
	size_t at = st->ns;
	while (at > 0 && st->s[at - 1].time > cur->time)
		at--;
	rd_state_add_sample(st, kind, 0, NULL);
	memmove(&st->s[at + 1], &st->s[at], (st->ns - 1 - at) * sizeof *st->s);
	st->s[at] = *cur;
	memset(cur, 0, sizeof *cur);
	/* the newest sample at or before the window's start is the baseline of the next runs: older
	 * ones are never compared with again */
	size_t base = st->ns;
	for (size_t i = 0; i < st->ns; i++)
		if (st->s[i].kind == kind && st->s[i].time <= now - window)
			base = i;
	for (size_t i = base; base < st->ns && i-- > 0;)
		if (st->s[i].kind == kind) {
			drop(st, i);
			base--;
		}
	/* in the window, newest first: keep a sample at least window/14 older than the last one kept */
	long long gap = window / 14 > 0 ? window / 14 : 1, last = 0;
	bool have_last = false;
	size_t kept = 0;
	for (size_t i = st->ns; i-- > 0;) {
		const struct rd_state_sample *s = &st->s[i];
		if (s->kind != kind)
			continue;
		bool keep = !have_last || i == base || (last - s->time >= gap && kept < RD_STATE_MAX_SAMPLES - 1);
		if (!keep) {
			if (i < base)
				base--;
			drop(st, i);
			continue;
		}
		kept++;
		last = s->time;
		have_last = true;
	}
	/* within the size a file may have: the oldest samples in the window go first */
	for (;;) {
		char *text = rd_state_format(st);
		size_t len = strlen(text);
		free(text);
		if (len <= RD_STATE_MAX_BYTES)
			break;
		size_t victim = st->ns, newest = st->ns;
		for (size_t i = 0; i < st->ns; i++)
			if (st->s[i].kind == kind) {
				newest = i;
				if (victim == st->ns && i != base)
					victim = i;
			}
		if (victim == st->ns || victim == newest) {
			/* nothing left to drop but the newest: a file of one sample over the size is
			 * refused when read, so none of the others is kept either */
			for (size_t i = st->ns; i-- > 0;)
				if (i != newest)
					drop(st, i);
			break;
		}
		drop(st, victim);
	}
}
