/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Fuzz target: the captured outputs of mlxlink (with -m's Module Info and its DDM lines), mlxconfig, flint, mlnx_qos, dcb and ethtool -S, the sysfs
 * qos/trust, qos/pfc and qos/dscp2prio files and tc/N/traffic_class (model/mft.h), each after
 * rd_strip_ansi as the loader does. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/mft.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1);
	memcpy(s, data, size);
	s[size] = '\0';
	size_t len = size;
	rd_strip_ansi(s, &len);
	if (memchr(s, 0x1b, len))
		abort(); /* an ESC byte survived */
	struct rd_mlxlink_info l;
	rd_parse_mlxlink(s, &l);
	const struct rd_ddm *dd[] = {&l.module.temp, &l.module.voltage, &l.module.bias, &l.module.rx, &l.module.tx};
	for (size_t i = 0; i < sizeof dd / sizeof dd[0]; i++) {
		if (dd[i]->n > RD_DDM_LANES || (dd[i]->n && !dd[i]->text) || (dd[i]->th && !(dd[i]->lo < dd[i]->hi)))
			abort(); /* lanes within bounds, from a printed line; a threshold is a range */
		for (size_t k = 0; k < dd[i]->n; k++)
			if (!(dd[i]->v[k] == dd[i]->v[k]) || dd[i]->v[k] > 1e308 || dd[i]->v[k] < -1e308)
				abort(); /* finite */
	}
	rd_module_passive_copper(&l.module);
	rd_mlxlink_info_free(&l);
	struct rd_ddm d1;
	if (rd_parse_ddm(s, &d1) < 0 && d1.n)
		abort();
	struct rd_mlxconfig_info c;
	if (rd_parse_mlxconfig(s, &c) == 0 && c.nparams) {
		char v[64];
		rd_mlxconfig_value_matches(c.params[0].next, s);
		rd_mlxconfig_set_value(c.params[0].next, v, sizeof v);
	}
	rd_mlxconfig_info_free(&c);
	struct rd_flint_info f;
	rd_parse_flint(s, &f);
	rd_flint_info_free(&f);
	struct rd_qos_info q;
	rd_parse_mlnx_qos(s, &q);
	rd_parse_dcb_pfc(s, &q);
	char trust[8];
	rd_parse_qos_trust(s, trust);
	int pfc[8];
	rd_parse_qos_pfc(s, pfc);
	signed char map[64];
	if (rd_parse_dscp2prio(s, map) == 0)
		for (int i = 0; i < 64; i++)
			if (map[i] < 0 || map[i] > 7)
				abort(); /* a map that passed gives every DSCP a priority */
	int tc = rd_parse_tclass(s);
	if (tc < -2 || tc > 255)
		abort();
	double d;
	rd_parse_ber(s, &d);
	static struct rd_ethtool_stats es;
	if (rd_parse_ethtool_stats(s, &es) == 0) {
		if (es.n > RD_ETHTOOL_MAX_STATS)
			abort();
		for (size_t i = 0; i < es.n; i++)
			if (!rd_ethtool_congestion_stat(es.v[i].name) || rd_ethtool_find(&es, es.v[i].name) != &es.v[i])
				abort(); /* only the congestion counters, each once */
	} else if (es.n) {
		abort();
	}
	free(s);
	return 0;
}
