/* The link state file: see state.h. */
#include "model/state.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/util.h"

#define MAGIC "rdma-doctor-link-state 1"

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

const char *rd_state_file_name(const char *host, char *buf, size_t len)
{
	char safe[RD_STATE_NAME_MAX * 4];
	size_t n = 0;
	for (const char *c = host && *host ? host : "localhost"; *c && n + 1 < sizeof safe; c++) {
		bool ok = (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') ||
			  *c == '-' || *c == '_' || (*c == '.' && n > 0);
		safe[n++] = ok ? *c : '_';
	}
	safe[n] = '\0';
	snprintf(buf, len, "%s.link-state", safe);
	return buf;
}

void rd_state_add(struct rd_state *st, char kind, const char *dev, unsigned port, const char *name, uint64_t value)
{
	if (st->n >= RD_STATE_MAX_ENTRIES || !rd_state_name_ok(dev) || !rd_state_name_ok(name))
		return;
	if (st->n == st->cap) {
		st->cap = st->cap ? st->cap * 2 : 64;
		st->e = rd_xrealloc(st->e, st->cap * sizeof *st->e);
	}
	struct rd_state_entry *e = &st->e[st->n++];
	memset(e, 0, sizeof *e);
	e->kind = kind;
	strcpy(e->dev, dev);
	e->port = port;
	strcpy(e->name, name);
	e->value = value;
}

const struct rd_state_entry *rd_state_find(const struct rd_state *st, char kind, const char *dev, unsigned port,
					   const char *name)
{
	for (size_t i = 0; i < st->n; i++) {
		const struct rd_state_entry *e = &st->e[i];
		if (e->kind == kind && e->port == port && strcmp(e->dev, dev) == 0 && strcmp(e->name, name) == 0)
			return e;
	}
	return NULL;
}

void rd_state_free(struct rd_state *st)
{
	free(st->e);
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
			if (strcmp(line, MAGIC) != 0 && !(n == 2 && strcmp(w[0], "rdma-doctor-link-state") == 0 &&
							    strcmp(w[1], "1") == 0))
				why = "not a link state file (no \"" MAGIC "\" line)";
			continue;
		}
		if (n == 0)
			continue;
		uint64_t v, port;
		if (strcmp(w[0], "host") == 0 && n == 2 && strlen(w[1]) < sizeof st->host && !have_host) {
			strcpy(st->host, w[1]);
			have_host = true;
		} else if (strcmp(w[0], "boot_id") == 0 && n == 2 && strlen(w[1]) < sizeof st->boot_id && !have_boot) {
			strcpy(st->boot_id, strcmp(w[1], "-") == 0 ? "" : w[1]);
			have_boot = true;
		} else if (strcmp(w[0], "time") == 0 && n == 2 && !have_time && parse_u64(w[1], &v) &&
			   v <= (uint64_t)1 << 40) {
			st->time = (long long)v;
			have_time = true;
		} else if (strcmp(w[0], "ntime") == 0 && n == 2 && !have_ntime && parse_u64(w[1], &v) &&
			   v <= (uint64_t)1 << 40) {
			st->ntime = (long long)v;
			have_ntime = true;
		} else if ((strcmp(w[0], "c") == 0 || strcmp(w[0], "h") == 0) && n == 5 && rd_state_name_ok(w[1]) &&
			   parse_u64(w[2], &port) && port > 0 && port < 65536 && rd_state_name_ok(w[3]) &&
			   parse_u64(w[4], &v)) {
			if (st->n >= RD_STATE_MAX_ENTRIES)
				why = "too many entries";
			else
				rd_state_add(st, w[0][0], w[1], (unsigned)port, w[3], v);
		} else if (strcmp(w[0], "n") == 0 && n == 4 && rd_state_name_ok(w[1]) && rd_state_name_ok(w[2]) &&
			   parse_u64(w[3], &v)) {
			if (st->n >= RD_STATE_MAX_ENTRIES)
				why = "too many entries";
			else
				rd_state_add(st, 'n', w[1], 0, w[2], v);
		} else {
			why = "not a state line";
		}
	}
	if (!why && lineno == 0)
		why = "empty";
	else if (!why && (!have_host || !have_boot || !have_time))
		why = "host, boot_id or time missing";
	if (!why && !have_ntime)
		st->ntime = st->time;
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
	rd_buf_printf(&b, "%s\nhost %s\nboot_id %s\ntime %lld\n", MAGIC, st->host[0] ? st->host : "-",
		      st->boot_id[0] ? st->boot_id : "-", st->time);
	if (st->ntime && st->ntime != st->time)
		rd_buf_printf(&b, "ntime %lld\n", st->ntime);
	for (size_t i = 0; i < st->n; i++) {
		const struct rd_state_entry *e = &st->e[i];
		if (e->kind == RD_STATE_NETDEV)
			rd_buf_printf(&b, "n %s %s %llu\n", e->dev, e->name, (unsigned long long)e->value);
		else
			rd_buf_printf(&b, "%c %s %u %s %llu\n", e->kind, e->dev, e->port, e->name,
				      (unsigned long long)e->value);
	}
	return rd_buf_steal(&b);
}
