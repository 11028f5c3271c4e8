/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* mlxconfig.policy: each [mlxconfig] NAME = VALUE of the policy against the Next Boot column of
 * `mlxconfig -d <pci> query` (what the adapter runs with after the next reset), and a Current
 * value that still differs (set, but not applied until mlxfwreset or a reboot).  An array parameter
 * ("Array[0..7]": the query shows no element) is not judged: the SKIP says how to query and set it
 * with mlxconfig's NAME[lo..hi] syntax. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "checks/catalogue.h"
#include "model/mft.h"

/* Whether the policy sets NAME for this device by its name or its board_id (SCOPE/NAME). */
static bool scoped_pin(const struct rd_policy *pol, const char *dev, const struct rd_attr *board, const char *name)
{
	for (size_t k = 0; k < pol->nmlxconfig; k++) {
		const char *n = pol->mlxconfig[k].name, *slash = strchr(n, '/');
		if (!slash || strcmp(slash + 1, name) != 0)
			continue;
		size_t l = (size_t)(slash - n);
		if ((strlen(dev) == l && !strncmp(dev, n, l)) ||
		    (board && rd_attr_ok(board) && strlen(board->value) == l && !strncmp(board->value, n, l)))
			return true;
	}
	return false;
}

static void judge_dev(struct rd_check_ctx *ctx, const struct rd_mft_dev *md, size_t *matched, size_t *unjudged)
{
	const struct rd_policy *pol = ctx->policy;
	const struct rd_mlxconfig_info *c = &md->config;
	struct rd_buf set = {0}, names = {0}, absent = {0}, arrays = {0};
	struct rd_finding *f = NULL, *pending = NULL;
	size_t wrong = 0;
	const struct rd_device *d = rd_host_device(ctx->host, md->name);
	const struct rd_attr *board = d ? rd_mft_board_id(&ctx->sys->mft, d) : NULL;
	for (size_t k = 0; k < pol->nmlxconfig; k++) {
		const struct rd_mlxconfig_pin *pin = &pol->mlxconfig[k];
		/* SCOPE/NAME: only for the RDMA device or the board_id (PSID) SCOPE */
		const char *name = pin->name, *slash = strchr(name, '/');
		if (slash) {
			size_t n = (size_t)(slash - name);
			bool dev_match = strlen(md->name) == n && !strncmp(md->name, name, n);
			bool board_match = board && rd_attr_ok(board) && strlen(board->value) == n &&
					   !strncmp(board->value, name, n);
			if (!dev_match && !board_match)
				continue;
			name = slash + 1;
		} else if (scoped_pin(pol, md->name, board, name)) {
			continue; /* the device's or its board's own value wins over the unscoped one */
		}
		const struct rd_mlxconfig_param *pr = rd_mlxconfig_find(c, name);
		if (!pr) {
			rd_buf_printf(&absent, "%s%s", absent.len ? ", " : "", name);
			continue;
		}
		unsigned lo, hi;
		char end;
		if (pr->next && sscanf(pr->next, "Array[%u..%u%c", &lo, &hi, &end) == 3 && end == ']') {
			/* an array parameter: the query shows its range, not its elements, so nothing says
			 * whether the policy's value is set; mlxconfig takes NAME[lo..hi]=VALUE, not NAME=VALUE */
			char v[64];
			rd_buf_printf(&arrays, "%s%s is an array (%s): mlxconfig -d %s query %s[%u..%u] shows its elements; "
					       "mlxconfig -d %s set %s[%u..%u]=%s sets them all",
				      arrays.len ? "; " : "", pr->name, pr->next, md->pci, pr->name, lo, hi, md->pci, pr->name, lo,
				      hi, rd_mlxconfig_set_value(pin->value, v, sizeof v));
			(*unjudged)++;
			continue;
		}
		(*matched)++;
		if (!rd_mlxconfig_value_matches(pr->next, pin->value)) {
			if (!f)
				f = rd_finding_add(ctx, RD_WARN, md->name, "placeholder");
			char v[64];
			rd_buf_printf(&set, " %s=%s", pr->name, rd_mlxconfig_set_value(pin->value, v, sizeof v));
			rd_buf_printf(&names, "%s%s is %s at next boot (the policy: %s)", wrong++ ? ", " : "", pr->name, pr->next,
				      pin->value);
			rd_evidence_add(f, md->mlxconfig_out.cmd, "%s: Next Boot %s%s%s", pr->name, pr->next,
					pr->current ? ", Current " : "", pr->current ? pr->current : "");
		} else if (pr->current && !rd_mlxconfig_value_matches(pr->current, pin->value)) {
			if (!pending)
				pending = rd_finding_add(
					ctx, RD_WARN, md->name,
					"%s: the policy's mlxconfig settings are set for the next boot but not applied yet "
					"(Current differs): they take effect after mlxfwreset or a reboot",
					md->name);
			rd_evidence_add(pending, md->mlxconfig_out.cmd, "%s: Current %s, Next Boot %s", pr->name, pr->current,
					pr->next);
		}
	}
	if (f) {
		free(f->message);
		f->message = rd_xasprintf("%s: %s", md->name, names.data);
		rd_fix_add(f, "mlxconfig -d %s set%s", md->pci, set.data);
		rd_fix_add(f, "mlxfwreset -d %s -l 3 reset    # or reboot: Next Boot values take effect then", md->pci);
	}
	if (pending && !f)
		rd_fix_add(pending, "mlxfwreset -d %s -l 3 reset    # or reboot", md->pci);
	if (absent.len) {
		/* not every adapter has every parameter (a fleet's policy names them all): not an error */
		rd_finding_add(ctx, RD_SKIP, md->name, "%s: mlxconfig query lists no %s (not a parameter of this %s)", md->name,
			       absent.data, c->device_type ? c->device_type : "adapter");
	}
	if (arrays.len)
		rd_finding_add(ctx, RD_SKIP, md->name, "%s: not judged: %s", md->name, arrays.data);
	rd_buf_free(&set);
	rd_buf_free(&names);
	rd_buf_free(&absent);
	rd_buf_free(&arrays);
}

void rd_check_mlxconfig_policy(struct rd_check_ctx *ctx)
{
	const struct rd_mft *m = &ctx->sys->mft;
	if (!ctx->policy->nmlxconfig) {
		rd_finding_add(ctx, RD_SKIP, "host", "no [mlxconfig] settings in the policy (NAME = VALUE)");
		return;
	}
	size_t matched = 0, judged = 0, missing = 0, unjudged = 0;
	char why[320] = "";
	for (size_t i = 0; i < m->ndevs; i++) {
		const struct rd_mft_dev *md = &m->devs[i];
		if (!rd_tool_usable(ctx, &md->mlxconfig_out, md->name, "mlxconfig settings", &missing, why, sizeof why))
			continue;
		judged++;
		judge_dev(ctx, md, &matched, &unjudged);
	}
	bool problems = false;
	for (size_t i = ctx->first; i < ctx->report->n; i++)
		problems |= ctx->report->findings[i].status != RD_SKIP;
	if (problems)
		return;
	if (judged && matched)
		rd_finding_add(ctx, RD_OK, "host",
			       "%zu HCA%s: every [mlxconfig] setting of the policy that applies is set for the next boot%s",
			       judged, judged == 1 ? "" : "s", unjudged ? " (the array parameters aside: the query does not show their elements)" : "");
	else if (!judged && missing)
		rd_finding_add(ctx, RD_SKIP, "host", "%s", why);
	else if (!judged)
		rd_finding_add(ctx, RD_SKIP, "host", "no Mellanox/NVIDIA PCI function to ask mlxconfig about");
}
