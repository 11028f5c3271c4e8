/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Judging causes: a join of each cause's subjects (typed: a module, a device node, a port ...)
 * with the findings of its checks on them, or a fact of the host model; and the finished result
 * of explain. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/kmod_build.h"
#include "explain/explain.h"

const char *rd_cause_verdict_name(enum rd_cause_verdict v)
{
	switch (v) {
	case RD_CAUSE_CONFIRMED: return "confirmed";
	case RD_CAUSE_RULED_OUT: return "ruled out";
	default: return "cannot tell";
	}
}

/* ---- facts of the model ---- */

int rd_fact_no_rdma_hardware(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		 struct rd_explain_verdict *out)
{
	char *why = out->why;
	size_t n = sizeof out->why;
	(void)line;
	(void)c;
	if (rd_host_has_rdma_hardware(h, s)) {
		snprintf(why, n, "this host has %zu RDMA device%s or a ConnectX/BlueField PCI function", h->ndevices,
			 h->ndevices == 1 ? "" : "s");
		return 0;
	}
	snprintf(why, n, "no RDMA device in /sys/class/infiniband and no ConnectX/BlueField PCI function on this host");
	return 1;
}

int rd_fact_stack_mixed(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		 struct rd_explain_verdict *out)
{
	char *why = out->why;
	size_t n = sizeof out->why;
	(void)line;
	(void)c;
	(void)h;
	enum rd_stack_run run = s->stack.running;
	const char *name = rd_stack_run_name(run);
	if (run == RD_RUN_UNKNOWN || run == RD_RUN_NONE) {
		snprintf(why, n, "the loaded RDMA modules do not tell which stack they come from (%s)", name);
		return -1;
	}
	snprintf(why, n, "the loaded RDMA modules are %s%s", run == RD_RUN_MIXED ? "" : "all ", name);
	return run == RD_RUN_MIXED;
}

int rd_fact_inbox_ib_core(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		 struct rd_explain_verdict *out)
{
	char *why = out->why;
	size_t n = sizeof out->why;
	(void)line;
	(void)c;
	(void)h;
	enum rd_stack_run run = s->stack.running;
	if (run == RD_RUN_INBOX) {
		snprintf(why, n, "the in-tree (inbox) ib_core is loaded: it has no peer-memory API");
		return 1;
	}
	snprintf(why, n, "the loaded RDMA modules are %s", rd_stack_run_name(run));
	return run == RD_RUN_UNKNOWN ? -1 : 0;
}

/* NCCL has no way to register GPU memory with the NIC here: not DMA-BUF (the open NVIDIA kernel
 * module, R515+, a 5.12+ kernel with CONFIG_DMA_SHARED_BUFFER, NCCL_DMABUF_ENABLE), and none of the
 * files of nvidia_peermem's registration that NCCL looks for: gdr.mode's own decision. */
int rd_fact_gdr_none(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		     struct rd_explain_verdict *out)
{
	(void)c;
	(void)line;
	const struct rd_pcitopo *t = &s->topo;
	if (!t->ngpus || !t->nnics || t->flat_bridge[0]) { /* where gdr.mode judges nothing */
		snprintf(out->why, sizeof out->why, "%s", !t->ngpus || !t->nnics ? "this host has no NVIDIA GPU with an RDMA NIC to tell it by"
											 : "the PCI tree of this root is not a PCIe hierarchy (gdr.mode SKIPs)");
		return -1;
	}
	const char *pm = NULL;
	for (size_t i = 0; i < 3 && !pm; i++)
		if (t->peermem_file[i])
			pm = rd_nccl_peermem_files[i];
	struct rd_buf why = {0}, yes = {0};
	int d = rd_pcitopo_dmabuf(h, t, &why, &yes), r;
	if (pm) {
		snprintf(out->why, sizeof out->why, "/%s exists: NCCL can register GPU memory through nvidia_peermem here", pm);
		r = 0;
	} else if (d == RD_DMABUF_YES) {
		snprintf(out->why, sizeof out->why, "NCCL can use DMA-BUF here: %s", yes.data ? yes.data : "");
		r = 0;
	} else {
		snprintf(out->why, sizeof out->why, "%s DMA-BUF: %s; and nvidia_peermem is not registered (none of the files "
			 "NCCL looks for exists)", d == RD_DMABUF_NO ? "not" : "cannot tell", why.data ? why.data : "");
		r = d == RD_DMABUF_NO ? 1 : -1;
	}
	rd_buf_free(&why);
	rd_buf_free(&yes);
	return r;
}

int rd_fact_peermem_missing_on_inbox(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		 struct rd_explain_verdict *out)
{
	char *why = out->why;
	size_t n = sizeof out->why;
	(void)line;
	(void)c;
	if (rd_module_loaded(h, "nvidia_peermem")) {
		snprintf(why, n, "nvidia_peermem is loaded");
		return 0;
	}
	int inbox = rd_fact_inbox_ib_core(c, h, s, line, out);
	if (inbox == 1)
		snprintf(why, n, "nvidia_peermem is not loaded and ib_core is the in-tree one");
	return inbox;
}

/* The first port of the host for which match() holds (its device in *dev), counting the ports and
 * those for which unread() says the value needed could not be read. */
static const struct rd_port *first_port(const struct rd_host *h, bool (*match)(const struct rd_port *),
					bool (*unread)(const struct rd_port *), const char **dev, size_t *ports,
					size_t *nunread)
{
	*ports = *nunread = 0;
	for (size_t i = 0; i < h->ndevices; i++)
		for (size_t p = 0; p < h->devices[i].nports; p++) {
			const struct rd_port *port = &h->devices[i].ports[p];
			++*ports;
			if (match(port)) {
				*dev = h->devices[i].name;
				return port;
			}
			*nunread += unread(port);
		}
	return NULL;
}

static bool is_initializing(const struct rd_port *p)
{
	return p->state_v == 2 && p->phys_v == 5;
}

static bool is_polling(const struct rd_port *p)
{
	return p->phys_v == 2;
}

static bool state_unread(const struct rd_port *p)
{
	return p->state_v < 0;
}

static bool phys_unread(const struct rd_port *p)
{
	return p->phys_v < 0;
}

/* An InfiniBand port whose link is up (LinkUp) but which no subnet manager has configured (INIT):
 * ports.state reports it (ports.sm refers to that finding), so the model decides. */
int rd_fact_port_initializing(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		 struct rd_explain_verdict *out)
{
	char *why = out->why;
	size_t n = sizeof out->why;
	(void)line;
	(void)c;
	(void)s;
	const char *dev = NULL;
	size_t ports, unread;
	const struct rd_port *port = first_port(h, is_initializing, state_unread, &dev, &ports, &unread);
	if (port) {
		snprintf(why, n, "%s port %u is Initializing with its link up: no subnet manager has configured it "
			 "(see ports.state; sminfo tells which SM answers)", dev, port->num);
		return 1;
	}
	if (unread) {
		snprintf(why, n, "the state of %zu port%s cannot be read", unread, unread == 1 ? "" : "s");
		return -1;
	}
	snprintf(why, n, "no port of the %zu here is Initializing", ports);
	return ports ? 0 : -1;
}

int rd_fact_port_polling(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		 struct rd_explain_verdict *out)
{
	char *why = out->why;
	size_t n = sizeof out->why;
	(void)line;
	(void)c;
	(void)s;
	const char *dev = NULL;
	size_t ports, unread;
	const struct rd_port *port = first_port(h, is_polling, phys_unread, &dev, &ports, &unread);
	if (port) {
		snprintf(why, n, "%s port %u: physical state Polling", dev, port->num);
		return 1;
	}
	if (unread) {
		snprintf(why, n, "the physical state of %zu port%s cannot be read", unread, unread == 1 ? "" : "s");
		return -1;
	}
	snprintf(why, n, "no port of the %zu here is Polling", ports);
	return ports ? 0 : -1;
}

int rd_fact_no_active_port(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		 struct rd_explain_verdict *out)
{
	char *why = out->why;
	size_t n = sizeof out->why;
	(void)line;
	(void)c;
	(void)s;
	size_t ports = 0, unread = 0;
	for (size_t i = 0; i < h->ndevices; i++)
		for (size_t p = 0; p < h->devices[i].nports; p++) {
			const struct rd_port *port = &h->devices[i].ports[p];
			ports++;
			if (port->state_v == 4) {
				snprintf(why, n, "%s port %u is Active", h->devices[i].name, port->num);
				return 0;
			}
			unread += port->state_v < 0;
		}
	if (unread) {
		snprintf(why, n, "no port is Active, but the state of %zu cannot be read", unread);
		return -1;
	}
	if (!ports) {
		snprintf(why, n, "no RDMA port on this host");
		return -1;
	}
	snprintf(why, n, "none of the %zu ports here is Active", ports);
	return 1;
}

int rd_fact_not_in_modules_load_d(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s, const char *line,
		 struct rd_explain_verdict *out)
{
	char *why = out->why;
	size_t n = sizeof out->why;
	(void)line;
	(void)h;
	for (int i = 0; i < 4 && c->subjects[i]; i++) {
		const struct rd_modload_file *f = rd_modload_find(s, c->subjects[i]);
		if (!f) {
			snprintf(why, n, "%s is in no modules-load.d file", c->subjects[i]);
			return 1;
		}
	}
	snprintf(why, n, "modules-load.d lists %s", c->subjects[0] ? c->subjects[0] : "them");
	return 0;
}

/* The module the line names failed on a symbol mismatch: built against another ib_core than the
 * loaded one (checks/kmod_build.h), its fix the one for this host. */
int rd_fact_module_other_ib_core(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s,
				 const char *line, struct rd_explain_verdict *out)
{
	(void)c;
	char m[64];
	if (!line || !rd_kmod_line_module(line, m, sizeof m)) {
		snprintf(out->why, sizeof out->why, "the line names no module");
		return -1;
	}
	struct rd_kmod_judgement j;
	rd_kmod_judge(h, s, m, &j);
	snprintf(out->why, sizeof out->why, "%s", j.why);
	for (int i = 0; j.verdict == 1 && i < j.nfix && i < 2; i++)
		snprintf(out->fix[out->nfix++], sizeof out->fix[0], "%s", j.fix[i]);
	return j.verdict;
}

/* kmod tools/modprobe.c: "modprobe: FATAL: Module %s not found in directory %s": the module is in
 * no modules.dep or modules.builtin of the running kernel. */
int rd_fact_module_not_installed(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s,
				 const char *line, struct rd_explain_verdict *out)
{
	(void)c;
	const char *p = line ? strcasestr(line, "module ") : NULL;
	char m[64];
	size_t k = 0;
	for (p = p ? p + 7 : NULL; p && *p && *p != ' ' && k + 1 < sizeof m; p++)
		m[k++] = *p == '-' ? '_' : *p;
	m[k] = '\0';
	if (!k) {
		snprintf(out->why, sizeof out->why, "the line names no module");
		return -1;
	}
	const char *kver = rd_attr_ok(&h->osrelease) && !strpbrk(h->osrelease.value, " \t'\"`$;&|<>()\\*?[]{}!#\n")
				   ? h->osrelease.value : "$(uname -r)";
	if (!rd_attr_ok(&s->modules_dep)) {
		snprintf(out->why, sizeof out->why, "modules.dep of %s cannot be read", kver);
		return -1;
	}
	if (rd_strv_contains(&s->kmod_names, m)) {
		snprintf(out->why, sizeof out->why, "modules.dep of %s lists %s: modprobe looked in another kernel's directory", kver,
			 m);
		return 0;
	}
	snprintf(out->why, sizeof out->why, "%s is in no modules.dep or modules.builtin of %s", m, kver);
	snprintf(out->fix[out->nfix++], sizeof out->fix[0],
		 "dkms status; dkms autoinstall -k %s    # builds the DKMS modules (the NVIDIA driver's nvidia-peermem, OFED's) "
		 "for the running kernel", kver);
	snprintf(out->fix[out->nfix++], sizeof out->fix[0], "modprobe %s", m);
	return 1;
}

/* A module listed in modules-load.d that the running kernel does not have: systemd-modules-load
 * fails ("Failed to start systemd-modules-load.service - Load Kernel Modules."). */
int rd_fact_modules_load_d_unknown(const struct rd_sig_cause *c, const struct rd_host *h, const struct rd_system *s,
				   const char *line, struct rd_explain_verdict *out)
{
	(void)c;
	(void)line;
	const char *kver = rd_attr_ok(&h->osrelease) && !strpbrk(h->osrelease.value, " \t'\"`$;&|<>()\\*?[]{}!#\n")
				   ? h->osrelease.value : "$(uname -r)";
	if (!rd_attr_ok(&s->modules_dep)) {
		snprintf(out->why, sizeof out->why, "modules.dep of %s cannot be read", kver);
		return -1;
	}
	size_t listed = 0;
	for (size_t i = 0; i < s->nmodload; i++) {
		const struct rd_modload_file *f = &s->modload[i];
		if (f->overridden)
			continue;
		for (size_t k = 0; k < f->modules.n; k++, listed++) {
			const char *m = f->modules.v[k];
			char u[64];
			size_t j = 0;
			for (; m[j] && j + 1 < sizeof u; j++)
				u[j] = m[j] == '-' ? '_' : m[j];
			u[j] = '\0';
			if (rd_strv_contains(&s->kmod_names, u) || rd_module_loaded(h, u))
				continue;
			snprintf(out->why, sizeof out->why, "%s lists %s, which is in no modules.dep or modules.builtin of %s", f->path,
				 m, kver);
			/* a fix to paste into a shell: only a plain module name and file path (the root is hostile) */
			bool plain = true;
			for (const char *q = m; *q; q++)
				plain &= (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_' ||
					 *q == '-';
			for (const char *q = f->path; *q; q++)
				plain &= (*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z') || (*q >= '0' && *q <= '9') || *q == '_' ||
					 *q == '-' || *q == '.' || *q == '/';
			if (plain)
				snprintf(out->fix[out->nfix++], sizeof out->fix[0],
					 "sed -i '/^%s$/d' %s    # or install %s for %s (dkms autoinstall)", m, f->path, m, kver);
			snprintf(out->fix[out->nfix++], sizeof out->fix[0], "systemctl restart systemd-modules-load");
			return 1;
		}
	}
	snprintf(out->why, sizeof out->why, "every module of the %zu modules-load.d lines is in modules.dep of %s", listed, kver);
	return 0;
}

/* ---- the join ---- */

static bool is_check_of(const struct rd_sig_cause *c, const struct rd_finding *f)
{
	for (int i = 0; i < 3 && c->checks[i]; i++)
		if (strcmp(c->checks[i], f->check) == 0)
			return true;
	return false;
}

/* The finding is about one of the cause's subjects. */
static bool about(const struct rd_sig_cause *c, const struct rd_finding *f)
{
	if (!c->subjects[0])
		return true;
	if (f->kind != c->kind)
		return false;
	for (int i = 0; i < 4 && c->subjects[i]; i++)
		if (fnmatch(c->subjects[i], f->subject, 0) == 0)
			return true;
	return false;
}

void rd_explain_judge(const struct rd_sig_cause *c, const struct rd_report *r, const struct rd_host *h,
		      const struct rd_system *s, const char *line, struct rd_explain_verdict *out)
{
	out->cause = c;
	out->nfix = 0;
	out->finding = NULL;
	out->nmore = 0;
	out->why[0] = '\0';
	out->v = RD_CAUSE_CANNOT_TELL;
	if (c->fact && !c->checks[0]) {
		if (!h)
			return;
		int t = c->fact(c, h, s, line, out);
		out->v = t > 0 ? RD_CAUSE_CONFIRMED : t == 0 ? RD_CAUSE_RULED_OUT : RD_CAUSE_CANNOT_TELL;
		return;
	}
	if (!c->checks[0])
		return;
	if (c->presumes && h && !rd_module_loaded(h, c->presumes)) {
		out->v = RD_CAUSE_RULED_OUT;
		snprintf(out->why, sizeof out->why, "%s is not loaded: that is the cause", c->presumes);
		return;
	}
	unsigned confirm = c->confirm ? c->confirm : RD_ON(RD_FAIL) | RD_ON(RD_WARN);
	const struct rd_finding *untold = NULL, *clear = NULL, *ok = NULL; /* ok: an OK of the check on anything */
	bool ran = false;
	for (size_t i = 0; i < r->n; i++) {
		const struct rd_finding *f = &r->findings[i];
		if (!is_check_of(c, f))
			continue;
		ran = true;
		if (f->status == RD_OK && !ok)
			ok = f; /* "no known RDMA error in the kernel log", "/dev/infiniband complete" */
		bool on = about(c, f), host = f->kind == RD_SUBJ_HOST;
		if (on && (confirm & RD_ON(f->status))) {
			if (!out->finding)
				out->finding = f;
			else if (out->nmore < RD_EXPLAIN_MORE)
				out->more[out->nmore++] = f;
			out->v = RD_CAUSE_CONFIRMED;
			continue;
		}
		if (!on && !host) {
			/* about another subject: says nothing of this one, unless the check could not finish */
			if (f->status == RD_UNKNOWN && !untold)
				untold = f;
			continue;
		}
		/* on the subject, or about the whole host */
		bool problem = f->status == RD_FAIL || f->status == RD_WARN;
		if (host && !on && problem && c->fact && h && !untold) {
			/* a host-wide problem that names no subject: the model tells whether it is about them */
			int t = c->fact(c, h, s, line, out);
			if (t > 0) {
				out->finding = f;
				out->v = RD_CAUSE_CONFIRMED;
				continue;
			}
			if (t == 0) {
				out->why[0] = '\0';
				continue;
			}
			out->why[0] = '\0';
		}
		if (!untold && (f->status == RD_UNKNOWN || f->status == RD_SKIP || (host && !on && problem)))
			untold = f; /* did not look, could not tell, or a host-wide problem that names no subject */
		else if (!clear && f->status == RD_OK)
			clear = f;
	}
	if (!ran || out->v == RD_CAUSE_CONFIRMED)
		return;
	if (untold) {
		out->finding = untold;
		return;
	}
	out->v = RD_CAUSE_RULED_OUT;
	if (clear || ok) {
		out->finding = clear ? clear : ok;
		return;
	}
	/* no OK finding on the subject: the check said nothing of it, or something else */
	struct rd_buf b = {0};
	rd_buf_printf(&b, "no finding says this of");
	for (int i = 0; i < 4 && c->subjects[i]; i++)
		rd_buf_printf(&b, "%s %s", i ? "," : "", c->subjects[i]);
	snprintf(out->why, sizeof out->why, "%s", b.data);
	rd_buf_free(&b);
}

void rd_explain_result_build(struct rd_explain_result *res, const struct rd_explain_scan *scan,
			     const struct rd_report *report, const struct rd_host *h, const struct rd_system *s)
{
	static const struct rd_report none = {0};
	if (!report)
		report = &none;
	res->scan = scan;
	res->matches = rd_xcalloc(scan->nsig ? scan->nsig : 1, sizeof *res->matches);
	res->nmatch = 0;
	res->any_confirmed = res->any_unknown = false;
	for (size_t k = 0; k < scan->nsig; k++) {
		if (!scan->m[k].count)
			continue;
		struct rd_explain_match *x = &res->matches[res->nmatch++];
		x->sig = &rd_signatures[k];
		x->m = &scan->m[k];
		x->ncauses = 0;
		struct rd_explain_verdict v[RD_SIG_MAX_CAUSES];
		int n = 0;
		for (; n < RD_SIG_MAX_CAUSES && x->sig->causes[n].text; n++)
			rd_explain_judge(&x->sig->causes[n], report, h, s, x->m->sample, &v[n]);
		for (int pass = RD_CAUSE_CONFIRMED; pass <= RD_CAUSE_RULED_OUT; pass++)
			for (int c = 0; c < n; c++) {
				if ((int)v[c].v != pass)
					continue;
				res->any_confirmed |= v[c].v == RD_CAUSE_CONFIRMED;
				res->any_unknown |= v[c].v == RD_CAUSE_CANNOT_TELL;
				x->causes[x->ncauses++] = v[c];
			}
	}
	res->exit_code = res->any_confirmed ? 1 : res->any_unknown ? 3 : 0;
}

void rd_explain_result_free(struct rd_explain_result *res)
{
	free(res->matches);
	res->matches = NULL;
	res->nmatch = 0;
}
