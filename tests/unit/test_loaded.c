/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* A part of the model that a run did not load is marked so (its attributes RD_ENOTLOADED), and the
 * accessors the checks use, rd_attr_ok among them, abort when they would read it (rd_need,
 * model/host.h): each, loaded with what it reads but one part, aborts; with what it reads, or with
 * everything, it returns. */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "model/host.h"
#include "model/link.h"
#include "model/mft.h"
#include "model/policy.h"
#include "model/system.h"

typedef void (*reader_fn)(const struct rd_host *h, const struct rd_system *s);

static void modules(const struct rd_host *h, const struct rd_system *s)
{
	(void)s;
	(void)rd_host_module(h, "ib_core");
}
static void loaded(const struct rd_host *h, const struct rd_system *s)
{
	(void)s;
	(void)rd_module_loaded(h, "ib_core");
}
static void stack(const struct rd_host *h, const struct rd_system *s)
{
	(void)h;
	(void)rd_system_stack(s);
}
static void role(const struct rd_host *h, const struct rd_system *s)
{
	(void)rd_port_role(&s->link, NULL, &h->devices[0], &h->devices[0].ports[0]);
}
static void gid(const struct rd_host *h, const struct rd_system *s)
{
	(void)s;
	(void)rd_port_gid(&h->devices[0].ports[0], 0);
}
static void modload(const struct rd_host *h, const struct rd_system *s)
{
	(void)h;
	(void)rd_modload_find(s, "ib_core");
}
static void boot(const struct rd_host *h, const struct rd_system *s)
{
	(void)h;
	const char *when;
	(void)rd_boot_loader(s, "ib_core", &when);
}
static void mft(const struct rd_host *h, const struct rd_system *s)
{
	(void)h;
	(void)rd_mft_dev(&s->mft, "mlx5_0");
}
static void driver(const struct rd_host *h, const struct rd_system *s)
{
	(void)s;
	(void)rd_host_device_driver(h, "mlx5_core");
}
static void package(const struct rd_host *h, const struct rd_system *s)
{
	(void)h;
	(void)rd_system_package(s, "rdma-core");
}
static void mlx5(const struct rd_host *h, const struct rd_system *s)
{
	(void)rd_host_has_mlx5(h, s);
}
static void port_state(const struct rd_host *h, const struct rd_system *s)
{
	(void)s;
	(void)rd_attr_ok(&h->devices[0].ports[0].state);
}
static void port_sm(const struct rd_host *h, const struct rd_system *s)
{
	(void)s;
	(void)rd_attr_value(&h->devices[0].ports[0].sm_lid);
}
static void fw_ver(const struct rd_host *h, const struct rd_system *s)
{
	(void)s;
	(void)rd_attr_ok(&h->devices[0].fw_ver);
}

/* Loads the example under flags and runs fn in a child: true when the child aborted. */
static bool aborts(const char *example, unsigned flags, reader_fn fn)
{
	pid_t pid = fork();
	CHECK(pid >= 0);
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);
		if (null >= 0)
			dup2(null, 2); /* rd_need's line */
		char path[1024], err[256];
		struct rd_source *src = NULL;
		snprintf(path, sizeof path, "%s/../examples/%s", rd_test_dir(), example);
		if (rd_source_open(path, &src, err, sizeof err) < 0)
			_exit(10);
		static const char *const no_services[] = {NULL};
		struct rd_host h;
		struct rd_system s;
		rd_host_load(src, flags, &h);
		rd_system_load_parts(src, &h, no_services, flags, 0, &s);
		if (!h.ndevices || !h.devices[0].nports)
			_exit(11);
		fn(&h, &s);
		_exit(0);
	}
	int st = 0;
	CHECK(waitpid(pid, &st, 0) == pid);
	CHECK(WIFSIGNALED(st) || (WIFEXITED(st) && WEXITSTATUS(st) == 0));
	return WIFSIGNALED(st) && WTERMSIG(st) == SIGABRT;
}

RD_TEST(accessors_abort_on_a_part_not_loaded)
{
	static const struct {
		const char *name, *example;
		unsigned reads;
		reader_fn fn;
	} cases[] = {
		{"rd_host_module", "h100-ofed", RD_LOAD_MODULES, modules},
		{"rd_module_loaded", "h100-ofed", RD_LOAD_MODULES, loaded},
		{"rd_system_stack", "h100-ofed", RD_LOAD_STACK, stack},
		{"rd_port_role", "h100-ofed", RD_LOAD_ROLE, role},
		{"rd_port_gid", "h100-ofed", RD_LOAD_GIDS, gid},
		{"rd_modload_find", "h100-ofed", RD_LOAD_MODLOAD, modload},
		/* RD_LOAD_BOOT, less the PCI functions: modules-load.d's loader reads them too */
		{"rd_boot_loader", "h100-ofed", RD_LOAD_MODLOAD | RD_LOAD_DEVLINK, boot},
		{"rd_mft_dev", "h100-ofed", RD_LOAD_MFT, mft},
		{"rd_host_device_driver", "h100-ofed", RD_LOAD_DEVLINK, driver},
		{"rd_system_package", "h100-ofed", RD_LOAD_PACKAGES, package},
		/* soft devices only: whether there is mlx5 hardware is the PCI functions' to say */
		{"rd_host_has_mlx5", "rxe-qemu", RD_LOAD_DEVLINK | RD_LOAD_PCI, mlx5},
		{"rd_attr_ok of a port's state", "h100-ofed", RD_LOAD_PORTS, port_state},
		{"rd_attr_value of a port's sm_lid", "h100-ofed", RD_LOAD_SUBNET, port_sm},
		{"rd_attr_ok of a device's fw_ver", "h100-ofed", RD_LOAD_DEVINFO, fw_ver},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		for (unsigned bit = 1; bit; bit <<= 1)
			if (cases[i].reads & bit && !aborts(cases[i].example, RD_LOAD_ONLY | (cases[i].reads & ~bit), cases[i].fn))
				rd_test_fail(__FILE__, __LINE__, "%s returned without part 0x%x loaded", cases[i].name, bit);
		if (aborts(cases[i].example, RD_LOAD_ONLY | cases[i].reads, cases[i].fn))
			rd_test_fail(__FILE__, __LINE__, "%s aborted with the parts it reads loaded", cases[i].name);
		if (aborts(cases[i].example, 0, cases[i].fn))
			rd_test_fail(__FILE__, __LINE__, "%s aborted with everything loaded", cases[i].name);
	}
}

RD_TEST(a_part_not_loaded_is_marked)
{
	char path[1024], err[256];
	struct rd_source *src = NULL;
	snprintf(path, sizeof path, "%s/../examples/h100-ofed", rd_test_dir());
	CHECK_INT(rd_source_open(path, &src, err, sizeof err), 0);
	static const char *const no_services[] = {NULL};
	struct rd_host h;
	struct rd_system s;
	rd_host_load(src, RD_LOAD_ONLY | RD_LOAD_PORTS, &h);
	rd_system_load_parts(src, &h, no_services, RD_LOAD_ONLY | RD_LOAD_PORTS, 0, &s);
	CHECK_INT(h.unloaded, RD_LOAD_ALL & ~RD_LOAD_PORTS);
	CHECK(s.unloaded & RD_LOAD_MODLOAD);
	CHECK(s.mft.unloaded);
	CHECK_INT(h.devices[0].ports[0].gids_err, RD_ENOTLOADED);
	CHECK_INT(h.devices[0].ports[0].sm_lid.err, RD_ENOTLOADED);
	CHECK_STR(h.devices[0].ports[0].sm_lid.path, "/sys/class/infiniband/mlx5_0/ports/1/sm_lid");
	CHECK_INT(h.devices[0].fw_ver.err, RD_ENOTLOADED);
	CHECK_INT(h.devices[0].ports[0].state.err, 0);
	rd_system_free(&s);
	rd_host_free(&h);
	rd_host_load(src, 0, &h);
	rd_system_load_parts(src, &h, no_services, 0, 0, &s);
	CHECK_INT(h.unloaded, 0);
	CHECK_INT(s.unloaded, 0);
	CHECK(!s.mft.unloaded);
	CHECK(h.devices[0].ports[0].gids_err != RD_ENOTLOADED);
	rd_system_free(&s);
	rd_host_free(&h);
	rd_source_close(src);
}
