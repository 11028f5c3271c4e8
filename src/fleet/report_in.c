/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* The fleet's report reader (see report_in.h): yajl's callbacks walk each report once and keep the
 * few fields the summary needs; a pdsh/clush stream gets one parser per host, alive only while
 * that host's report is incomplete. */
#include "fleet/report_in.h"

#include <ctype.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util/hostlist.h"
#include "util/map.h"
#include "util/yajl.h"
#include "util/util.h"

enum rd_fleet_status rd_fleet_status_parse(const char *s)
{
	static const char *const names[] = {"OK", "SKIP", "UNKNOWN", "WARN", "FAIL"};
	for (int i = 0; s && i < 5; i++)
		if (strcmp(s, names[i]) == 0)
			return (enum rd_fleet_status)(i + 1);
	return RD_FS_NONE;
}

const char *rd_fleet_status_name(enum rd_fleet_status s)
{
	static const char *const names[] = {"?", "OK", "SKIP", "UNKNOWN", "WARN", "FAIL"};
	return (unsigned)s < 6 ? names[s] : "?";
}

bool rd_fleet_hostname_ok(const char *s)
{
	size_t n = 0;
	for (; s[n]; n++)
		if (!isalnum((unsigned char)s[n]) && s[n] != '-' && s[n] != '.' && s[n] != '_')
			return false;
	return n > 0 && n <= 255;
}

long long rd_fleet_parse_time(const char *iso)
{
	struct tm tm;
	memset(&tm, 0, sizeof tm);
	if (!iso)
		return -1;
	const char *e = strptime(iso, "%Y-%m-%dT%H:%M:%S", &tm);
	if (!e)
		return -1;
	if (*e == '.')
		for (e++; isdigit((unsigned char)*e); e++)
			;
	if (strcmp(e, "Z") != 0 && strcmp(e, "+00:00") != 0)
		return -1;
	return (long long)timegm(&tm);
}

bool rd_fleet_report_valid(const struct rd_fleet_report *r, char *why, size_t whylen)
{
	static const char want[] = "rdma-doctor/report/v1";
	if (!r->schema) {
		rd_set_err(why, whylen, "not a report (no \"schema\"; want %s)", want);
		return false;
	}
	if (strcmp(r->schema, "rdma-doctor/error/v1") == 0) {
		rd_set_err(why, whylen, "the check could not make a report: %s", r->error ? r->error : "(no error text)");
		return false;
	}
	if (strcmp(r->schema, want) != 0) {
		rd_schema_mismatch(why, whylen, r->schema, want, "a report");
		size_t n = why ? strlen(why) : 0;
		if (why && strcmp(r->schema, "rdma-doctor/fabric/v1") == 0 && n < whylen)
			rd_set_err(why + n, whylen - n, " (a fabric document: give it with --fabric FILE)");
		return false;
	}
	if (!r->host) {
		rd_set_err(why, whylen, "the report has %s \"host\"", r->host_null ? "a null" : "no");
		return false;
	}
	if (!rd_fleet_hostname_ok(r->host)) {
		rd_set_err(why, whylen, "\"host\" \"%s\" is not a host name", r->host);
		return false;
	}
	if (rd_fleet_parse_time(r->time) < 0) {
		rd_set_err(why, whylen, "\"time\" %s%s%s is not an ISO 8601 UTC time", r->time ? "\"" : "",
			   r->time ? r->time : "is missing:", r->time ? "\"" : "");
		return false;
	}
	if (r->status == RD_FS_NONE || r->status == RD_FS_SKIP) {
		rd_set_err(why, whylen, "no summary.status (OK, WARN, FAIL or UNKNOWN)");
		return false;
	}
	return true;
}

/* ---- one JSON stream ---------------------------------------------------------------------- */

enum xctx { X_OTHER, X_ROOT, X_SUMMARY, X_STACK, X_DEVS, X_DEV, X_PORTS, X_PORT, X_NETDEVS, X_NETDEV, X_QOS, X_QOS_PFC,
	    X_MODS, X_MOD, X_FINDS, X_FIND, X_FIND_PAST, X_EVIDS, X_EVID, X_GDR, X_GDR_GPUS, X_GDR_GPU, X_GDR_ACS };
#define MAX_TRACK 12 /* frames looked at; deeper ones are only counted */

struct frame {
	unsigned char ctx;
	char key[24];
};

struct parser {
	yajl_handle h;
	int depth;
	struct frame st[MAX_TRACK];
	struct rd_fleet_report rep;
	bool in_report;
	unsigned long long report_bytes;
	char *ev_path, *ev_value;
	enum rd_fleet_status past_status; /* the status of a finding past RD_FLEET_MAX_FINDINGS */
	size_t nreports;
	char err[320];
};

static void report_clear(struct rd_fleet_report *r)
{
	free(r->schema);
	free(r->host);
	free(r->time);
	free(r->version);
	free(r->kernel);
	free(r->boot_id);
	free(r->error);
	free(r->stack_installed);
	free(r->stack_version);
	for (size_t i = 0; i < r->ndevs; i++) {
		struct rd_fleet_dev *d = &r->devs[i];
		free(d->name);
		free(d->model);
		free(d->board_id);
		free(d->fw_ver);
		for (size_t j = 0; j < d->nports; j++) {
			free(d->ports[j].state);
			free(d->ports[j].link_layer);
			free(d->ports[j].trust);
		}
		free(d->ports);
	}
	free(r->devs);
	for (size_t i = 0; i < r->nmods; i++) {
		free(r->mods[i].name);
		free(r->mods[i].persistent_in);
	}
	free(r->mods);
	for (size_t i = 0; i < r->nfinds; i++) {
		free(r->finds[i].check);
		free(r->finds[i].subject);
		free(r->finds[i].message);
		free(r->finds[i].memlock);
	}
	free(r->finds);
	free(r->gdr_iommu);
	for (size_t i = 0; i < r->ngpus; i++) {
		free(r->gpus[i].name);
		free(r->gpus[i].pci_id);
		free(r->gpus[i].nic);
		free(r->gpus[i].type);
	}
	free(r->gpus);
	memset(r, 0, sizeof *r);
}

static void set_str(char **dst, const unsigned char *s, size_t n)
{
	free(*dst);
	if (n > RD_FLEET_MAX_STR)
		n = RD_FLEET_MAX_STR;
	*dst = rd_xstrndup((const char *)s, n); /* cut at a NUL too */
}

static struct frame *top(struct parser *p)
{
	return p->depth >= 1 && p->depth <= MAX_TRACK ? &p->st[p->depth - 1] : NULL;
}

static const char *key(struct parser *p)
{
	struct frame *f = top(p);
	return f ? f->key : "";
}

static struct rd_fleet_dev *cur_dev(struct parser *p)
{
	return p->rep.ndevs ? &p->rep.devs[p->rep.ndevs - 1] : NULL;
}

static struct rd_fleet_port *cur_port(struct parser *p)
{
	struct rd_fleet_dev *d = cur_dev(p);
	return d && d->nports ? &d->ports[d->nports - 1] : NULL;
}

/* grows *v (elements of size sz) by one zeroed element, unless n has reached max */
static void *push(void *vp, size_t *n, size_t sz, size_t max, struct parser *p, const char *what)
{
	void **v = vp;
	if (*n >= max) {
		p->rep.too_many = what;
		return NULL;
	}
	*v = rd_grow(*v, *n, sz);
	char *e = (char *)*v + *n * sz;
	memset(e, 0, sz);
	(*n)++;
	return e;
}

static int enter(struct parser *p, bool map)
{
	struct frame *parent = top(p);
	unsigned char c = X_OTHER;
	if (p->depth == 0) {
		if (!map) {
			rd_set_err(p->err, sizeof p->err, "not a report: the JSON value is an array, not an object");
			return 0;
		}
		c = X_ROOT;
		report_clear(&p->rep);
		p->in_report = true;
		p->report_bytes = 0; /* counted by the pieces fed while a report is open */
	} else if (parent) {
		const char *k = parent->key;
		switch (parent->ctx) {
		case X_ROOT:
			if (map && !strcmp(k, "gpudirect")) {
				c = X_GDR;
				p->rep.has_gdr = true;
			} else if (map)
				c = !strcmp(k, "summary") ? X_SUMMARY : !strcmp(k, "stack") ? X_STACK : X_OTHER;
			else
				c = !strcmp(k, "devices") ? X_DEVS : !strcmp(k, "modules") ? X_MODS : !strcmp(k, "findings") ? X_FINDS : X_OTHER;
			break;
		case X_DEV:
			c = !map && !strcmp(k, "ports") ? X_PORTS : X_OTHER;
			break;
		case X_PORT:
			c = !map && !strcmp(k, "netdevs") ? X_NETDEVS : map && !strcmp(k, "qos") ? X_QOS : X_OTHER;
			break;
		case X_QOS:
			if (!map && !strcmp(k, "pfc")) {
				struct rd_fleet_port *pt = cur_port(p);
				if (pt) {
					pt->has_pfc = true;
					pt->pfc = 0;
					c = X_QOS_PFC;
				}
			}
			break;
		case X_FIND:
			c = !map && !strcmp(k, "evidence") ? X_EVIDS : X_OTHER;
			break;
		case X_GDR:
			c = !map && !strcmp(k, "gpus") ? X_GDR_GPUS : X_OTHER;
			break;
		case X_GDR_GPUS:
			if (map && push(&p->rep.gpus, &p->rep.ngpus, sizeof *p->rep.gpus, RD_FLEET_MAX_GPUS, p, "GPUs")) {
				c = X_GDR_GPU;
				p->rep.gpus[p->rep.ngpus - 1].nacs = -1;
			}
			break;
		case X_GDR_GPU:
			if (!map && !strcmp(k, "acs_redirect")) {
				c = X_GDR_ACS;
				p->rep.gpus[p->rep.ngpus - 1].nacs = 0;
			}
			break;
		case X_DEVS:
			if (map && push(&p->rep.devs, &p->rep.ndevs, sizeof *p->rep.devs, RD_FLEET_MAX_DEVICES, p, "devices"))
				c = X_DEV;
			break;
		case X_PORTS: {
			struct rd_fleet_dev *d = cur_dev(p);
			if (map && d && push(&d->ports, &d->nports, sizeof *d->ports, RD_FLEET_MAX_PORTS, p, "ports"))
				c = X_PORT;
			break;
		}
		case X_NETDEVS: {
			struct rd_fleet_port *pt = cur_port(p);
			if (map && pt) {
				if (pt->nmtu < RD_FLEET_MAX_NETDEVS) {
					pt->mtu[pt->nmtu++] = 0;
					c = X_NETDEV;
				} else
					p->rep.too_many = "netdevs";
			}
			break;
		}
		case X_MODS:
			if (map && push(&p->rep.mods, &p->rep.nmods, sizeof *p->rep.mods, RD_FLEET_MAX_MODULES, p, "modules")) {
				c = X_MOD;
				p->rep.mods[p->rep.nmods - 1].loaded = p->rep.mods[p->rep.nmods - 1].builtin =
					p->rep.mods[p->rep.nmods - 1].persistent = -1;
			}
			break;
		case X_FINDS:
			if (map && push(&p->rep.finds, &p->rep.nfinds, sizeof *p->rep.finds, RD_FLEET_MAX_FINDINGS, p, "findings"))
				c = X_FIND;
			else if (map) { /* not kept, but its status still counts */
				c = X_FIND_PAST;
				p->past_status = RD_FS_NONE;
			}
			break;
		case X_EVIDS:
			if (map) {
				c = X_EVID;
				free(p->ev_path);
				free(p->ev_value);
				p->ev_path = p->ev_value = NULL;
			}
			break;
		default:
			break;
		}
	}
	p->depth++;
	struct frame *f = top(p);
	if (f) {
		f->ctx = c;
		f->key[0] = '\0';
	}
	return 1;
}

static int cb_start_map(void *ctx)
{
	return enter(ctx, true);
}

static int cb_start_array(void *ctx)
{
	return enter(ctx, false);
}

static int cb_key(void *ctx, const unsigned char *s, size_t n)
{
	struct frame *f = top(ctx);
	if (f) {
		if (n < sizeof f->key && !memchr(s, '\0', n)) {
			memcpy(f->key, s, n);
			f->key[n] = '\0';
		} else
			strcpy(f->key, "\x01"); /* matches no field */
	}
	return 1;
}

static int leave(struct parser *p)
{
	struct frame *f = top(p);
	if (f && (f->ctx == X_FIND || f->ctx == X_FIND_PAST)) {
		/* the report's verdict is its findings': one without a status it can be judged by is UNKNOWN */
		enum rd_fleet_status s = f->ctx == X_FIND ? p->rep.finds[p->rep.nfinds - 1].status : p->past_status;
		if (s == RD_FS_NONE)
			s = RD_FS_UNKNOWN;
		if (s > p->rep.worst)
			p->rep.worst = s;
	}
	if (f && f->ctx == X_EVID) {
		struct rd_fleet_finding *fd = p->rep.nfinds ? &p->rep.finds[p->rep.nfinds - 1] : NULL;
		if (fd && p->ev_path && p->ev_value && rd_str_has_suffix(p->ev_path, "/limits")) {
			free(fd->memlock);
			fd->memlock = p->ev_value;
			p->ev_value = NULL;
		}
	}
	p->depth--;
	return 1;
}

static int cb_end_array(void *ctx)
{
	return leave(ctx);
}

enum kind { K_NULL, K_BOOL, K_NUM, K_STR };

static int scalar(struct parser *p, enum kind k, const unsigned char *s, size_t n)
{
	if (p->depth == 0) {
		rd_set_err(p->err, sizeof p->err, "not a report: the JSON value is not an object");
		return 0;
	}
	struct frame *f = top(p);
	if (!f)
		return 1;
	const char *kk = key(p);
	struct rd_fleet_report *r = &p->rep;
	char num[64] = "";
	if (k == K_NUM || k == K_BOOL)
		snprintf(num, sizeof num, "%.*s", (int)(n < 63 ? n : 63), (const char *)s);
	char **dst = NULL;
	switch (f->ctx) {
	case X_ROOT:
		if (!strcmp(kk, "host") && k == K_NULL) {
			free(r->host);
			r->host = NULL;
			r->host_null = true;
		}
		if (k != K_STR)
			break;
		dst = !strcmp(kk, "schema") ? &r->schema : !strcmp(kk, "host") ? &r->host : !strcmp(kk, "time") ? &r->time
		    : !strcmp(kk, "version") ? &r->version : !strcmp(kk, "kernel") ? &r->kernel
		    : !strcmp(kk, "boot_id") ? &r->boot_id
		    : !strcmp(kk, "error") ? &r->error : NULL;
		if (dst == &r->host)
			r->host_null = false;
		break;
	case X_SUMMARY:
		if (k == K_STR && !strcmp(kk, "status")) {
			char st[16];
			snprintf(st, sizeof st, "%.*s", (int)(n < 15 ? n : 15), (const char *)s);
			r->status = rd_fleet_status_parse(st);
		}
		break;
	case X_STACK:
		if (k == K_STR)
			dst = !strcmp(kk, "installed") ? &r->stack_installed : !strcmp(kk, "version") ? &r->stack_version : NULL;
		break;
	case X_DEV: {
		struct rd_fleet_dev *d = cur_dev(p);
		if (k == K_STR)
			dst = !strcmp(kk, "name") ? &d->name : !strcmp(kk, "model") ? &d->model
			    : !strcmp(kk, "board_id") ? &d->board_id : !strcmp(kk, "fw_ver") ? &d->fw_ver : NULL;
		break;
	}
	case X_PORT: {
		struct rd_fleet_port *pt = cur_port(p);
		if (k == K_STR)
			dst = !strcmp(kk, "state") ? &pt->state : !strcmp(kk, "link_layer") ? &pt->link_layer : NULL;
		else if (k == K_NUM && !strcmp(kk, "port"))
			pt->port = (unsigned)strtoul(num, NULL, 10);
		else if (k == K_NUM && !strcmp(kk, "rate_gbps")) {
			pt->rate_gbps = strtod(num, NULL);
			pt->has_rate = true;
		}
		break;
	}
	case X_QOS: {
		struct rd_fleet_port *pt = cur_port(p);
		if (pt && !strcmp(kk, "trust")) {
			free(pt->trust);
			pt->trust = NULL;
			if (k == K_STR)
				dst = &pt->trust;
		}
		break;
	}
	case X_QOS_PFC: {
		/* the priorities with PFC on: 0..7; anything else is not a priority and ignored */
		struct rd_fleet_port *pt = cur_port(p);
		if (pt && k == K_NUM && num[0] >= '0' && num[0] <= '7' && !num[1])
			pt->pfc |= (uint8_t)(1u << (num[0] - '0'));
		break;
	}
	case X_NETDEV: {
		struct rd_fleet_port *pt = cur_port(p);
		if (k == K_NUM && !strcmp(kk, "mtu") && pt && pt->nmtu)
			pt->mtu[pt->nmtu - 1] = strtoull(num, NULL, 10);
		break;
	}
	case X_MOD: {
		struct rd_fleet_module *m = &r->mods[r->nmods - 1];
		if (k == K_STR)
			dst = !strcmp(kk, "name") ? &m->name : !strcmp(kk, "persistent_in") ? &m->persistent_in : NULL;
		else {
			int *b = !strcmp(kk, "loaded") ? &m->loaded : !strcmp(kk, "builtin") ? &m->builtin
			       : !strcmp(kk, "persistent") ? &m->persistent : NULL;
			if (b)
				*b = k == K_BOOL ? num[0] == '1' : -1;
		}
		break;
	}
	case X_FIND: {
		struct rd_fleet_finding *fd = &r->finds[r->nfinds - 1];
		if (k == K_STR && !strcmp(kk, "status")) {
			char st[16];
			snprintf(st, sizeof st, "%.*s", (int)(n < 15 ? n : 15), (const char *)s);
			fd->status = rd_fleet_status_parse(st);
		} else if (k == K_STR)
			dst = !strcmp(kk, "check") ? &fd->check : !strcmp(kk, "subject") ? &fd->subject
			    : !strcmp(kk, "message") ? &fd->message : NULL;
		break;
	}
	case X_FIND_PAST:
		if (k == K_STR && !strcmp(kk, "status")) {
			char st[16];
			snprintf(st, sizeof st, "%.*s", (int)(n < 15 ? n : 15), (const char *)s);
			p->past_status = rd_fleet_status_parse(st);
		}
		break;
	case X_EVID:
		if (k == K_STR)
			dst = !strcmp(kk, "path") ? &p->ev_path : !strcmp(kk, "value") ? &p->ev_value : NULL;
		break;
	case X_GDR:
		if (!strcmp(kk, "iommu")) {
			free(r->gdr_iommu);
			r->gdr_iommu = NULL;
			if (k == K_STR)
				dst = &r->gdr_iommu;
		}
		break;
	case X_GDR_GPU: {
		struct rd_fleet_gpu *g = &r->gpus[r->ngpus - 1];
		if (k == K_STR)
			dst = !strcmp(kk, "name") ? &g->name : !strcmp(kk, "pci_id") ? &g->pci_id : !strcmp(kk, "nic") ? &g->nic
			    : !strcmp(kk, "type") ? &g->type : NULL;
		else if (k == K_NUM && !strcmp(kk, "acs_unknown"))
			g->acs_unknown = strtoull(num, NULL, 10);
		break;
	}
	case X_GDR_ACS: {
		struct rd_fleet_gpu *g = &r->gpus[r->ngpus - 1];
		if (k == K_STR && g->nacs < INT_MAX)
			g->nacs++;
		break;
	}
	default:
		break;
	}
	if (dst)
		set_str(dst, s, n);
	return 1;
}

static int cb_null(void *ctx)
{
	return scalar(ctx, K_NULL, (const unsigned char *)"", 0);
}

static int cb_bool(void *ctx, int v)
{
	return scalar(ctx, K_BOOL, (const unsigned char *)(v ? "1" : "0"), 1);
}

static int cb_number(void *ctx, const char *s, size_t n)
{
	return scalar(ctx, K_NUM, (const unsigned char *)s, n);
}

static int cb_string(void *ctx, const unsigned char *s, size_t n)
{
	return scalar(ctx, K_STR, s, n);
}

/* the callbacks that end an object: a finished report goes to the input's callback */
struct rd_fleet_input;
static void report_done(struct rd_fleet_input *in, struct parser *p);

struct owner {
	struct parser p;
	struct rd_fleet_input *in;
};

static int cb_end_map(void *ctx)
{
	struct parser *p = ctx;
	leave(p);
	if (p->depth == 0 && p->in_report) {
		p->in_report = false;
		p->nreports++;
		report_done(((struct owner *)ctx)->in, p);
		report_clear(&p->rep);
	}
	return 1;
}

static const yajl_callbacks callbacks = {
	.yajl_null = cb_null,
	.yajl_boolean = cb_bool,
	.yajl_number = cb_number,
	.yajl_string = cb_string,
	.yajl_start_map = cb_start_map,
	.yajl_map_key = cb_key,
	.yajl_end_map = cb_end_map,
	.yajl_start_array = cb_start_array,
	.yajl_end_array = cb_end_array,
};

/* yajl, loaded on the first report read (util/yajl.h) */
static const struct rd_yajl *yj;
static char yajl_failed[512];

static bool yajl_load(void)
{
	if (!yj)
		yj = rd_yajl_get(yajl_failed, sizeof yajl_failed);
	return yj != NULL;
}

static struct owner *parser_new(struct rd_fleet_input *in)
{
	if (!yajl_load())
		return NULL;
	struct owner *o = rd_xcalloc(1, sizeof *o);
	o->in = in;
	o->p.h = yj->alloc(&callbacks, NULL, o);
	if (!o->p.h)
		abort();
	yj->config(o->p.h, yajl_allow_multiple_values, 1);
	return o;
}

static void parser_free(struct owner *o)
{
	if (!o)
		return;
	yj->free(o->p.h);
	report_clear(&o->p.rep);
	free(o->p.ev_path);
	free(o->p.ev_value);
	free(o);
}

/* Feeds bytes; returns -1 (reason in p->err) when the stream is not JSON reports. */
static int parser_feed(struct parser *p, const char *data, size_t len)
{
	if (p->err[0])
		return -1;
	/* a report larger than the bound is refused before it is all read */
	for (size_t at = 0; at < len;) {
		size_t n = len - at < (1u << 20) ? len - at : (1u << 20); /* yajl rescans a token cut across calls: few, large calls */
		if (!p->in_report)
			p->report_bytes = 0;
		yajl_status st = yj->parse(p->h, (const unsigned char *)data + at, n);
		if (st != yajl_status_ok) {
			if (!p->err[0])
				rd_yajl_reason(yj, p->h, p->nreports ? "not JSON after the last complete report" : "not JSON", p->err,
					    sizeof p->err);
			return -1;
		}
		if (p->in_report && (p->report_bytes += n) > RD_FLEET_MAX_REPORT) {
			rd_set_err(p->err, sizeof p->err, "a report larger than %u MiB: not read further", RD_FLEET_MAX_REPORT >> 20);
			return -1;
		}
		at += n;
	}
	return 0;
}

static int parser_end(struct parser *p)
{
	if (p->err[0])
		return -1;
	bool inside = p->in_report || p->depth > 0;
	yajl_status st = yj->complete_parse(p->h);
	if (inside) {
		rd_set_err(p->err, sizeof p->err, "truncated: the input ends inside a report");
		return -1;
	}
	if (st != yajl_status_ok) {
		if (!p->err[0])
			rd_yajl_reason(yj, p->h, "not JSON", p->err, sizeof p->err);
		return -1;
	}
	return 0;
}

/* ---- inputs: JSON, or `host: line` ---------------------------------------------------------- */

enum { MODE_UNDECIDED, MODE_JSON, MODE_LINES, MODE_GATHER };
enum { G_CONTENT, G_HEADER, G_DASH };

#define NONE_IX ((size_t)-1)

struct lhost {
	char *name;
	struct owner *o;                /* the report in progress, or NULL between reports */
	unsigned long long open_bytes;  /* bytes fed to o */
	size_t prev, next;              /* the list of hosts with a report in progress, last fed first */
	size_t nreports;
	bool dead;
};

struct rd_fleet_input {
	char *origin, *node;
	bool lines_ok;
	const struct rd_fleet_input_cb *cb;
	void *arg;
	int mode;
	bool dead;
	struct owner *json;
	struct rd_buf line;
	unsigned long long lineno, bad_lines, first_bad, good_lines, bad_bytes, lead_space;
	/* pdsh/clush `host: line` */
	struct rd_map hostmap;
	struct lhost *hosts;
	size_t nhosts;
	bool hosts_full;
	size_t open_first, open_last, nopen; /* hosts with a report in progress (NONE_IX: none) */
	unsigned long long open_bytes;
	const char *cur_label;
	size_t nreports;
	/* clush -b: one parser per block, whatever the number of nodes the header names */
	int gstate;
	char *blabel;               /* the block's nodes as its header names them (NULL: no block) */
	unsigned long long bcount;  /* how many */
	struct owner *block;
	size_t breports;
	bool bdead;
};

static void give_up(struct rd_fleet_input *in, const char *label, const char *msg)
{
	in->cb->problem(in->arg, in->origin, label, msg);
}

static void report_done(struct rd_fleet_input *in, struct parser *p)
{
	in->nreports++;
	if (in->mode == MODE_GATHER && in->bcount > 1) {
		/* clush gathers nodes whose output is the same: a report speaks for one host */
		char msg[160];
		snprintf(msg, sizeof msg, "%llu nodes printed the same report (of host %s): not counted, a report speaks for one host",
			 in->bcount, p->rep.host && rd_fleet_hostname_ok(p->rep.host) ? p->rep.host : "(none)");
		give_up(in, in->cur_label, msg);
		return;
	}
	in->cb->report(in->arg, in->origin, in->cur_label, &p->rep);
}

struct rd_fleet_input *rd_fleet_input_new(const char *origin, const struct rd_fleet_input_cb *cb, void *arg)
{
	struct rd_fleet_input *in = rd_xcalloc(1, sizeof *in);
	in->origin = rd_xstrdup(origin);
	in->cb = cb;
	in->arg = arg;
	in->lines_ok = true;
	in->open_first = in->open_last = NONE_IX;
	return in;
}

void rd_fleet_input_node(struct rd_fleet_input *in, const char *node, bool lines_ok)
{
	free(in->node);
	in->node = node ? rd_xstrdup(node) : NULL;
	in->lines_ok = lines_ok;
}

size_t rd_fleet_input_reports(const struct rd_fleet_input *in)
{
	return in->nreports;
}

/* the list of hosts with a report in progress */
static void open_unlink(struct rd_fleet_input *in, size_t i)
{
	struct lhost *lh = &in->hosts[i];
	if (lh->prev != NONE_IX)
		in->hosts[lh->prev].next = lh->next;
	else
		in->open_first = lh->next;
	if (lh->next != NONE_IX)
		in->hosts[lh->next].prev = lh->prev;
	else
		in->open_last = lh->prev;
	lh->prev = lh->next = NONE_IX;
}

static void open_push(struct rd_fleet_input *in, size_t i)
{
	struct lhost *lh = &in->hosts[i];
	lh->prev = NONE_IX;
	lh->next = in->open_first;
	if (in->open_first != NONE_IX)
		in->hosts[in->open_first].prev = i;
	else
		in->open_last = i;
	in->open_first = i;
}

static void close_host(struct rd_fleet_input *in, size_t i)
{
	struct lhost *lh = &in->hosts[i];
	if (!lh->o)
		return;
	parser_free(lh->o);
	lh->o = NULL;
	open_unlink(in, i);
	in->nopen--;
	in->open_bytes -= lh->open_bytes;
	lh->open_bytes = 0;
}

/* the report in progress fed longest ago is given up: memory stays bounded however many hosts
 * interleave (pdsh and clush have a few dozen in flight at once) */
static void evict_oldest(struct rd_fleet_input *in)
{
	size_t i = in->open_last;
	char msg[200];
	snprintf(msg, sizeof msg, "its report was still incomplete when %s: not read further",
		 in->nopen >= RD_FLEET_MAX_OPEN ? "more than " RD_FLEET_MAX_OPEN_TEXT " other hosts' reports were in progress"
						: "the reports in progress held more than " RD_FLEET_MAX_OPEN_BYTES_TEXT);
	give_up(in, in->hosts[i].name, msg);
	in->hosts[i].dead = true;
	close_host(in, i);
}

/* text (one line of a host's output, without its newline) goes to that host's parser */
static void feed_host(struct rd_fleet_input *in, const char *s, size_t h, const char *t, size_t tn)
{
	struct rd_map_slot *ixp = rd_map_get(&in->hostmap, s, h);
	size_t ix;
	if (!ixp) {
		if (in->nhosts >= RD_FLEET_MAX_HOSTS) {
			if (!in->hosts_full) {
				char msg[120];
				snprintf(msg, sizeof msg, "more than %u hosts in one input: the others' lines are not read",
					 RD_FLEET_MAX_HOSTS);
				give_up(in, NULL, msg);
			}
			in->hosts_full = true;
			return;
		}
		in->hosts = rd_grow(in->hosts, in->nhosts, sizeof *in->hosts);
		struct lhost *nl = &in->hosts[in->nhosts];
		memset(nl, 0, sizeof *nl);
		nl->prev = nl->next = NONE_IX;
		nl->name = rd_xstrndup(s, h);
		rd_map_put(&in->hostmap, s, h, NULL)->val.ix = in->nhosts;
		ix = in->nhosts++;
	} else
		ix = ixp->val.ix;
	if (in->hosts[ix].dead)
		return;
	if (!in->hosts[ix].o) {
		while (in->nopen >= RD_FLEET_MAX_OPEN)
			evict_oldest(in);
		if (!(in->hosts[ix].o = parser_new(in))) {
			give_up(in, in->hosts[ix].name, yajl_failed);
			in->hosts[ix].dead = true;
			return;
		}
		in->nopen++;
		open_push(in, ix);
	} else if (in->open_first != ix) {
		open_unlink(in, ix);
		open_push(in, ix);
	}
	struct lhost *lh = &in->hosts[ix];
	in->cur_label = lh->name;
	size_t before = lh->o->p.nreports;
	int r = parser_feed(&lh->o->p, t, tn);
	if (r == 0)
		r = parser_feed(&lh->o->p, "\n", 1);
	in->cur_label = NULL;
	lh->nreports += lh->o->p.nreports - before;
	lh->open_bytes += tn + 1;
	in->open_bytes += tn + 1;
	if (r < 0) {
		give_up(in, lh->name, lh->o->p.err);
		lh->dead = true;
		close_host(in, ix);
	} else if (!lh->o->p.in_report && lh->o->p.depth == 0)
		close_host(in, ix); /* between reports: nothing kept but the count */
	while (in->open_bytes > RD_FLEET_MAX_OPEN_BYTES && in->open_last != NONE_IX && in->open_last != ix)
		evict_oldest(in);
}

static size_t host_chars(const char *s, size_t n)
{
	size_t h = 0;
	while (h < n && (isalnum((unsigned char)s[h]) || s[h] == '-' || s[h] == '.' || s[h] == '_'))
		h++;
	return h;
}

/* A line that is not output of the kind expected: counted, never echoed (the input may be
 * anything, a secret too). */
static void bad_line(struct rd_fleet_input *in, size_t n)
{
	if (!in->bad_lines++)
		in->first_bad = in->lineno;
	in->bad_bytes += n + 1;
}

static void host_line(struct rd_fleet_input *in, const char *s, size_t n)
{
	/* "host: text" (pdsh, clush); "host:" for an empty line of output */
	size_t h = host_chars(s, n);
	if (h == 0 || h > 255 || h >= n || s[h] != ':' || (h + 1 < n && s[h + 1] != ' ')) {
		bad_line(in, n);
		return;
	}
	in->good_lines++;
	const char *t = s + h + 1;
	size_t tn = n - h - 1;
	if (tn && *t == ' ') {
		t++;
		tn--;
	}
	feed_host(in, s, h, t, tn);
}

static bool dash_line(const char *s, size_t n)
{
	return n >= 3 && strspn(s, "-") >= n;
}

/* the end of a clush -b block: what its nodes printed was one report, or what was wrong */
static void block_end(struct rd_fleet_input *in)
{
	if (!in->blabel)
		return;
	in->cur_label = in->blabel;
	if (!in->bdead) {
		if (in->block && parser_end(&in->block->p) < 0)
			give_up(in, in->blabel, in->block->p.err);
		else if (!in->breports)
			give_up(in, in->blabel, "no report in its output");
	}
	in->cur_label = NULL;
	parser_free(in->block);
	in->block = NULL;
	free(in->blabel);
	in->blabel = NULL;
	in->bcount = in->breports = 0;
	in->bdead = false;
}

/* A clush -b header: a node set and " (N)".  Only counted, never expanded: one parser serves the
 * block whatever the number of nodes it names. */
static bool block_begin(struct rd_fleet_input *in, const char *s, size_t n)
{
	char *set = rd_xstrndup(s, n);
	char *paren = strstr(set, " (");
	if (paren)
		*paren = '\0';
	unsigned long long count = 0;
	char err[128];
	bool ok = set[0] && strspn(set, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._[],") == strlen(set) &&
		  rd_hostlist_count(set, &count, err, sizeof err) == 0 && count > 0;
	if (ok && count == 1) { /* the one node's name */
		struct rd_strv one = {0};
		ok = rd_hostlist_expand(set, &one, err, sizeof err) == 0 && one.n == 1 && rd_fleet_hostname_ok(one.v[0]);
		if (ok) {
			free(set);
			set = rd_xstrdup(one.v[0]);
		}
		rd_strv_free(&one);
	}
	if (!ok) {
		free(set);
		return false;
	}
	in->blabel = set;
	in->bcount = count;
	return true;
}

/* clush -b: "-----" / NODESET [(N)] / "-----", then the output those nodes had in common */
static void gather_line(struct rd_fleet_input *in, const char *s, size_t n)
{
	switch (in->gstate) {
	case G_CONTENT:
		if (dash_line(s, n)) {
			block_end(in);
			in->gstate = G_HEADER;
			return;
		}
		if (!in->blabel) {
			bad_line(in, n);
			return;
		}
		in->good_lines++;
		if (in->bdead)
			return;
		if (!in->block && !(in->block = parser_new(in))) {
			give_up(in, in->blabel, yajl_failed);
			in->bdead = true;
			return;
		}
		in->cur_label = in->blabel;
		size_t before = in->block->p.nreports;
		int r = parser_feed(&in->block->p, s, n);
		if (r == 0)
			r = parser_feed(&in->block->p, "\n", 1);
		in->breports += in->block->p.nreports - before;
		if (r < 0) {
			give_up(in, in->blabel, in->block->p.err);
			in->bdead = true;
		}
		in->cur_label = NULL;
		return;
	case G_HEADER:
		if (!block_begin(in, s, n))
			bad_line(in, n);
		in->gstate = G_DASH;
		return;
	case G_DASH:
		if (!dash_line(s, n)) {
			free(in->blabel);
			in->blabel = NULL;
			bad_line(in, n);
		}
		in->gstate = G_CONTENT;
		return;
	}
}

static void junk_given_up(struct rd_fleet_input *in)
{
	char msg[160];
	snprintf(msg, sizeof msg, "not JSON and not pdsh/clush output (no such line in its first %u KiB; line %llu is neither)",
		 RD_FLEET_MAX_JUNK >> 10, in->first_bad ? in->first_bad : 1);
	give_up(in, NULL, msg);
	in->dead = true;
}

static int feed_lines(struct rd_fleet_input *in, const char *data, size_t len)
{
	for (size_t at = 0; at < len;) {
		const char *nl = memchr(data + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - data - at) : len - at;
		if (in->line.len + n > RD_FLEET_MAX_REPORT || (!in->good_lines && in->line.len + n > RD_FLEET_MAX_JUNK)) {
			char msg[96];
			if (!in->good_lines) {
				in->first_bad = in->lineno + 1;
				junk_given_up(in);
				return -1;
			}
			snprintf(msg, sizeof msg, "line %llu is longer than %u MiB: not read further", in->lineno + 1,
				 RD_FLEET_MAX_REPORT >> 20);
			give_up(in, NULL, msg);
			in->dead = true;
			return -1;
		}
		rd_buf_add(&in->line, data + at, n);
		at += n;
		if (nl) {
			at++;
			in->lineno++;
			size_t ln = in->line.len;
			if (ln && in->line.data[ln - 1] == '\r')
				ln--;
			(in->mode == MODE_GATHER ? gather_line : host_line)(in, in->line.data, ln);
			in->line.len = 0;
			if (!in->good_lines && in->bad_bytes > RD_FLEET_MAX_JUNK) {
				junk_given_up(in);
				return -1;
			}
		}
	}
	return 0;
}

int rd_fleet_input_feed(struct rd_fleet_input *in, const char *data, size_t len)
{
	if (in->dead)
		return -1;
	if (in->mode == MODE_UNDECIDED) {
		size_t i = 0;
		while (i < len && isspace((unsigned char)data[i]))
			i++;
		in->lead_space += i;
		if (i == len) {
			if (in->lead_space <= RD_FLEET_MAX_JUNK)
				return 0; /* only white space so far */
			char msg[96];
			snprintf(msg, sizeof msg, "only white space in its first %u KiB: not read further", RD_FLEET_MAX_JUNK >> 10);
			give_up(in, NULL, msg);
			in->dead = true;
			return -1;
		}
		if (data[i] == '{' || data[i] == '[') {
			in->mode = MODE_JSON;
			if (!(in->json = parser_new(in))) {
				give_up(in, NULL, yajl_failed);
				in->dead = true;
				return -1;
			}
		} else /* a host name never starts with '-': a clush -b header does */
			in->mode = data[i] == '-' ? MODE_GATHER : MODE_LINES;
		if (in->mode != MODE_JSON && !in->lines_ok) {
			give_up(in, NULL, "not JSON: a file of a directory of reports is one node's check --format json "
					  "output (pdsh/clush output, which speaks for many hosts, is read on standard input)");
			in->dead = true;
			return -1;
		}
	}
	if (in->mode == MODE_JSON) {
		in->cur_label = in->node;
		int r = parser_feed(&in->json->p, data, len);
		in->cur_label = NULL;
		if (r < 0) {
			give_up(in, NULL, in->json->p.err);
			in->dead = true;
			return -1;
		}
		return 0;
	}
	return feed_lines(in, data, len);
}

void rd_fleet_input_end(struct rd_fleet_input *in)
{
	if (in->dead)
		return;
	in->dead = true;
	if (in->mode == MODE_UNDECIDED) {
		give_up(in, NULL, "empty: no report in it");
		return;
	}
	if (in->mode == MODE_JSON) {
		in->cur_label = in->node;
		int r = parser_end(&in->json->p);
		in->cur_label = NULL;
		if (r < 0)
			give_up(in, NULL, in->json->p.err);
		return;
	}
	if (in->line.len) { /* a last line without a newline */
		in->lineno++;
		(in->mode == MODE_GATHER ? gather_line : host_line)(in, in->line.data, in->line.len);
		in->line.len = 0;
	}
	block_end(in);
	if (!in->good_lines) {
		char msg[160];
		snprintf(msg, sizeof msg, "not JSON and not pdsh/clush output (line %llu is neither)", in->first_bad);
		give_up(in, NULL, msg);
		return;
	}
	for (size_t i = 0; i < in->nhosts; i++) {
		struct lhost *lh = &in->hosts[i];
		if (lh->dead)
			continue;
		if (lh->o && parser_end(&lh->o->p) < 0)
			give_up(in, lh->name, lh->o->p.err);
		else if (!lh->nreports)
			give_up(in, lh->name, "no report in its output");
	}
	if (in->bad_lines) {
		char msg[200];
		snprintf(msg, sizeof msg, "%llu line%s not pdsh/clush output, ignored (first: line %llu)", in->bad_lines,
			 in->bad_lines == 1 ? " is" : "s are", in->first_bad);
		give_up(in, NULL, msg);
	}
}

void rd_fleet_input_free(struct rd_fleet_input *in)
{
	if (!in)
		return;
	parser_free(in->json);
	parser_free(in->block);
	for (size_t i = 0; i < in->nhosts; i++) {
		parser_free(in->hosts[i].o);
		free(in->hosts[i].name);
	}
	free(in->hosts);
	rd_map_free(&in->hostmap, NULL);
	rd_buf_free(&in->line);
	free(in->blabel);
	free(in->node);
	free(in->origin);
	free(in);
}
