/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Parsers of configuration files and tool outputs, and the policy file. */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "model/host.h"
#include "model/parse.h"
#include "model/policy.h"

RD_TEST(modules_load_d)
{
	struct rd_strv m = {0};
	const char *t = "# RDMA\nmlx5_core\n  mlx5-ib  \n; old comment\n\nib_core\r\nbad name\nx/y\n";
	CHECK_INT(rd_parse_modules_load(t, strlen(t), &m, NULL, NULL), 2);
	CHECK_INT(m.n, 3);
	CHECK_STR(m.v[0], "mlx5_core");
	CHECK_STR(m.v[1], "mlx5_ib"); /* '-' and '_' are the same module */
	CHECK_STR(m.v[2], "ib_core");
	rd_strv_free(&m);
	CHECK_INT(rd_parse_modules_load("", 0, &m, NULL, NULL), 0);
	CHECK_INT(m.n, 0);
	CHECK_INT(rd_parse_modules_load("nvidia_peermem", 14, &m, NULL, NULL), 0); /* no trailing newline */
	CHECK_INT(m.n, 1);
	rd_strv_free(&m);
}

/* systemd-modules-load strips a line and takes all of it as one module name: a trailing comment
 * makes the line name no module.  Lines end at NUL bytes too (systemd's read_line). */
RD_TEST(modules_load_d_as_systemd_reads_it)
{
	struct rd_strv m = {0};
	struct rd_modload_bad *bad = NULL;
	size_t nbad = 0;
	const char *t = "mlx5_core\nib_ipoib   # storage\n  # ib_umad\n;x\nrdma_ucm ; cm\n\tib_core\t\n";
	CHECK_INT(rd_parse_modules_load(t, strlen(t), &m, &bad, &nbad), 2);
	CHECK_INT(nbad, 2);
	CHECK_INT(m.n, 2);
	CHECK_STR(m.v[0], "mlx5_core");
	CHECK_STR(m.v[1], "ib_core");
	CHECK_INT(bad[0].line, 2);
	CHECK_STR(bad[0].text, "ib_ipoib   # storage");
	CHECK_INT(bad[1].line, 5);
	CHECK_STR(bad[1].text, "rdma_ucm ; cm");
	rd_modload_bad_free(bad, nbad);
	rd_strv_free(&m);
	/* NUL bytes end lines; the text is read by length, not up to the first NUL */
	static const char nul[] = "ib_core\0ib_uverbs\nx\x01y\n";
	CHECK_INT(rd_parse_modules_load(nul, sizeof nul - 1, &m, &bad, &nbad), 1);
	CHECK_INT(m.n, 2);
	CHECK_STR(m.v[1], "ib_uverbs");
	CHECK_INT(bad[0].line, 2);
	CHECK_STR(bad[0].text, "x\\x01y");
	rd_modload_bad_free(bad, nbad);
	rd_strv_free(&m);
}

RD_TEST(openib_conf)
{
	struct rd_strv m = {0};
	CHECK_INT(rd_parse_openib_conf("# comment\nONBOOT=yes\nUMAD_LOAD=yes\nSRP_LOAD=no\nIPOIB_LOAD=\"yes\"\n"
				       "MLX5_LOAD=yes\nFOO_BAR_LOAD=yes\nRDMA_UCM_LOAD = yes\n",
				       &m),
		  0);
	CHECK(rd_strv_contains(&m, "ib_umad"));
	CHECK(rd_strv_contains(&m, "ib_ipoib"));
	CHECK(rd_strv_contains(&m, "mlx5_core") && rd_strv_contains(&m, "mlx5_ib"));
	CHECK(rd_strv_contains(&m, "foo_bar"));
	CHECK(!rd_strv_contains(&m, "ib_srp"));
	rd_strv_free(&m);
}

RD_TEST(ofed_info_forms)
{
	struct rd_ofed_info o;
	CHECK_INT(rd_parse_ofed_info("MLNX_OFED_LINUX-24.10-1.1.4.0:\n", &o), 0);
	CHECK_STR(o.flavor, "MLNX_OFED");
	CHECK_STR(o.version, "24.10-1.1.4.0");
	CHECK_INT(rd_parse_ofed_info("MLNX_OFED_LINUX-23.07-0.5.1.2:", &o), 0);
	CHECK_STR(o.version, "23.07-0.5.1.2");
	CHECK_INT(rd_parse_ofed_info("OFED-internal-25.10-1.7.1:\n", &o), 0);
	CHECK_STR(o.flavor, "OFED-internal");
	CHECK_STR(o.version, "25.10-1.7.1");
	CHECK_INT(rd_parse_ofed_info("OFED-internal-25.10-1.7.1.413", &o), 0); /* no colon */
	CHECK_STR(o.version, "25.10-1.7.1.413");
	CHECK_INT(rd_parse_ofed_info("bash: ofed_info: command not found", &o), -RD_EPARSE);
	CHECK_INT(rd_parse_ofed_info("", &o), -RD_EPARSE);
	CHECK_INT(rd_parse_ofed_info("MLNX_OFED_LINUX-:", &o), -RD_EPARSE);
	CHECK_INT(rd_parse_ofed_info("MLNX_OFED_LINUX-24;rm -rf:", &o), -RD_EPARSE);
}

RD_TEST(dpkg_status)
{
	static const char st[] = "Package: rdma-core\nStatus: install ok installed\nVersion: 44.0-2\n\n"
				 "Package: mlnx-ofed-kernel-dkms\nStatus: deinstall ok config-files\nVersion: 23.10\n\n"
				 "Package: mlnx-ofed-kernel-utils\nStatus: install ok installed\nArchitecture: amd64\n"
				 "Version: 24.10.OFED.24.10.4.1.4.1\nDescription: x\n";
	char v[64];
	CHECK_INT(rd_dpkg_package(st, "rdma-core", v, sizeof v), 1);
	CHECK_STR(v, "44.0-2");
	CHECK_INT(rd_dpkg_package(st, "mlnx-ofed-kernel-dkms", v, sizeof v), 0);
	CHECK_INT(rd_dpkg_package(st, "mlnx-ofed-kernel-utils", v, sizeof v), 1);
	CHECK_STR(v, "24.10.OFED.24.10.4.1.4.1");
	CHECK_INT(rd_dpkg_package(st, "rdma", v, sizeof v), 0); /* a prefix is not a match */
	CHECK_INT(rd_dpkg_package("", "rdma-core", v, sizeof v), 0);
	/* a stanza is named by its first Package: line; a second one (no blank line between two
	 * stanzas, found by fuzz_config) does not make it that package too, in either lookup */
	static const char two[] = "Package: rdma-core\nStatus: install ok installed\nVersion: 44.0-2\n"
				  "Package: mlnx-ofed-kernel-dkms\nStatus: install ok installed\n";
	CHECK_INT(rd_dpkg_package(two, "rdma-core", v, sizeof v), 1);
	CHECK_INT(rd_dpkg_package(two, "mlnx-ofed-kernel-dkms", v, sizeof v), 0);
	static const char *const dkms[] = {"mlnx-ofed-kernel-dkms"};
	int found;
	char ver[32];
	rd_dpkg_packages(two, dkms, 1, &found, ver, sizeof ver);
	CHECK_INT(found, 0);
}

/* roce.mtu and the fleet's active MTU; roce.qos and the fleet's PFC words (one helper each) */
RD_TEST(roce_words)
{
	CHECK_INT(rd_roce_active_mtu(9000), 4096);
	CHECK_INT(rd_roce_active_mtu(1500), 1024);
	CHECK_INT(rd_roce_active_mtu(4191), 2048);
	CHECK_INT(rd_roce_active_mtu(4192), 4096);
	CHECK_INT(rd_roce_active_mtu(90), 0);
	char w[32];
	rd_prio_words(0x08, w, sizeof w);
	CHECK_STR(w, "3");
	rd_prio_words(0x18, w, sizeof w);
	CHECK_STR(w, "3,4");
	rd_prio_words(0, w, sizeof w);
	CHECK_STR(w, "none");
	rd_prio_words(0xff, w, 4); /* cut, never overrun */
	CHECK_STR(w, "0,1");
}

/* The one pass over the file answers as one rd_dpkg_package per name (the first stanza decides). */
RD_TEST(dpkg_status_one_pass)
{
	static const char st[] = "Package: rdma-core\nStatus: install ok installed\nVersion: 44.0-2\n\n"
				 "Package: mlnx-ofed-kernel-dkms\nStatus: deinstall ok config-files\nVersion: 23.10\n\n"
				 "Package: rdma-core\nStatus: install ok installed\nVersion: 99\n\n"
				 "Package: mft\nVersion: 4.30\nStatus: install ok installed\n";
	static const char *const names[] = {"rdma-core", "mlnx-ofed-kernel-dkms", "rdma", "mft", "absent"};
	int found[5];
	char vers[5][32];
	CHECK_INT(rd_dpkg_packages(st, names, 5, found, vers[0], sizeof vers[0]), 0);
	for (size_t i = 0; i < 5; i++) {
		char v[32];
		CHECK_INT(found[i], rd_dpkg_package(st, names[i], v, sizeof v));
		CHECK_STR(vers[i], v);
	}
	CHECK_STR(vers[0], "44.0-2");
	CHECK_STR(vers[3], "4.30");
	CHECK_INT(rd_dpkg_packages(NULL, names, 5, found, vers[0], sizeof vers[0]), -RD_EPARSE);
	CHECK_INT(found[0], 0);
}

RD_TEST(sizes_and_limits)
{
	uint64_t v, soft = 0, hard = 0;
	CHECK_INT(rd_parse_systemd_size("infinity", &v), 0);
	CHECK(v == UINT64_MAX);
	CHECK_INT(rd_parse_systemd_size("64K", &v), 0);
	CHECK_INT(v, 65536);
	CHECK_INT(rd_parse_systemd_size("8M\n", &v), 0);
	CHECK_INT(v, 8 << 20);
	CHECK_INT(rd_parse_systemd_size("65536", &v), 0);
	CHECK_INT(rd_parse_systemd_size("lots", &v), -RD_EPARSE);
	CHECK_INT(rd_parse_systemd_size("99999999999999999999K", &v), -RD_EPARSE);
	char buf[32];
	CHECK(rd_systemd_value("[Service]\nLimitMEMLOCK=64K\n# later\nLimitMEMLOCK=infinity\n", "LimitMEMLOCK", buf, sizeof buf));
	CHECK_STR(buf, "infinity");
	CHECK(!rd_systemd_value("[Service]\nExecStart=/x\n", "LimitMEMLOCK", buf, sizeof buf));
	CHECK_INT(rd_limits_conf_memlock("# x\n*  soft  memlock  65536\n*  hard  memlock  unlimited\n@rdma - nofile 1\n",
					 NULL, &soft, &hard),
		  1);
	CHECK(soft == 65536ULL * 1024 && hard == UINT64_MAX);
	CHECK_INT(rd_limits_conf_memlock("alice soft memlock 1\n", NULL, &soft, &hard), 0);
	uint64_t cap;
	CHECK_INT(rd_parse_capeff("Name:\tbash\nCapEff:\t000001ffffffffff\n", &cap), 0);
	CHECK((cap >> 14) & 1);
	CHECK_INT(rd_parse_capeff("Name:\tbash\n", &cap), -RD_EPARSE);
}

RD_TEST(policy_file)
{
	struct rd_policy p;
	char err[256] = "";
	rd_policy_defaults(&p);
	CHECK_INT(p.modules.n, 9);
	CHECK(p.memlock_min == UINT64_MAX);
	CHECK_INT(rd_policy_parse("[modules]\nrequired = mlx5_core mlx5_ib ib_core ib_uverbs\n[ports]\nmin_rate_ib = 400\n"
				  "min_rate_ethernet=200\nignore = mlx5_4, mlx5_5/1\n[roce]\nnetdev_mtu = 9000\n"
				  "[firmware]\nMT_0000000838 = 28.41.1000\n[memlock]\nmin = 64K\nservices = slurmd kubelet\n",
				  "test.conf", &p, err, sizeof err),
		  0);
	CHECK_INT(p.modules.n, 4);
	CHECK(p.min_rate_ib == 400 && p.min_rate_eth == 200);
	CHECK(rd_policy_ignores(&p, "mlx5_4", 1) && rd_policy_ignores(&p, "mlx5_5", 1) && !rd_policy_ignores(&p, "mlx5_5", 2));
	CHECK_INT(p.roce_netdev_mtu, 9000);
	CHECK_INT(p.npins, 1);
	CHECK_STR(p.pins[0].fw_ver, "28.41.1000");
	CHECK_INT(p.memlock_min, 65536);
	CHECK_INT(p.services.n, 2);
	rd_policy_free(&p);

	/* inline '#' and ';' comments after a blank, as in the README's sample */
	rd_policy_defaults(&p);
	CHECK_INT(rd_policy_parse("[ports]\nexpect_active = 9  # rails\nignore = mlx5_4 mlx5_5/1\t; spare\n"
				  "min_rate_ib = 400;not a comment\n", "c.conf", &p, err, sizeof err),
		  -1);
	CHECK_STR(err, "c.conf:4: min_rate_ib: '400;not a comment' is not a rate in Gb/s");
	rd_policy_free(&p);
	rd_policy_defaults(&p);
	CHECK_INT(rd_policy_parse("[ports]\nexpect_active = 9  # rails\n\nignore = mlx5_4 mlx5_5/1\t; spare\n", "c.conf", &p,
				  err, sizeof err),
		  0);
	CHECK_INT(p.expect_active_ports, 9);
	CHECK_INT(p.ignore.n, 2);
	CHECK_INT(p.ignore_line, 4);
	CHECK_STR(p.ignore.v[1], "mlx5_5/1");
	rd_policy_free(&p);

	static const struct {
		const char *text, *msg;
	} bad[] = {
		{"[ports]\nmin_rate_ib = fast\n", "test.conf:2: min_rate_ib: 'fast' is not a rate in Gb/s"},
		{"\n\n[roce]\nmin_active_mtu = 3000\n", "test.conf:4: min_active_mtu: '3000' is not an IB MTU (256, 512, 1024, 2048 or 4096)"},
		{"[nosuch]\nx = 1\n", "test.conf:2: unknown section [nosuch] (the sections are [modules], [ports], [roce], "
					"[firmware], [memlock], [nccl], [mlxconfig], [counters], [pcie], [watch])"},
		/* a misspelt section is named as such, not as an unknown setting of it */
		{"[port]\nexpect_active = 8\n", "test.conf:2: unknown section [port] (the sections are [modules], [ports], "
						 "[roce], [firmware], [memlock], [nccl], [mlxconfig], [counters], [pcie], [watch])"},
		{"[ports]\nexpect_activ = 8\n", "test.conf:2: unknown setting 'expect_activ' in section [ports]"},
		{"this is not ini\n", "test.conf:1: syntax error (expected [section] or key = value)"},
		{"x = 1\n", "test.conf:1: setting 'x' is outside any [section]"},
		{"[modules]\nrequired =   # none\n", "test.conf:2: required: an empty list (remove the line to require the default 9 modules)"},
		{"[ports]\nexpect_active = 9#no blank before the comment\n", "test.conf:2: expect_active: '9#no blank before the comment' is not a number of ports"},
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		rd_policy_defaults(&p);
		CHECK_INT(rd_policy_parse(bad[i].text, "test.conf", &p, err, sizeof err), -1);
		CHECK_STR(err, bad[i].msg);
		CHECK_INT(p.modules.n, 9); /* back to the defaults */
		rd_policy_free(&p);
	}
}

/* The default module set: the nine, then the module that registers each other device, from its
 * PCI function's driver or its kernel name; soft devices (rxe, siw) add nothing; a policy's own
 * list is kept as it is. */
RD_TEST(policy_driver_modules)
{
	struct rd_device d[] = {
		{.name = "mlx5_0", .pci_addr = "0000:1b:00.0", .driver = "mlx5_core", .node_type_v = 1},
		{.name = "mlx4_0", .pci_addr = "0000:03:00.0", .driver = "mlx4_core", .node_type_v = 1},
		{.name = "rocep1s0", .pci_addr = "0000:01:00.0", .driver = "ice", .node_type_v = 1}, /* renamed irdma */
		{.name = "bnxt_re0", .node_type_v = 1},                                              /* no PCI link read */
		{.name = "cxgb4_0", .node_type_v = 4},
		{.name = "rxe0", .parent = "eth0", .node_type_v = 1},
		{.name = "siw0", .parent = "eth1", .node_type_v = 4},
		{.name = "mlx4_1", .pci_addr = "0000:04:00.0", .driver = "mlx4_core", .node_type_v = 1},
	};
	struct rd_host h = {.devices = d, .ndevices = sizeof d / sizeof d[0]};
	struct rd_policy p;
	rd_policy_defaults(&p);
	rd_policy_add_driver_modules(&p, &h);
	CHECK_INT(p.modules.n, 13);
	CHECK_STR(p.modules.v[8], "ib_ipoib");
	CHECK_STR(p.modules.v[9], "mlx4_ib");
	CHECK_STR(p.modules.v[10], "irdma");
	CHECK_STR(p.modules.v[11], "bnxt_re");
	CHECK_STR(p.modules.v[12], "iw_cxgb4");
	CHECK(rd_host_device_driver(&h, "mlx4_ib"));
	CHECK(rd_host_device_driver(&h, "rdma_rxe")); /* its device is there: loaded */
	CHECK(!rd_host_device_driver(&h, "efa"));
	rd_policy_free(&p);
	char err[256];
	rd_policy_defaults(&p);
	CHECK_INT(rd_policy_parse("[modules]\nrequired = ib_core ib_uverbs\n", "m.conf", &p, err, sizeof err), 0);
	rd_policy_add_driver_modules(&p, &h);
	CHECK_INT(p.modules.n, 2);
	rd_policy_free(&p);
}
