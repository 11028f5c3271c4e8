/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Which ib_core a module that failed to load was built against (kmod_build.h). */
#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "checks/kmod_build.h"
#include "util/util.h"

static bool modchar(char c)
{
	return isalnum((unsigned char)c) || c == '_' || c == '-';
}

/* kernel/module/main.c: pr_warn("%s: disagrees about version of symbol %s\n", info->name, symname)
 * and pr_warn("%s: Unknown symbol %s (err %d)\n", info->name, name, ret); kmod tools/modprobe.c:
 * ERR("could not insert '%s': %s\n", kmod_module_get_name(mod), ...). */
bool rd_kmod_line_module(const char *line, char *name, size_t n)
{
	const char *p = NULL, *q = NULL;
	const char *ins = strcasestr(line, "could not insert '");
	if (ins) {
		p = ins + strlen("could not insert '");
		q = strchr(p, '\'');
	} else {
		const char *at = strcasestr(line, ": disagrees about version of symbol");
		if (!at)
			at = strcasestr(line, ": unknown symbol");
		if (!at)
			return false;
		q = at;
		p = at;
		while (p > line && modchar(p[-1]))
			p--;
	}
	if (!q || q <= p || (size_t)(q - p) >= n)
		return false;
	size_t len = (size_t)(q - p);
	for (size_t i = 0; i < len; i++) {
		if (!modchar(p[i]))
			return false;
		name[i] = p[i] == '-' ? '_' : p[i];
	}
	name[len] = '\0';
	return true;
}

/* modules.dep path of module ("kernel/drivers/nvme/target/nvmet-rdma.ko"), or NULL */
static const char *dep_path(const struct rd_system *s, const char *module)
{
	for (size_t i = 0; i < s->kmod_paths.n && i < s->kmod_names.n; i++)
		if (strcmp(s->kmod_names.v[i], module) == 0)
			return s->kmod_paths.v[i];
	return NULL;
}

/* s when it is safe to paste into a shell (the root is hostile), else instead */
static const char *shell_word(const char *s, const char *instead)
{
	for (const char *q = s; *q; q++)
		if (!isalnum((unsigned char)*q) && !strchr("._-+/~", *q))
			return instead;
	return *s ? s : instead;
}

static bool is_peermem(const char *m)
{
	return strcmp(m, "nvidia_peermem") == 0 || strcmp(m, "nv_peer_mem") == 0;
}

/* The upper-layer modules of the distro kernel that MLNX_OFED builds only on request. */
static const char *ofed_option(const char *m)
{
	static const char *const nvmf[] = {"nvme_rdma", "nvmet_rdma", "nvme_fabrics", "nvmet", NULL};
	static const char *const nfs[] = {"xprtrdma", "rpcrdma", "svcrdma", NULL};
	for (int i = 0; nvmf[i]; i++)
		if (strcmp(m, nvmf[i]) == 0)
			return "--with-nvmf";
	for (int i = 0; nfs[i]; i++)
		if (strcmp(m, nfs[i]) == 0)
			return "--with-nfsrdma";
	return NULL;
}

static bool known_ulp(const char *m)
{
	static const char *const ulp[] = {"ib_iser", "ib_isert", "ib_srp", "ib_srpt", "rds_rdma", NULL};
	if (ofed_option(m))
		return true;
	for (int i = 0; ulp[i]; i++)
		if (strcmp(m, ulp[i]) == 0)
			return true;
	return false;
}

static void add_fix(struct rd_kmod_judgement *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void add_fix(struct rd_kmod_judgement *o, const char *fmt, ...)
{
	if (o->nfix >= RD_KMOD_FIXES)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(o->fix[o->nfix++], sizeof o->fix[0], fmt, ap);
	va_end(ap);
}

static void ofed_build_fix(struct rd_kmod_judgement *o, const char *m)
{
	const char *opt = ofed_option(m);
	if (opt)
		add_fix(o, "install OFED's build of %s: rerun mlnxofedinstall with %s (or install that option's package of the "
			   "same OFED release), then depmod -a && modprobe %s", m, opt, m);
	else
		add_fix(o, "install OFED's build of %s (its package of the same OFED release), then depmod -a && modprobe %s; "
			   "or do not load %s on this host", m, m, m);
}

void rd_kmod_judge(const struct rd_host *h, const struct rd_system *s, const char *module, struct rd_kmod_judgement *o)
{
	memset(o, 0, sizeof *o);
	o->verdict = -1;
	snprintf(o->module, sizeof o->module, "%s", module);
	const char *kver = rd_attr_ok(&h->osrelease) ? shell_word(h->osrelease.value, "$(uname -r)") : "$(uname -r)";
	/* the origin of the loaded ib_core: 1 OFED (out of tree), 0 the distro kernel's */
	int ofed = -1;
	const struct rd_module *ib = rd_host_module(h, "ib_core");
	if (!rd_module_loaded(h, "ib_core")) {
		snprintf(o->why, sizeof o->why, "ib_core is not loaded: %s cannot be judged against it", module);
		return;
	}
	if (rd_module_loaded(h, module)) {
		snprintf(o->why, sizeof o->why, "%s is loaded now: the lines are from another load, or another host", module);
		return;
	}
	if (ib)
		ofed = rd_module_out_of_tree(ib);
	if (ofed < 0 && rd_system_stack(s)->running == RD_RUN_OFED)
		ofed = 1;
	if (ofed < 0 && rd_system_stack(s)->running == RD_RUN_INBOX)
		ofed = 0;
	const char *ibname = ofed == 1 ? "MLNX_OFED's" : "the distro kernel's";
	if (is_peermem(module)) {
		/* the NVIDIA driver's module, never OFED's: a mismatch names the ib_core it was built against */
		if (ofed < 0) {
			snprintf(o->why, sizeof o->why, "the origin of the loaded ib_core is not known");
			return;
		}
		o->verdict = 1;
		const struct rd_module *nv = rd_host_module(h, "nvidia");
		const char *ver = nv && rd_attr_ok(&nv->version) ? shell_word(nv->version.value, "VERSION") : "VERSION";
		if (ofed == 1) {
			snprintf(o->why, sizeof o->why,
				 "%s comes with the NVIDIA driver, not with OFED: it was built against another ib_core than the "
				 "loaded MLNX_OFED one (the driver was built before OFED replaced ib_core, or OFED changed since)",
				 module);
			add_fix(o, "dkms remove nvidia/%s -k %s && dkms install nvidia/%s -k %s    # rebuilds nvidia-peermem "
				   "against the running OFED (dkms status lists the version)", ver, kver, ver, kver);
			add_fix(o, "modprobe nvidia_peermem");
		} else {
			snprintf(o->why, sizeof o->why,
				 "%s was built against an OFED ib_core (its peer-memory symbols), but the loaded ib_core is the "
				 "distro kernel's", module);
			add_fix(o, "load the OFED stack it was built for (/etc/init.d/openibd restart, or reboot into it)");
			add_fix(o, "or, on the inbox stack, use DMA-BUF instead (NCCL 2.19+, the open GPU kernel modules) and do not "
				   "load nvidia_peermem");
		}
		return;
	}
	const char *path = dep_path(s, module);
	if (!path) {
		if (!rd_attr_ok(&s->modules_dep) && known_ulp(module) && ofed == 1) {
			/* an upper-layer module of the distro kernel that OFED builds only on request */
			o->verdict = 1;
			snprintf(o->why, sizeof o->why,
				 "%s is the distro kernel's module unless OFED was installed with its build; it does not load on "
				 "MLNX_OFED's ib_core (modules.dep of %s, which would tell, cannot be read)", module, kver);
			ofed_build_fix(o, module);
			return;
		}
		if (!rd_attr_ok(&s->modules_dep)) {
			snprintf(o->why, sizeof o->why, "modules.dep of %s cannot be read: where %s comes from is not known", kver,
				 module);
			return;
		}
		if (known_ulp(module) && ofed == 1) {
			/* OFED's build would be listed: what modprobe finds is the distro kernel's */
			o->verdict = 1;
			snprintf(o->why, sizeof o->why,
				 "modules.dep lists no OFED build of %s (updates/ or extra/): the %s that loads is the distro "
				 "kernel's, which does not load on MLNX_OFED's ib_core", module, module);
			ofed_build_fix(o, module);
			return;
		}
		snprintf(o->why, sizeof o->why, "%s is not in modules.dep of %s", module, kver);
		return;
	}
	bool intree = rd_str_has_prefix(path, "kernel/");
	if (ofed < 0) {
		snprintf(o->why, sizeof o->why, "%s is %s, but the origin of the loaded ib_core is not known", path,
			 intree ? "in-tree" : "out of tree");
		return;
	}
	if (intree == (ofed == 0)) {
		o->verdict = 0;
		snprintf(o->why, sizeof o->why, "%s (%s) and the loaded ib_core are both %s builds", module, path,
			 intree ? "in-tree" : "out-of-tree");
		return;
	}
	o->verdict = 1;
	if (intree) {
		snprintf(o->why, sizeof o->why,
			 "%s is the distro kernel's in-tree module (%s) but the loaded ib_core is %s: in-tree modules do not "
			 "load on it", module, path, ibname);
		ofed_build_fix(o, module);
	} else {
		snprintf(o->why, sizeof o->why, "%s is an out-of-tree build (%s: OFED's or DKMS) but the loaded ib_core is %s",
			 module, path, ibname);
		add_fix(o, "load the OFED stack %s was built for (/etc/init.d/openibd restart, or reboot into it)", module);
		add_fix(o, "or remove that build (/lib/modules/%s/%s), then depmod -a so the in-tree %s loads", kver,
			shell_word(path, "<its path in modules.dep>"), module);
	}
}
