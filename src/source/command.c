/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Commands: the live host's programs run, a root's captures read (source-internal.h). */
#include "source/source-internal.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "source/spawn.h"

#define ARGV(...) ((const char *const[]){__VA_ARGS__, NULL})
#define UMAD_ENV ARGV("LD_PRELOAD", "IBSIM_SOCKNAME", "IBSIM_SERVER_NAME", "IBSIM_SERVER_PORT")
const struct rd_command rd_commands[] = {
	{"ofed_info-s", ARGV("ofed_info", "-s"), 5000, NULL},
	{"dkms-status", ARGV("dkms", "status"), 15000, NULL},
	{"systemctl-is-active-openibd", ARGV("systemctl", "is-active", "openibd"), 5000, NULL},
	{"systemctl-is-enabled-openibd", ARGV("systemctl", "is-enabled", "openibd"), 5000, NULL},
	{"dmesg", ARGV("dmesg"), 5000, NULL},
	{"ibv_devinfo-v", ARGV("ibv_devinfo", "-v"), 10000, NULL},
	{"rdma-link", ARGV("rdma", "link", "show"), 5000, NULL},
	/* fabric: the subnet through the local HCA's umad port; a simulated fabric (ibsim's umad2sim
	 * preloaded, its socket named in the environment) is reached the same way */
	{"iblinkinfo-switches-only-l", ARGV("iblinkinfo", "--switches-only", "-l"), 60000, UMAD_ENV},
	{"ibnetdiscover-p", ARGV("ibnetdiscover", "-p"), 60000, UMAD_ENV},
	{"sminfo", ARGV("sminfo"), 10000, UMAD_ENV},
	/* every port's error counters (PerfMgt GMPs to each port's PMA); exit status 1 when one is
	 * above its threshold */
	{"ibqueryerrors", ARGV("ibqueryerrors"), 60000, UMAD_ENV},
	/* fabric --route, --pairs from captures: every switch's unicast forwarding table */
	{"dump_fts", ARGV("dump_fts"), 60000, UMAD_ENV},
	{NULL, NULL, 0, NULL},
};

const struct rd_command *rd_command_find(const char *name)
{
	for (const struct rd_command *c = rd_commands; c->name; c++)
		if (strcmp(c->name, name) == 0)
			return c;
	return NULL;
}

/* The PATH a program is looked up in: the caller's, then the system directories. */
static char *search_path(void)
{
	const char *path = getenv("PATH");
	return rd_xasprintf("%s%s/usr/local/sbin:/usr/sbin:/sbin:/usr/bin:/bin", path ? path : "", path && *path ? ":" : "");
}

/* Where program is, looked up once per process (NULL when it is in no directory of the path). */
static const char *program_path(const char *name)
{
	static struct {
		char *name, *path;
	} known[16];
	static size_t nknown;
	if (strchr(name, '/'))
		return name;
	for (size_t i = 0; i < nknown; i++)
		if (strcmp(known[i].name, name) == 0)
			return known[i].path;
	char *dirs = search_path();
	int why;
	char *found = rd_spawn_find(name, dirs, &why);
	free(dirs);
	if (nknown < sizeof known / sizeof known[0]) {
		known[nknown].name = rd_xstrdup(name);
		known[nknown++].path = found;
	}
	return found; /* kept for the process (a full table: the path is looked up again next time) */
}

/* Runs c's program on the live host: PATH with the system directories (for the programs it
 * runs in turn too), LC_ALL=C, its output up to RD_CAP_FILE. */
static int run_live(const struct rd_command *c, bool merge_stderr, struct rd_text *out)
{
	const char *prog = program_path(c->argv[0]);
	if (!prog) { /* in no directory of the path: not found, as execvp would have said, without a fork */
		out->status = 127;
		out->err = ENOENT;
		return -ENOENT;
	}
	char *dirs = search_path();
	char *path_env = rd_xasprintf("PATH=%s", dirs);
	free(dirs);
	const char *env[8] = {path_env, "LC_ALL=C", NULL};
	char *kept[4] = {NULL};
	for (size_t i = 0, n = 2; c->keep_env && c->keep_env[i] && i < 4; i++) {
		const char *v = getenv(c->keep_env[i]);
		if (v)
			env[n++] = kept[i] = rd_xasprintf("%s=%s", c->keep_env[i], v);
	}
	const struct rd_spawn s = {.argv = c->argv, .prog = prog, .env = env, .merge_stderr = merge_stderr,
				   .timeout_ms = c->timeout_ms, .cap = RD_CAP_FILE};
	struct rd_buf b = {0};
	int st = 0;
	int r = rd_spawn_run(&s, &b, &st);
	free(path_env);
	for (size_t i = 0; i < 4; i++)
		free(kept[i]);
	out->status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
	if (r < 0) {
		out->err = -r;
		rd_buf_free(&b);
		return r;
	}
	out->len = b.len;
	out->data = rd_buf_steal(&b);
	return 0;
}

/* True when the root is known not to hold rdma-doctor/commands/<file> (nor a read error replayed
 * for it): from one listing of the directory.  Only for a directory root read without recording;
 * an archive's lookups are in memory, and a recording must see each read. */
static bool capture_absent(struct rd_source *src, const char *file)
{
	if (src->live || src->tree || src->rec || src->cmds_state == CMDS_UNKNOWN)
		return false;
	if (src->cmds_state == CMDS_UNLISTED) {
		struct rd_strv names = {0};
		int r = rd_list_dir(src, COMMANDS_DIR, &names);
		src->cmds_state = r == 0 ? CMDS_LISTED : r == -ENOENT ? CMDS_NONE : CMDS_UNKNOWN;
		for (size_t i = 0; i < names.n; i++)
			smap_put(&src->cmds, names.v[i], NULL);
		rd_strv_free(&names);
		if (src->cmds_state == CMDS_UNKNOWN)
			return false;
	}
	if (src->cmds_state == CMDS_LISTED && smap_get(&src->cmds, file))
		return false;
	char *path = rd_xasprintf("%s/%s", COMMANDS_DIR, file);
	bool replayed = src_recorded_error(src, path) != 0;
	free(path);
	return !replayed;
}

static int command_from_root(struct rd_source *src, const char *name, struct rd_text *out)
{
	char *path = rd_xasprintf("%s/%s", COMMANDS_DIR, name);
	int r;
	if (capture_absent(src, name)) {
		out->err = ENOENT;
		r = -ENOENT;
	} else {
		r = rd_read_file(src, path, RD_CAP_FILE, out);
	}
	free(path);
	if (r == -ENOENT) {
		/* a snapshot records a command that could not run (absent: ENOENT) in <name>.error */
		struct rd_text e = {0};
		char *ep = rd_xasprintf("%s/%s.error", COMMANDS_DIR, name);
		int code = !capture_absent(src, ep + strlen(COMMANDS_DIR) + 1) && rd_read_attr(src, ep, &e) == 0
				   ? rd_errno_from_name(e.data)
				   : 0;
		rd_text_free(&e);
		free(ep);
		out->err = code > 0 ? code : RD_ENOTCAPTURED;
		return -out->err;
	}
	if (r == 0) {
		struct rd_text st = {0};
		char *sp = rd_xasprintf("%s/%s.status", COMMANDS_DIR, name);
		if (!capture_absent(src, sp + strlen(COMMANDS_DIR) + 1) && rd_read_attr(src, sp, &st) == 0)
			out->status = atoi(st.data);
		else
			out->status = 0;
		rd_text_free(&st);
		free(sp);
	}
	return r;
}

int rd_run_command(struct rd_source *src, const char *name, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	const struct rd_command *c = rd_command_find(name);
	if (!c) {
		out->err = EINVAL;
		return -EINVAL;
	}
	int r;
	if (src->live && rd_reader_command_logged(name, out)) {
		r = out->err ? -out->err : 0; /* run by a loader before: not run again */
	} else if (src->live) {
		struct rd_command bounded = *c;
		long long left = src->run_deadline_ms ? src->run_deadline_ms - rd_mono_ms() : 0;
		if (src->run_deadline_ms && left < bounded.timeout_ms)
			bounded.timeout_ms = left > 0 ? (int)left : 0;
		if (src->run_deadline_ms && left <= 0) {
			out->err = ETIMEDOUT; /* past the run's deadline: not started */
			r = -ETIMEDOUT;
		} else {
			r = run_live(&bounded, false, out);
		}
		rd_reader_command_log(name, out);
	} else {
		src->in_command = true; /* its files are recorded as the command, not as files */
		r = command_from_root(src, name, out);
		src->in_command = false;
	}
	if (r != -RD_ENOTCAPTURED)
		src_record_command(src, name, out);
	return r;
}

int rd_run_program(struct rd_source *src, const char *const argv[], int timeout_ms, struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	if (!src->live) {
		out->err = EPERM;
		return -EPERM; /* in root mode no program is ever run */
	}
	const struct rd_command c = {argv[0], argv, timeout_ms, NULL};
	return run_live(&c, true, out);
}

/* ---- per-device commands (mlxlink, mlxconfig, flint, mlnx_qos, dcb) ------------------------- */

void rd_source_allow_device_commands(struct rd_source *src, bool allow)
{
	src->device_commands = allow;
}

/* A capture name: one path component of visible ASCII, no '/' and not starting with '.'. */
static bool device_command_name_ok(const char *name)
{
	if (!name || !*name || *name == '.' || strlen(name) >= 200)
		return false;
	for (const char *p = name; *p; p++)
		if ((unsigned char)*p <= ' ' || (unsigned char)*p >= 0x7f || *p == '/')
			return false;
	return true;
}

/* The program is installed: argv0 is found, executable, in PATH or the sbin directories
 * search_path adds (so that an absent tool costs no fork). */
static bool program_installed(const char *argv0)
{
	if (strchr(argv0, '/'))
		return access(argv0, X_OK) == 0;
	char *all = search_path();
	bool found = false;
	char *save = NULL;
	for (char *d = strtok_r(all, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *full = rd_xasprintf("%s/%s", *d ? d : ".", argv0);
		found = access(full, X_OK) == 0;
		free(full);
	}
	free(all);
	return found;
}

int rd_run_device_command(struct rd_source *src, const char *name, const char *const argv[], int timeout_ms,
			  struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	if (!device_command_name_ok(name) || !argv || !argv[0]) {
		out->err = EINVAL;
		return -EINVAL;
	}
	int r;
	if (src->live) {
		/* a tool that is not installed is said as such with or without --mft (a snapshot of this
		 * host says the same), and costs no fork */
		if (!src->device_commands && program_installed(argv[0])) {
			out->err = RD_ENOTCAPTURED; /* not asked for: nothing run, nothing recorded */
			return -RD_ENOTCAPTURED;
		}
		if (src->run_deadline_ms) {
			long long left = src->run_deadline_ms - rd_mono_ms();
			if (left <= 0) {
				out->err = ETIMEDOUT;
				src_record_command(src, name, out);
				return -ETIMEDOUT;
			}
			if (left < timeout_ms)
				timeout_ms = (int)left;
		}
		if (!program_installed(argv[0])) {
			out->err = ENOENT;
			r = -ENOENT;
		} else {
			const struct rd_command c = {name, argv, timeout_ms, NULL};
			r = run_live(&c, false, out);
		}
	} else {
		src->in_command = true;
		r = command_from_root(src, name, out);
		src->in_command = false;
	}
	if (r != -RD_ENOTCAPTURED)
		src_record_command(src, name, out);
	return r;
}

/* ---- fabric commands with arguments (ibtracert between two LIDs) ---------------------------- */

int rd_run_fabric_command(struct rd_source *src, const char *name, const char *const argv[], int timeout_ms,
			  struct rd_text *out)
{
	memset(out, 0, sizeof *out);
	out->status = -1;
	if (!device_command_name_ok(name) || !argv || !argv[0]) {
		out->err = EINVAL;
		return -EINVAL;
	}
	int r;
	if (src->live) {
		if (src->run_deadline_ms) {
			long long left = src->run_deadline_ms - rd_mono_ms();
			if (left <= 0) {
				out->err = ETIMEDOUT;
				src_record_command(src, name, out);
				return -ETIMEDOUT;
			}
			if (left < timeout_ms)
				timeout_ms = (int)left;
		}
		const struct rd_command c = {name, argv, timeout_ms, UMAD_ENV};
		r = run_live(&c, false, out);
	} else {
		src->in_command = true;
		r = command_from_root(src, name, out);
		src->in_command = false;
	}
	if (r != -RD_ENOTCAPTURED)
		src_record_command(src, name, out);
	return r;
}
