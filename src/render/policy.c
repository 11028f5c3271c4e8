/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `check --policy-explain` (render/policy.h). */
#include "render/policy.h"

#include "render/out.h"

static const char *const scope_names[] = {"none", "hosts", "board"};

void rd_render_policy_explain(FILE *f, bool json, const struct rd_policy *p)
{
	struct rd_out o;
	rd_out_init(&o, f, json);
	rd_out_obj_begin(&o, NULL);
	rd_out_str(&o, "schema", NULL, "rdma-doctor/policy/v1");
	rd_out_str(&o, "host", p->host[0] ? "# host %s" : NULL, p->host[0] ? p->host : NULL);
	if (!p->host[0])
		rd_out_text(&o, "# host (unknown)");
	rd_out_str(&o, "policy", p->origin[0] ? ", policy %s\n" : NULL, p->origin[0] ? p->origin : NULL);
	if (!p->origin[0])
		rd_out_text(&o, ", no policy file: the defaults\n");
	rd_out_arr_begin(&o, "settings");
	for (size_t i = 0; i < p->nsettings; i++) {
		const struct rd_policy_setting *s = &p->settings[i];
		rd_out_obj_begin(&o, NULL);
		rd_out_str(&o, "section", NULL, s->section);
		rd_out_str(&o, "key", "%s", s->key);
		rd_out_str(&o, "value", " = %s", s->value);
		rd_out_str(&o, "file", "   # %s", p->origin);
		rd_out_int(&o, "line", ":%lld", s->line);
		rd_out_str(&o, "header", " [%s]\n", s->header);
		rd_out_str(&o, "scope", NULL, scope_names[s->scope >= 0 && s->scope <= 2 ? s->scope : 0]);
		if (s->scope == 1)
			rd_out_uint(&o, "hosts", NULL, s->nhosts);
		else
			rd_out_null(&o, "hosts");
		rd_out_obj_end(&o);
	}
	rd_out_arr_end(&o);
	rd_out_obj_end(&o);
	rd_out_finish(&o);
}
