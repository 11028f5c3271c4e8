/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The probe child's report (probe/wire.h): a result written and read back is the same result;
 * hostile lines are refused with a reason naming the line. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "probe/wire.h"
#include "util/util.h"

/* Feeds text (lines ending in '\n') to a fresh parser; returns the first error or 0. */
static int feed_all(struct rd_probe_wire *w, const char *text, size_t len, char *err, size_t errlen)
{
	memset(w, 0, sizeof *w);
	const char *p = text, *end = text + len;
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		if (!nl)
			return -EPROTO;
		int r = rd_probe_wire_line(w, p, (size_t)(nl - p), err, errlen);
		if (r < 0)
			return r;
		p = nl + 1;
	}
	return 0;
}

static void fill_step(struct rd_probe_step *s, const char *name, bool ok, const char *error, const char *detail)
{
	memset(s, 0, sizeof *s);
	s->name = name;
	s->ok = ok;
	s->err = ok ? 0 : 12;
	s->usec = 123456789012ull;
	s->error = error ? rd_xstrdup(error) : NULL;
	s->detail = detail ? rd_xstrdup(detail) : NULL;
}

RD_TEST(wire_round_trip)
{
	struct rd_probe_result r;
	memset(&r, 0, sizeof r);
	r.size = 33554432;
	r.library = rd_xstrdup("/usr/lib/x86_64-linux-gnu/libibverbs.so.1");
	r.steps = rd_xcalloc(2, sizeof *r.steps);
	r.nsteps = 2;
	fill_step(&r.steps[0], "load", true, NULL, "a b%c\t~ \x1b[31m\xc3\xa9");
	fill_step(&r.steps[1], "devices", true, NULL, "");
	r.ports = rd_xcalloc(1, sizeof *r.ports);
	r.nports = 1;
	struct rd_probe_port *p = &r.ports[0];
	p->device = rd_xstrdup("rxe0");
	p->port = 1;
	p->active = true;
	p->state = rd_xstrdup("ACTIVE");
	p->link_layer = rd_xstrdup("Ethernet");
	p->active_mtu = 1024;
	p->gid_index = 3;
	p->gid = rd_xstrdup("::ffff:10.0.2.15");
	p->gid_type = rd_xstrdup("RoCE v2");
	p->steps = rd_xcalloc(1, sizeof *p->steps);
	p->nsteps = 1;
	fill_step(&p->steps[0], "reg_mr", false, "ibv_reg_mr of 32 MiB failed: Cannot allocate memory (ENOMEM)", NULL);
	rd_strv_push(&p->steps[0].fix, "ulimit -l unlimited    # in the shell");
	rd_strv_push(&p->steps[0].fix, "100%\nsure");
	r.error = rd_xstrdup("rxe0 port 1: ibv_reg_mr of 32 MiB failed");

	struct rd_buf b = {0};
	rd_probe_wire_library(&b, r.library);
	for (size_t i = 0; i < r.nsteps; i++)
		rd_probe_wire_step(&b, "hstep", &r.steps[i]);
	rd_strv_push(&r.devices, "rxe0");
	rd_strv_push(&r.devices, "mlx5 0");
	for (size_t i = 0; i < r.devices.n; i++)
		rd_probe_wire_device(&b, r.devices.v[i]);
	rd_probe_wire_port(&b, p, true); /* partial first, then finished */
	rd_probe_wire_at(&b, "rxe0", 1, "reg_mr", "ibv_reg_mr");
	rd_probe_wire_port(&b, p, false);
	rd_probe_wire_end(&b, &r);
	CHECK(!memchr(b.data, 0, b.len));

	struct rd_probe_wire w;
	char err[256] = "";
	CHECK_INT(feed_all(&w, b.data, b.len, err, sizeof err), 0);
	CHECK(w.ended);
	CHECK(!w.have_partial);
	CHECK_INT(w.ats, 1);
	CHECK_STR(w.at_step, "reg_mr");
	CHECK_STR(w.at_call, "ibv_reg_mr");
	CHECK_STR(w.r.library, r.library);
	CHECK_INT(w.r.size, r.size);
	CHECK(!w.r.pass);
	CHECK_STR(w.r.error, r.error);
	CHECK_INT(w.r.nsteps, 2);
	CHECK(w.r.steps[0].name == rd_probe_step_name("load")); /* the static name */
	CHECK_STR(w.r.steps[0].detail, r.steps[0].detail);
	CHECK_STR(w.r.steps[1].detail, "");
	CHECK(w.r.steps[1].error == NULL);
	CHECK_INT(w.r.steps[0].usec, 123456789012ull);
	CHECK_INT(w.r.devices.n, 2);
	CHECK_STR(w.r.devices.v[1], "mlx5 0");
	CHECK_INT(w.r.nports, 1);
	const struct rd_probe_port *q = &w.r.ports[0];
	CHECK_STR(q->device, "rxe0");
	CHECK_INT(q->port, 1);
	CHECK(q->active && !q->pass && !q->verified);
	CHECK_STR(q->gid, "::ffff:10.0.2.15");
	CHECK_INT(q->gid_index, 3);
	CHECK_INT(q->active_mtu, 1024);
	CHECK_INT(q->nsteps, 1);
	CHECK_INT(q->steps[0].err, 12);
	CHECK(!q->steps[0].ok);
	CHECK_INT(q->steps[0].fix.n, 2);
	CHECK_STR(q->steps[0].fix.v[1], "100%\nsure");
	rd_probe_wire_free(&w);
	rd_buf_free(&b);
	rd_probe_result_free(&r);
}

RD_TEST(wire_refuses_hostile_lines)
{
	static const char *const bad[] = {
		"",                                            /* empty */
		"bogus 1\n",                                   /* unknown record */
		"hstep load 1 0 5 ~ ~ 0 extra\n",              /* field count */
		"hstep nosuch 1 0 5 ~ ~ 0\n",                  /* step name not static */
		"hstep load 2 0 5 ~ ~ 0\n",                    /* flag */
		"hstep load 1 0 -5 ~ ~ 0\n",                   /* number */
		"hstep load 1 0 99999999999999999999999 ~ ~ 0\n",
		"hstep load 1 0 5 x ~ 0\n",                    /* string without its s */
		"hstep load 1 0 5 s%00 ~ 0\n",                 /* NUL by escape */
		"hstep load 1 0 5 s%4 ~ 0\n",                  /* short escape */
		"hstep load 1 0 5 s%ZZ ~ 0\n",
		"hstep load 0 0 5 ~ ~ 0\n",                    /* failed without an error */
		"hstep load 1 0 5 ~ ~ 65\n",                   /* too many fixes */
		"hstep load 1 0 5 ~ ~ 1\nhstep load 1 0 5 ~ ~ 0\n", /* a fix was due */
		"port 0 ~ 1 1 1 ~ ~ 0 0 -1 ~ ~ 0 0 0\n",       /* port without a device */
		"port 0 sx 1 1 1 ~ ~ 0 0 256 ~ ~ 0 0 0\n",     /* gid index */
		"port 0 sx 1 1 1 ~ ~ 0 0 -1 ~ ~ 0 0 65\n",     /* steps */
		"port 0 sx 1 1 1 ~ ~ 0 0 -1 ~ ~ 0 0 1\nhstep load 1 0 5 ~ ~ 0\n", /* a step was due */
		"at ~ 0 nosuch sx\n",
		"at ~ 0 load ~\n",
		"end 1 5 ~\n",                                 /* pass with no port verified */
		"end 0 5 ~\n",                                 /* fail without an error */
		"end 0 5 sx\nend 0 5 sx\n",                    /* after the end */
		"port 1 sx 1 1 1 ~ ~ 0 0 -1 ~ ~ 0 0 0\nend 0 5 sx\n", /* a partial port at the end */
		"library ~\n",
		"device ~\n",
		"device sa sb\n",
		"hstep load 1 0 5 s\x01 ~ 0\n",                /* raw control byte */
		"hstep load 1 0 5 s a ~ 0\n",                  /* raw space */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		struct rd_probe_wire w;
		char err[256] = "";
		size_t len = strlen(bad[i]);
		int r = len ? feed_all(&w, bad[i], len, err, sizeof err) : (memset(&w, 0, sizeof w), rd_probe_wire_line(&w, "", 0, err, sizeof err));
		if (r != -EPROTO)
			rd_test_fail(__FILE__, __LINE__, "case %zu accepted: %s", i, bad[i]);
		CHECK(strncmp(err, "line ", 5) == 0);
		rd_probe_wire_free(&w);
	}
	/* a NUL byte inside a line, and a line over the bound */
	struct rd_probe_wire w;
	char err[256] = "";
	memset(&w, 0, sizeof w);
	CHECK_INT(rd_probe_wire_line(&w, "library s\0x", 11, err, sizeof err), -EPROTO);
	rd_probe_wire_free(&w);
	size_t big = RD_PROBE_WIRE_MAX_LINE + 1;
	char *line = rd_xmalloc(big);
	memset(line, 'a', big);
	memcpy(line, "library s", 9);
	CHECK_INT(rd_probe_wire_line(&w, line, big, err, sizeof err), -EPROTO);
	free(line);
	rd_probe_wire_free(&w);
	/* more ports than the bound */
	memset(&w, 0, sizeof w);
	int r = 0;
	for (unsigned i = 0; i <= RD_PROBE_WIRE_MAX_PORTS && r == 0; i++)
		r = rd_probe_wire_line(&w, "port 0 sx 1 1 1 ~ ~ 0 0 -1 ~ ~ 0 0 0", 36, err, sizeof err);
	CHECK_INT(r, -EPROTO);
	CHECK_INT(w.r.nports, RD_PROBE_WIRE_MAX_PORTS);
	rd_probe_wire_free(&w);
}
