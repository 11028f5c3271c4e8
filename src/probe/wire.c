/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The probe child's report to its parent (see wire.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "probe/wire.h"

/* ---- writing ------------------------------------------------------------------------------- */

static void put_str(struct rd_buf *b, const char *s)
{
	rd_buf_putc(b, ' ');
	if (!s) {
		rd_buf_putc(b, '~');
		return;
	}
	rd_buf_putc(b, 's');
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p > ' ' && *p < 0x7f && *p != '%')
			rd_buf_putc(b, (char)*p);
		else
			rd_buf_printf(b, "%%%02X", *p);
	}
}

static void put_num(struct rd_buf *b, unsigned long long v)
{
	rd_buf_printf(b, " %llu", v);
}

void rd_probe_wire_step(struct rd_buf *b, const char *tag, const struct rd_probe_step *s)
{
	rd_buf_puts(b, tag);
	rd_buf_putc(b, ' ');
	rd_buf_puts(b, s->name); /* a static name: no byte to escape */
	put_num(b, s->ok);
	put_num(b, s->err > 0 ? (unsigned)s->err : 0);
	put_num(b, s->usec);
	put_str(b, s->error);
	put_str(b, s->detail);
	put_num(b, s->fix.n);
	rd_buf_putc(b, '\n');
	for (size_t i = 0; i < s->fix.n; i++) {
		rd_buf_puts(b, "fix");
		put_str(b, s->fix.v[i]);
		rd_buf_putc(b, '\n');
	}
}

void rd_probe_wire_port(struct rd_buf *b, const struct rd_probe_port *p, bool partial)
{
	rd_buf_puts(b, "port");
	put_num(b, partial);
	put_str(b, p->device);
	put_num(b, p->port);
	put_num(b, p->active);
	put_num(b, p->pass);
	put_str(b, p->state);
	put_str(b, p->link_layer);
	put_num(b, p->active_mtu);
	put_num(b, p->lid);
	rd_buf_printf(b, " %d", p->gid_index < 0 ? -1 : p->gid_index);
	put_str(b, p->gid);
	put_str(b, p->gid_type);
	put_num(b, p->bytes);
	put_num(b, p->verified);
	put_num(b, p->nsteps);
	rd_buf_putc(b, '\n');
	for (size_t i = 0; i < p->nsteps; i++)
		rd_probe_wire_step(b, "step", &p->steps[i]);
}

void rd_probe_wire_library(struct rd_buf *b, const char *library)
{
	rd_buf_puts(b, "library");
	put_str(b, library);
	rd_buf_putc(b, '\n');
}

void rd_probe_wire_device(struct rd_buf *b, const char *device)
{
	rd_buf_puts(b, "device");
	put_str(b, device);
	rd_buf_putc(b, '\n');
}

void rd_probe_wire_at(struct rd_buf *b, const char *device, unsigned port, const char *step, const char *call)
{
	rd_buf_puts(b, "at");
	put_str(b, device);
	put_num(b, port);
	rd_buf_printf(b, " %s", step);
	put_str(b, call);
	rd_buf_putc(b, '\n');
}

void rd_probe_wire_end(struct rd_buf *b, const struct rd_probe_result *r)
{
	rd_buf_puts(b, "end");
	put_num(b, r->pass);
	put_num(b, r->size);
	put_str(b, r->error);
	rd_buf_putc(b, '\n');
}

/* ---- parsing ------------------------------------------------------------------------------- */

#define MAX_FIELDS 17

struct fields {
	char *v[MAX_FIELDS];
	size_t n;
};

static int perr(char *err, size_t errlen, unsigned line, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static int perr(char *err, size_t errlen, unsigned line, const char *fmt, ...)
{
	char what[200];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(what, sizeof what, fmt, ap);
	va_end(ap);
	snprintf(err, errlen, "line %u: %s", line, what);
	return -EPROTO;
}

/* A decimal number <= max. */
static bool get_num(const char *f, uint64_t max, uint64_t *out)
{
	size_t n = strlen(f);
	if (n == 0 || n > 20)
		return false;
	uint64_t v = 0;
	for (size_t i = 0; i < n; i++) {
		if (f[i] < '0' || f[i] > '9')
			return false;
		unsigned d = (unsigned)(f[i] - '0');
		if (v > (UINT64_MAX - d) / 10)
			return false;
		v = v * 10 + d;
	}
	if (v > max)
		return false;
	*out = v;
	return true;
}

static bool get_bool(const char *f, bool *out)
{
	if (strcmp(f, "0") != 0 && strcmp(f, "1") != 0)
		return false;
	*out = f[0] == '1';
	return true;
}

static int hexval(char c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'A' && c <= 'F' ? c - 'A' + 10 : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* "~" -> NULL, "s..." -> the decoded bytes (no NUL among them).  *out is NULL on failure. */
static bool get_str(const char *f, char **out)
{
	*out = NULL;
	if (strcmp(f, "~") == 0)
		return true;
	if (f[0] != 's')
		return false;
	struct rd_buf b = {0};
	rd_buf_puts(&b, ""); /* an empty string is not NULL */
	for (const char *p = f + 1; *p; p++) {
		unsigned char c = (unsigned char)*p;
		if (c == '%') {
			int hi = hexval(p[1]), lo = hi < 0 ? -1 : hexval(p[2]);
			if (lo < 0 || (hi == 0 && lo == 0)) {
				rd_buf_free(&b);
				return false;
			}
			rd_buf_putc(&b, (char)(hi * 16 + lo));
			p += 2;
		} else if (c > ' ' && c < 0x7f) {
			rd_buf_putc(&b, (char)c);
		} else {
			rd_buf_free(&b);
			return false;
		}
	}
	*out = rd_buf_steal(&b);
	return true;
}

static void split(char *line, struct fields *f)
{
	f->n = 0;
	for (char *p = line; f->n < MAX_FIELDS;) {
		f->v[f->n++] = p;
		char *sp = strchr(p, ' ');
		if (!sp)
			return;
		*sp = 0;
		p = sp + 1;
	}
	f->n = MAX_FIELDS + 1; /* more fields than any record has */
}

static void free_step(struct rd_probe_step *s)
{
	free(s->error);
	free(s->detail);
	rd_strv_free(&s->fix);
}

static void free_port(struct rd_probe_port *p)
{
	free(p->device);
	free(p->state);
	free(p->link_layer);
	free(p->gid);
	free(p->gid_type);
	for (size_t i = 0; i < p->nsteps; i++)
		free_step(&p->steps[i]);
	free(p->steps);
	memset(p, 0, sizeof *p);
}

/* "hstep"/"step" fields (f->v[1..7]) into a new step at the end of the list being filled. */
static int parse_step(struct rd_probe_wire *w, const struct fields *f, char *err, size_t errlen)
{
	if (f->n != 8)
		return perr(err, errlen, w->lines, "a step has 8 fields, not %zu", f->n);
	if (*w->nsteps >= RD_PROBE_WIRE_MAX_STEPS)
		return perr(err, errlen, w->lines, "more than %u steps", RD_PROBE_WIRE_MAX_STEPS);
	const char *name = rd_probe_step_name(f->v[1]);
	if (!name)
		return perr(err, errlen, w->lines, "no step is named '%.40s'", f->v[1]);
	struct rd_probe_step s = {.name = name};
	uint64_t e, usec, nfix;
	if (!get_bool(f->v[2], &s.ok) || !get_num(f->v[3], 4095, &e) || !get_num(f->v[4], UINT64_MAX, &usec) ||
	    !get_num(f->v[7], RD_PROBE_WIRE_MAX_FIX, &nfix))
		return perr(err, errlen, w->lines, "a bad number in step %s", name);
	if (!get_str(f->v[5], &s.error) || !get_str(f->v[6], &s.detail)) {
		free_step(&s);
		return perr(err, errlen, w->lines, "a bad string in step %s", name);
	}
	if (!s.ok && !s.error) {
		free_step(&s);
		return perr(err, errlen, w->lines, "step %s failed without an error", name);
	}
	s.err = (int)e;
	s.usec = usec;
	*w->steps = rd_xrealloc(*w->steps, (*w->nsteps + 1) * sizeof **w->steps);
	(*w->steps)[(*w->nsteps)++] = s;
	w->need_fix = (size_t)nfix;
	return 0;
}

static int parse_port(struct rd_probe_wire *w, const struct fields *f, char *err, size_t errlen)
{
	if (f->n != 16)
		return perr(err, errlen, w->lines, "a port has 16 fields, not %zu", f->n);
	struct rd_probe_port p;
	memset(&p, 0, sizeof p);
	bool partial;
	uint64_t port, mtu, lid, bytes, nsteps, gidx = 0;
	bool neg = strcmp(f->v[10], "-1") == 0;
	if (!get_bool(f->v[1], &partial) || !get_num(f->v[3], 65535, &port) || !get_bool(f->v[4], &p.active) ||
	    !get_bool(f->v[5], &p.pass) || !get_num(f->v[8], 1u << 20, &mtu) || !get_num(f->v[9], 65535, &lid) ||
	    (!neg && !get_num(f->v[10], 255, &gidx)) || !get_num(f->v[13], UINT64_MAX, &bytes) ||
	    !get_bool(f->v[14], &p.verified) || !get_num(f->v[15], RD_PROBE_WIRE_MAX_STEPS, &nsteps))
		return perr(err, errlen, w->lines, "a bad number or flag in a port");
	if (!get_str(f->v[2], &p.device) || !p.device || !get_str(f->v[6], &p.state) ||
	    !get_str(f->v[7], &p.link_layer) || !get_str(f->v[11], &p.gid) || !get_str(f->v[12], &p.gid_type)) {
		free_port(&p);
		return perr(err, errlen, w->lines, "a bad string in a port");
	}
	p.port = (unsigned)port;
	p.active_mtu = (unsigned)mtu;
	p.lid = (unsigned)lid;
	p.gid_index = neg ? -1 : (int)gidx;
	p.bytes = bytes;
	if (w->have_partial) {
		free_port(&w->partial);
		w->have_partial = false;
	}
	struct rd_probe_port *dst;
	if (partial) {
		w->partial = p;
		w->have_partial = true;
		dst = &w->partial;
	} else {
		if (w->r.nports >= RD_PROBE_WIRE_MAX_PORTS) {
			free_port(&p);
			return perr(err, errlen, w->lines, "more than %u ports", RD_PROBE_WIRE_MAX_PORTS);
		}
		w->r.ports = rd_xrealloc(w->r.ports, (w->r.nports + 1) * sizeof *w->r.ports);
		dst = &w->r.ports[w->r.nports++];
		*dst = p;
	}
	w->steps = &dst->steps;
	w->nsteps = &dst->nsteps;
	w->need_steps = (size_t)nsteps;
	return 0;
}

/* A passing run verified at least one port and failed no host step. */
static bool any_pass(const struct rd_probe_result *r)
{
	if (rd_probe_failed_step(r->steps, r->nsteps))
		return false;
	for (size_t i = 0; i < r->nports; i++)
		if (r->ports[i].pass)
			return true;
	return false;
}

int rd_probe_wire_line(struct rd_probe_wire *w, const char *line, size_t len, char *err, size_t errlen)
{
	w->lines++;
	if (w->ended)
		return perr(err, errlen, w->lines, "more after the end");
	if (len > RD_PROBE_WIRE_MAX_LINE)
		return perr(err, errlen, w->lines, "longer than %u bytes", RD_PROBE_WIRE_MAX_LINE);
	if (memchr(line, 0, len))
		return perr(err, errlen, w->lines, "a NUL byte");
	char *copy = rd_xstrndup(line, len);
	struct fields f;
	split(copy, &f);
	const char *tag = f.v[0];
	int r = 0;
	if (w->need_fix) {
		if (strcmp(tag, "fix") != 0 || f.n != 2) {
			r = perr(err, errlen, w->lines, "a fix line was due");
		} else {
			char *s;
			if (!get_str(f.v[1], &s) || !s) {
				r = perr(err, errlen, w->lines, "a bad fix string");
			} else {
				rd_strv_push_owned(&(*w->steps)[*w->nsteps - 1].fix, s);
				w->need_fix--;
			}
		}
	} else if (w->need_steps) {
		if (strcmp(tag, "step") != 0)
			r = perr(err, errlen, w->lines, "a step line was due");
		else if ((r = parse_step(w, &f, err, errlen)) == 0)
			w->need_steps--;
	} else if (strcmp(tag, "hstep") == 0) {
		w->steps = &w->r.steps;
		w->nsteps = &w->r.nsteps;
		r = parse_step(w, &f, err, errlen);
	} else if (strcmp(tag, "port") == 0) {
		r = parse_port(w, &f, err, errlen);
	} else if (strcmp(tag, "library") == 0) {
		char *s = NULL;
		if (f.n != 2 || !get_str(f.v[1], &s) || !s) {
			free(s);
			r = perr(err, errlen, w->lines, "a bad library line");
		} else {
			free(w->r.library);
			w->r.library = s;
		}
	} else if (strcmp(tag, "device") == 0) {
		char *s = NULL;
		if (f.n != 2 || !get_str(f.v[1], &s) || !s || w->r.devices.n >= RD_PROBE_WIRE_MAX_PORTS) {
			free(s);
			r = perr(err, errlen, w->lines, "a bad device line");
		} else {
			rd_strv_push_owned(&w->r.devices, s);
		}
	} else if (strcmp(tag, "at") == 0) {
		char *dev = NULL, *call = NULL;
		uint64_t port;
		const char *step = f.n == 5 ? rd_probe_step_name(f.v[3]) : NULL;
		if (!step || !get_str(f.v[1], &dev) || !get_num(f.v[2], 65535, &port) || !get_str(f.v[4], &call) ||
		    !call) {
			free(dev);
			free(call);
			r = perr(err, errlen, w->lines, "a bad 'at' line");
		} else {
			free(w->at_device);
			free(w->at_call);
			w->at_device = dev;
			w->at_port = (unsigned)port;
			w->at_step = step;
			w->at_call = call;
			w->ats++;
		}
	} else if (strcmp(tag, "end") == 0) {
		uint64_t size;
		char *e = NULL;
		bool pass;
		if (f.n != 4 || !get_bool(f.v[1], &pass) || !get_num(f.v[2], UINT64_MAX, &size) || !get_str(f.v[3], &e) ||
		    (pass == (e != NULL)) || w->have_partial || (pass && !any_pass(&w->r))) {
			free(e);
			r = perr(err, errlen, w->lines, "a bad end line");
		} else {
			w->r.pass = pass;
			w->r.size = size;
			free(w->r.error);
			w->r.error = e;
			w->ended = true;
		}
	} else {
		r = perr(err, errlen, w->lines, "unknown record '%.20s'", tag);
	}
	free(copy);
	return r;
}

void rd_probe_wire_free(struct rd_probe_wire *w)
{
	rd_probe_result_free(&w->r);
	if (w->have_partial)
		free_port(&w->partial);
	free(w->at_device);
	free(w->at_call);
	memset(w, 0, sizeof *w);
}
