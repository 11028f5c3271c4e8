/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Running a child process, the one way the program does it: a program (fork and exec, never a
 * shell: argv is passed as it is) or a function of ours (fork only: a library that may crash or
 * hang on hostile input runs there, model/rpmdb.c's librpm).  Every descriptor of the process
 * but the child's standard ones is closed at exec (close-on-exec), standard input is /dev/null,
 * the output is read through a pipe up to a cap, and the child is killed (SIGKILL) at its
 * deadline; a run always ends with the child reaped.
 *
 * Ownership: the caller owns the rd_spawn and everything it points to, and *out (rd_buf_free). */
#ifndef RD_SOURCE_SPAWN_H
#define RD_SOURCE_SPAWN_H
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

#include "util/util.h"

struct rd_spawn {
	/* the program: argv[0] is looked up in path (a ':' list; NULL: PATH, the way execvp does)
	 * unless it holds a '/' or prog gives where it is */
	const char *const *argv;
	const char *prog;
	const char *path;
	const char *const *env;    /* "NAME=value" set in the child's environment (NULL-terminated) */
	bool merge_stderr;         /* standard error into the output too (else /dev/null) */
	/* or, instead of a program (argv NULL): fn(fd, arg) in a forked child, writing its answer to
	 * fd, its standard descriptors /dev/null, SIGINT, SIGTERM and SIGHUP at their defaults, and
	 * killed when the thread that started it ends (PR_SET_PDEATHSIG); the child exits 0 after */
	void (*fn)(int fd, void *arg);
	void *arg;
	int timeout_ms;            /* the child is killed after it: ETIMEDOUT */
	size_t cap;                /* bytes of output (0: none kept) */
	bool cap_keeps_reading;    /* past cap: read on to the end, keeping what came before (else
				    * the child is killed: EFBIG) */
	/* when *stop becomes non-zero (a signal handler's flag), the child is killed: EINTR */
	const volatile sig_atomic_t *stop;
	/* a program only: standard error read into *err (up to err_cap, reading on past it) instead
	 * of /dev/null; ignored with merge_stderr */
	struct rd_buf *err;
	size_t err_cap;
	/* a program only: the child leads a process group of its own, and at the end of the run
	 * (after its end of file or its kill) every process left in that group is killed (SIGKILL)
	 * before the child is reaped: a launcher's remote shells or local commands never outlive it */
	bool own_group;
};

/* Runs s.  Returns 0 when the child ended by itself (*wstatus: its waitpid status), or -errno:
 * ENOENT (EACCES) when the program is in no directory of the path (only not executable there),
 * and no child was started; the errno of a failed exec; EINTR, ETIMEDOUT or EFBIG as above (the
 * child killed, *wstatus still filled).  *out gets what the child wrote (NUL-terminated, data
 * never NULL after a child ran), also on a failure. */
int rd_spawn_run(const struct rd_spawn *s, struct rd_buf *out, int *wstatus);

/* For a process that runs one child at a time (pairs --run): what a child's own children leave
 * when it dies (pdsh starts each remote command in a session of its own, which its group's kill
 * does not reach) becomes this process's (PR_SET_CHILD_SUBREAPER), and rd_spawn_end_orphans,
 * after a run, kills (SIGKILL) and reaps every child this process still has, their own as they
 * come, for up to ms.  Returns how many it ended (0 when the kernel lists no children). */
int rd_spawn_adopt_orphans(void);
size_t rd_spawn_end_orphans(int ms);

/* Where program name is among the ':' directories of path: a regular file that is executable
 * (malloc'd), or NULL with *why ENOENT, or EACCES when one was found that is not executable. */
char *rd_spawn_find(const char *name, const char *path, int *why);

#endif
