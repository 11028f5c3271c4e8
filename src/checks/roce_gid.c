/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* roce.gid: every Active RoCE port has a GID NCCL can use (a RoCE v2 GID with an IPv4 address on
 * the port's netdev by default), and the index NCCL takes is that one (model/gid.h has NCCL's
 * rules).  An index forced through NCCL_IB_GID_INDEX (the environment this runs in: a Slurm
 * prolog runs with the job's) or the policy's [nccl] gid_index that is not such a GID on a port is
 * a FAIL: QP setup fails there ("Failed to set up RDMA QP").  A port with only link-local (fe80::)
 * GIDs is a WARN: NCCL's automatic choice then takes a link-local GID, which reaches only peers on
 * the same L2 segment that use link-local GIDs too; a port with no GID at all is a FAIL.  An NCCL
 * older than 2.21.5 (model/gid.h says how its version is known) takes index 0 unless told: a WARN
 * when another index is the usable one.  The OK line names the NCCL version judged by. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/system.h"
#include "model/gid.h"

static void describe(const struct rd_port *p, int idx, char *buf, size_t len)
{
	const struct rd_gid *g = idx >= 0 ? rd_port_gid(p, (unsigned)idx) : NULL;
	if (!g || rd_gid_is_zero(g->gid)) {
		snprintf(buf, len, "an empty GID");
		return;
	}
	char v4[20];
	rd_gid_ipv4(g->gid, v4, sizeof v4);
	int v = rd_gid_roce_version(g->type);
	char ver[16];
	snprintf(ver, sizeof ver, v > 0 ? "RoCE v%d" : "RoCE v?", v);
	snprintf(buf, len, "%s, %s%s%s", ver, v4[0] ? v4 : g->text, g->ndev && *g->ndev ? " on " : "",
		 g->ndev && *g->ndev ? g->ndev : "");
}

static void gid_evidence(struct rd_finding *f, const struct rd_port *p)
{
	for (size_t i = 0; i < p->ngids; i++) {
		const struct rd_gid *g = &p->gids[i];
		char *path = rd_xasprintf("%s/gids/%u", p->dir, g->index);
		rd_evidence_add(f, path, "%s  %s  %s", g->text ? g->text : "", g->type ? g->type : "(type unreadable)",
				g->ndev ? g->ndev : "(no netdev)");
		free(path);
	}
}

/* The index NCCL should use: its own choice when usable, else the first usable one; -1. */
static int good_index(const struct rd_port *p, int chosen, const struct rd_nccl_sel *sel)
{
	if (chosen >= 0 && rd_nccl_gid_usable(p, (unsigned)chosen, sel, NULL, 0))
		return chosen;
	for (size_t i = 0; i < p->ngids; i++)
		if (rd_nccl_gid_usable(p, p->gids[i].index, sel, NULL, 0))
			return (int)p->gids[i].index;
	return -1;
}

static const char *fam_name(int fam)
{
	return fam == RD_GID_INET6 ? "IPv6" : "IPv4";
}

void rd_check_roce_gid(struct rd_check_ctx *ctx)
{
	const struct rd_host *h = ctx->host;
	const struct rd_policy *pol = ctx->policy;
	bool roce = false; /* an ACTIVE RoCE port to judge: only then does NCCL's environment matter */
	for (size_t i = 0; i < h->ndevices && !roce; i++)
		for (size_t k = 0; k < h->devices[i].nports && h->devices[i].node_type_v != 4; k++) {
			const struct rd_port *p = &h->devices[i].ports[k];
			roce |= !p->is_ib && p->state_v == RD_PORT_ACTIVE && !rd_policy_ignores(pol, h->devices[i].name, p->num);
		}
	if (roce && rd_nccl_environ_unread(ctx))
		return;
	struct rd_nccl_sel sel;
	rd_nccl_sel_make(&sel, &ctx->sys->nccl_env, pol->nccl_gid_index, pol->nccl_roce_version, pol->nccl_family,
			 pol->nccl_version);
	size_t nports = 0;
	char oks[512] = "";
	char subj[128], why[96], gd[160], cd[160];
	for (size_t i = 0; i < h->ndevices; i++) {
		const struct rd_device *d = &h->devices[i];
		if (d->node_type_v == 4) /* an iWARP RNIC: Ethernet ports, but peers are not addressed by GID */
			continue;
		for (size_t k = 0; k < d->nports; k++) {
			const struct rd_port *p = &d->ports[k];
			if (p->is_ib || rd_policy_ignores(pol, d->name, p->num) || p->state_v != RD_PORT_ACTIVE)
				continue;
			snprintf(subj, sizeof subj, "%s port %u", d->name, p->num);
			const char *ifname = p->nnetdevs ? p->netdevs[0].name : "\"$IFACE\"" /* its netdev, not known here */;
			if (p->gids_err || !p->ngids) {
				struct rd_finding *f = rd_finding_add(ctx, RD_UNKNOWN, subj, "cannot read the GID table of %s", subj);
				char *path = rd_xasprintf("%s/gids", p->dir);
				rd_evidence_add(f, path, "%s", p->gids_err ? rd_strerror(p->gids_err) : "no readable entry");
				free(path);
				continue;
			}
			nports++;
			int chosen = rd_nccl_auto_gid(p, &sel);
			int good = good_index(p, chosen, &sel);
			if (good >= 0)
				describe(p, good, gd, sizeof gd);
			if (sel.gid_index >= 0) {
				if (rd_nccl_gid_usable(p, (unsigned)sel.gid_index, &sel, why, sizeof why)) {
					good = sel.gid_index;
				} else {
					describe(p, sel.gid_index, cd, sizeof cd);
					struct rd_finding *f;
					if (good >= 0)
						f = rd_finding_add(ctx, RD_FAIL, subj,
								   "%s = %d selects GID %d of %s, which is %s (%s): QP setup fails; NCCL "
								   "should use index %d (%s)",
								   sel.gid_index_from, sel.gid_index, sel.gid_index, subj, why, cd, good, gd);
					else
						f = rd_finding_add(ctx, RD_FAIL, subj,
								   "%s = %d selects GID %d of %s, which is %s (%s), and the port has no "
								   "RoCE v%d %s GID at all",
								   sel.gid_index_from, sel.gid_index, sel.gid_index, subj, why, cd,
								   sel.roce_version, fam_name(sel.family));
					gid_evidence(f, p);
					const char *file = NULL, *raw = sel.gid_index_from[0] == 'N' ?
						rd_nccl_param(ctx->sys, "NCCL_IB_GID_INDEX", &file) : NULL;
					if (raw && file && file[0] == '/') { /* set in one of NCCL's conf files */
						rd_evidence_add(f, file, "NCCL_IB_GID_INDEX=%s", raw);
						if (strspn(file, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_./-") ==
						    strlen(file))
							rd_fix_add(f, "sed -i '/^NCCL_IB_GID_INDEX=/d' %s    # NCCL then chooses index %d "
								      "here itself", file, chosen);
					} else if (sel.gid_index_from[0] == 'N') {
						rd_fix_add(f, "unset NCCL_IB_GID_INDEX    # in the job's environment: NCCL then chooses "
							      "index %d here itself", chosen);
						if (good >= 0)
							rd_fix_add(f, "# or: export NCCL_IB_GID_INDEX=%d (indexes move when addresses or "
								      "VLANs change, and can differ between ports)", good);
					} else {
						if (good >= 0)
							rd_fix_add(f, "sed -i 's/^gid_index *=.*/gid_index = %d/' %s    # or remove the "
								      "line: NCCL then chooses index %d here itself",
								   good, pol->origin, chosen);
						else
							rd_fix_add(f, "# %s, [nccl]: remove gid_index (NCCL then chooses index %d here)",
								   pol->origin, chosen);
					}
					if (good < 0)
						rd_fix_add(f, "ip addr add \"$ADDR\" dev %s    # ADDR: this node's address/prefix on the "
							      "RoCE fabric; the kernel adds its RoCE v1 and v2 GIDs", ifname);
					continue;
				}
			} else if (good != chosen || good < 0) {
				bool any = false;
				for (size_t g = 0; g < p->ngids; g++)
					any |= !rd_gid_is_zero(p->gids[g].gid);
				describe(p, chosen, cd, sizeof cd);
				rd_nccl_gid_usable(p, (unsigned)chosen, &sel, why, sizeof why);
				struct rd_finding *f;
				if (!any)
					f = rd_finding_add(ctx, RD_FAIL, subj,
							   "%s has no GID: NCCL's automatic choice takes index 0, an empty GID, and "
							   "QP setup fails",
							   subj);
				else if (good >= 0 && sel.legacy)
					f = rd_finding_add(ctx, RD_WARN, subj,
							   "%s takes GID %d on %s unless NCCL_IB_GID_INDEX is set (NCCL chooses a GID "
							   "itself only from 2.21.5): GID %d is %s (%s), though index %d is usable (%s)",
							   sel.version_text, chosen, subj, chosen, why, cd, good, gd);
				else if (good >= 0)
					f = rd_finding_add(ctx, RD_WARN, subj,
							   "NCCL's automatic choice on %s takes GID %d, which is %s (%s), though index "
							   "%d is usable (%s)",
							   subj, chosen, why, cd, good, gd);
				else
					f = rd_finding_add(ctx, RD_WARN, subj,
							   "%s has no RoCE v%d GID with an %s address on %s: NCCL's automatic choice "
							   "takes GID %d (%s), which reaches only peers on the same L2 segment",
							   subj, sel.roce_version, fam_name(sel.family), ifname, chosen, cd);
				gid_evidence(f, p);
				if (good >= 0 && any) {
					rd_fix_add(f, "export NCCL_IB_GID_INDEX=%d    # in the job's environment", good);
				} else {
					rd_fix_add(f, "ip addr add \"$ADDR\" dev %s    # ADDR: this node's address/prefix on the "
						      "RoCE fabric; the kernel adds its RoCE v1 and v2 GIDs", ifname);
					rd_fix_add(f, "# make the address persistent (netplan, NetworkManager or ifupdown); "
						      "rdma-doctor gids shows the GID table");
				}
				continue;
			}
			size_t n = strlen(oks);
			if (nports <= 4)
				snprintf(oks + n, sizeof oks - n, "%s%s GID %d (%s)", n ? "; " : "", subj, good, gd);
		}
	}
	if (!rd_check_quiet(ctx))
		return;
	if (!nports) {
		rd_finding_add(ctx, RD_SKIP, "host", "no active RoCE port");
		return;
	}
	char how[400];
	if (sel.gid_index >= 0)
		snprintf(how, sizeof how, "%s = %d%s%s", sel.gid_index_from, sel.gid_index, sel.version_text[0] ? ", for " : "",
			 sel.version_text);
	else if (sel.legacy) /* GID 0 usable: a port whose first GID is routable */
		snprintf(how, sizeof how, "%s takes GID 0 (NCCL_IB_GID_INDEX's default before 2.21.5)", sel.version_text);
	else
		snprintf(how, sizeof how, "NCCL's automatic choice (RoCE v%d, %s%s%s; NCCL %s%s%s)", sel.roce_version,
			 fam_name(sel.family), sel.range_set ? ", " : "", sel.range_set ? sel.range_text : "",
			 sel.version ? sel.version_short : "2.21.5 or later assumed", sel.version ? ", from " : "",
			 sel.version ? sel.version_from : "");
	rd_finding_add(ctx, RD_OK, "host", "%s: %s%s", how, oks, nports > 4 ? "; ..." : "");
}
