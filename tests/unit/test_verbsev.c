/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* `watch`'s verbs async events without a device: the event names and what each re-runs, which
 * drivers may be opened (an open context of another holds `rdma link delete` and rmmod), the
 * resync's plan of what to close and open, and a resync through the real libibverbs of this host
 * (which lists no device here). */
#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <string.h>

#include "harness.h"
#include "source/verbsev.h"

RD_TEST(verbsev_event_names_and_scopes)
{
	static const struct {
		int type;
		const char *name;
		enum rd_verbsev_scope scope;
	} t[] = {
		{IBV_EVENT_PORT_ACTIVE, "PORT_ACTIVE", RD_VERBSEV_PORT},
		{IBV_EVENT_PORT_ERR, "PORT_ERR", RD_VERBSEV_PORT},
		{IBV_EVENT_LID_CHANGE, "LID_CHANGE", RD_VERBSEV_PORT},
		{IBV_EVENT_PKEY_CHANGE, "PKEY_CHANGE", RD_VERBSEV_PORT},
		{IBV_EVENT_SM_CHANGE, "SM_CHANGE", RD_VERBSEV_PORT},
		{IBV_EVENT_CLIENT_REREGISTER, "CLIENT_REREGISTER", RD_VERBSEV_PORT},
		{IBV_EVENT_GID_CHANGE, "GID_CHANGE", RD_VERBSEV_PORT},
		{IBV_EVENT_DEVICE_FATAL, "DEVICE_FATAL", RD_VERBSEV_DEVICE},
		{IBV_EVENT_QP_FATAL, "QP_FATAL", RD_VERBSEV_NONE},
		{IBV_EVENT_CQ_ERR, "CQ_ERR", RD_VERBSEV_NONE},
		{IBV_EVENT_SRQ_LIMIT_REACHED, "SRQ_LIMIT_REACHED", RD_VERBSEV_NONE},
		{IBV_EVENT_WQ_FATAL, "WQ_FATAL", RD_VERBSEV_NONE},
		{-1, "UNKNOWN", RD_VERBSEV_NONE},
		{4096, "UNKNOWN", RD_VERBSEV_NONE},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
		CHECK_STR(rd_verbsev_event_name(t[i].type), t[i].name);
		CHECK_INT(rd_verbsev_event_scope(t[i].type), t[i].scope);
	}
}

RD_TEST(verbsev_driver_rule)
{
	const char *why = NULL;
	CHECK(rd_verbsev_driver_releases("mlx5_core", &why));
	CHECK(rd_verbsev_driver_releases("mlx4_core", NULL));
	/* rxe and siw have no PCI function: the model's driver is NULL */
	CHECK(!rd_verbsev_driver_releases(NULL, &why));
	CHECK(why && strstr(why, "no PCI function"));
	why = NULL;
	CHECK(!rd_verbsev_driver_releases("", &why));
	CHECK(why && strstr(why, "no PCI function"));
	static const char *const not[] = {"bnxt_en", "hns3", "irdma", "ice", "efa", "qede", "mlx5_core.sf", "mlx5", "MLX5_CORE", "mlx5_core "};
	for (size_t i = 0; i < sizeof not / sizeof not[0]; i++) {
		why = NULL;
		CHECK(!rd_verbsev_driver_releases(not[i], &why));
		CHECK(why && strstr(why, "not known to release"));
	}
}

static void plan(const char *const open[], size_t nopen, const char *const want[], size_t nwant, const char *closes,
		 const char *opens)
{
	bool c[RD_VERBSEV_MAX + 8], o[RD_VERBSEV_MAX + 8];
	rd_verbsev_plan(open, nopen, want, nwant, c, o);
	for (size_t i = 0; i < nopen; i++)
		CHECK_INT(c[i], closes[i] == '1');
	for (size_t j = 0; j < nwant; j++)
		CHECK_INT(o[j], opens[j] == '1');
}

/* The resync after a device event: added devices opened, removed ones closed, a renamed one both */
RD_TEST(verbsev_resync_plan)
{
	const char *open1[] = {"mlx5_0", "mlx5_1"};
	const char *same[] = {"mlx5_1", "mlx5_0"};
	plan(open1, 2, same, 2, "00", "00");
	const char *added[] = {"mlx5_0", "mlx5_1", "mlx5_2"};
	plan(open1, 2, added, 3, "00", "001");
	const char *removed[] = {"mlx5_1"};
	plan(open1, 2, removed, 1, "10", "0");
	const char *renamed[] = {"mlx5_0", "ibp12s0"};
	plan(open1, 2, renamed, 2, "01", "01");
	plan(open1, 2, NULL, 0, "11", "");
	plan(NULL, 0, added, 3, "", "111");
	/* duplicates, empty names, NULLs and names too long for a device are not opened */
	const char *odd[] = {"mlx5_3", "mlx5_3", "", NULL, "x123456789x123456789x123456789x123456789x123456789x123456789x123"};
	plan(NULL, 0, odd, 5, "", "10000");
	/* never more than RD_VERBSEV_MAX open at once */
	static char names[RD_VERBSEV_MAX + 5][24];
	const char *many[RD_VERBSEV_MAX + 5];
	char opens[RD_VERBSEV_MAX + 6];
	for (int i = 0; i < RD_VERBSEV_MAX + 5; i++) {
		snprintf(names[i], sizeof names[i], "mlx5_%d", i);
		many[i] = names[i];
		opens[i] = i < RD_VERBSEV_MAX ? '1' : '0';
	}
	opens[RD_VERBSEV_MAX + 5] = '\0';
	plan(NULL, 0, many, RD_VERBSEV_MAX + 5, "", opens);
	/* with two open and kept, two fewer new ones fit */
	for (int i = 0; i < RD_VERBSEV_MAX + 5; i++)
		opens[i] = i >= 2 && i < RD_VERBSEV_MAX ? '1' : '0';
	const char *kept[] = {"mlx5_0", "mlx5_1"};
	plan(kept, 2, many, RD_VERBSEV_MAX + 5, "00", opens);
}

/* A resync that wants nothing loads nothing; one that wants a device this host lacks says it is
 * not listed (libibverbs loaded) or that libibverbs cannot be loaded (its reason kept) */
RD_TEST(verbsev_sync_without_devices)
{
	struct rd_verbsev v;
	rd_verbsev_init(&v);
	CHECK_INT(rd_verbsev_fd(&v), -1);
	CHECK_INT(rd_verbsev_sync(&v, NULL, 0, NULL), 0);
	CHECK(!v.tried);
	CHECK_INT(rd_verbsev_fd(&v), -1);
	const char *want[] = {"rd_no_such_device0", "rd_no_such_device0"};
	int res[2] = {1, 1};
	CHECK_INT(rd_verbsev_sync(&v, want, 2, res), 0);
	CHECK(v.tried);
	CHECK_INT(res[0], v.loaded ? -ENOENT : -ENOSYS);
	CHECK_INT(res[1], -EMFILE); /* the duplicate: not opened twice */
	CHECK(v.loaded || v.load_err[0]);
	CHECK(rd_verbsev_fd(&v) >= 0);
	CHECK_INT(rd_verbsev_read(&v, NULL, NULL), 0);
	rd_verbsev_close(&v);
	CHECK_INT(rd_verbsev_fd(&v), -1);
}
