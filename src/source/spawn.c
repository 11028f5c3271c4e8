/* SPDX-License-Identifier: GPL-2.0-only OR BSD-2-Clause */
/* Running a child process (spawn.h). */
#include "source/spawn.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

char *rd_spawn_find(const char *name, const char *path, int *why)
{
	char *dirs = rd_xstrdup(path ? path : ""), *found = NULL, *save = NULL;
	*why = ENOENT;
	for (char *d = strtok_r(dirs, ":", &save); d && !found; d = strtok_r(NULL, ":", &save)) {
		char *full = rd_xasprintf("%s/%s", d, name);
		struct stat st;
		if (stat(full, &st) == 0 && S_ISREG(st.st_mode)) {
			if (access(full, X_OK) == 0)
				found = full;
			else
				*why = EACCES;
		}
		if (!found)
			free(full);
	}
	free(dirs);
	return found;
}

/* A NULL-terminated copy of v (NULL: an empty one). */
static char **strv_copy(const char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	char **c = rd_xcalloc(n + 1, sizeof *c);
	for (size_t i = 0; i < n; i++)
		c[i] = rd_xstrdup(v[i]);
	return c;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v[i]; i++)
		free(v[i]);
	free(v);
}

/* In the child: standard input (and error unless merged or errfd) /dev/null, standard output outfd. */
static void child_stdio(int outfd, bool merge_stderr, int errfd)
{
	int devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 2);
	}
	if (errfd >= 0)
		dup2(errfd, 2);
	if (outfd >= 0) {
		dup2(outfd, 1);
		if (merge_stderr)
			dup2(outfd, 2);
	} else if (devnull >= 0) {
		dup2(devnull, 1);
	}
}

static void child_exec(const struct rd_spawn *s, const char *prog, char *const argv[], char *const env[], int outfd,
		       int errfd, int errpipe)
{
	if (s->own_group)
		(void)setpgid(0, 0);
	child_stdio(outfd, s->merge_stderr, errfd);
	/* whatever the process holds without O_CLOEXEC (a library's descriptor) goes at exec too */
	close_range(3, ~0u, CLOSE_RANGE_CLOEXEC);
	/* a program starts with no signal blocked, whatever this thread blocks (watch takes its
	 * signals through signalfd) */
	sigset_t none;
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	for (size_t i = 0; env && env[i]; i++)
		putenv(env[i]);
	execv(prog, argv);
	int e = errno;
	if (write(errpipe, &e, sizeof e) < 0) {
		/* nothing more to do */
	}
	_exit(127);
}

static void child_fn(const struct rd_spawn *s, int fd)
{
	static const int sigs[] = {SIGINT, SIGTERM, SIGHUP};
	for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) /* the parent's handlers are not the child's */
		signal(sigs[i], SIG_DFL);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	child_stdio(-1, false, -1);
	s->fn(fd, s->arg);
	_exit(0);
}

/* Whether the child pid has ended (not reaped). */
static bool ended(pid_t pid)
{
	siginfo_t si = {0};
	return waitid(P_PID, (id_t)pid, &si, WEXITED | WNOHANG | WNOWAIT) == 0 && si.si_pid == pid;
}

/* Reads the child's output (and its standard error on efd, when >= 0) by the deadline; the reason
 * to kill it, or 0 at the output's end of file (standard error read to its end too).  With
 * own_group, also 0 once the child itself has ended and nothing more is there to read: what it
 * left behind holding the pipes is killed with its group. */
static int collect(const struct rd_spawn *s, pid_t pid, int fd, struct rd_buf *out, int efd)
{
	long long deadline = rd_mono_ms() + s->timeout_ms;
	bool gone = false;
	while (fd >= 0 || efd >= 0) {
		if (s->stop && *s->stop)
			return EINTR;
		long long left = deadline - rd_mono_ms();
		if (left <= 0)
			return ETIMEDOUT;
		/* with a stop flag, short slices: a signal taken by another thread only sets the flag */
		int slice = (s->stop || s->own_group) && left > 100 ? 100 : left > 0x7fffffff ? 0x7fffffff : (int)left;
		if (s->own_group && !gone && ended(pid))
			gone = true, slice = 0; /* what is there still is read; then done */
		struct pollfd p[2] = {{.fd = fd, .events = POLLIN}, {.fd = efd, .events = POLLIN}};
		int pr = poll(p, 2, slice);
		if (pr < 0 && errno == EINTR)
			continue;
		if (pr < 0)
			return 0; /* cannot wait on it: reaped as it is */
		if (pr == 0 && gone)
			return 0;
		if (pr == 0) {
			if (!s->stop && rd_mono_ms() >= deadline)
				return ETIMEDOUT;
			continue;
		}
		for (int k = 0; k < 2; k++) {
			if (p[k].fd < 0 || !p[k].revents)
				continue;
			char chunk[4096];
			ssize_t n = read(p[k].fd, chunk, sizeof chunk);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				if (k == 0)
					fd = -1;
				else
					efd = -1;
				continue;
			}
			if (k == 1) {
				if (s->err->len < s->err_cap)
					rd_buf_add(s->err, chunk, (size_t)n > s->err_cap - s->err->len ? s->err_cap - s->err->len : (size_t)n);
				continue;
			}
			if (out->len + (size_t)n > s->cap && !s->cap_keeps_reading)
				return EFBIG;
			if (out->len < s->cap)
				rd_buf_add(out, chunk, (size_t)n);
		}
	}
	return 0;
}

int rd_spawn_run(const struct rd_spawn *s, struct rd_buf *out, int *wstatus)
{
	*wstatus = 0;
	char *found = NULL;
	const char *prog = NULL;
	if (s->argv) {
		int why = ENOENT;
		prog = s->prog ? s->prog : strchr(s->argv[0], '/') ? s->argv[0] : NULL;
		if (!prog) {
			const char *path = s->path ? s->path : getenv("PATH");
			prog = found = rd_spawn_find(s->argv[0], path ? path : "/bin:/usr/bin", &why);
		}
		if (!prog) /* in no directory of the path: as execvp would have said, without a fork */
			return -why;
	}
	/* the strings exec takes are made before the fork: the child allocates nothing */
	char **argv = strv_copy(s->argv), **env = strv_copy(s->env);
	int pfd[2], epfd[2] = {-1, -1}, sfd[2] = {-1, -1}, r = 0;
	bool want_err = s->argv && s->err && !s->merge_stderr;
	if (pipe2(pfd, O_CLOEXEC) < 0) {
		r = -errno;
	} else if (pipe2(epfd, O_CLOEXEC) < 0) {
		r = -errno;
		close(pfd[0]);
		close(pfd[1]);
	} else if (want_err && pipe2(sfd, O_CLOEXEC) < 0) {
		r = -errno;
		close(pfd[0]), close(pfd[1]), close(epfd[0]), close(epfd[1]);
	}
	pid_t pid = r < 0 ? -1 : fork();
	if (r == 0 && pid < 0) {
		r = -errno;
		close(pfd[0]), close(pfd[1]), close(epfd[0]), close(epfd[1]);
		if (want_err)
			close(sfd[0]), close(sfd[1]);
	}
	if (pid == 0) {
		close(pfd[0]);
		close(epfd[0]);
		if (want_err)
			close(sfd[0]);
		if (s->argv)
			child_exec(s, prog, argv, env, pfd[1], sfd[1], epfd[1]);
		child_fn(s, pfd[1]);
	}
	strv_free(argv);
	strv_free(env);
	free(found);
	if (r < 0)
		return r;
	if (s->own_group) /* both sides: the group exists before either goes on */
		(void)setpgid(pid, pid);
	close(pfd[1]);
	close(epfd[1]);
	if (want_err) {
		close(sfd[1]);
		rd_buf_puts(s->err, "");
	}
	rd_buf_puts(out, "");
	int kill_why = collect(s, pid, pfd[0], out, want_err ? sfd[0] : -1);
	close(pfd[0]);
	if (want_err)
		close(sfd[0]);
	if (kill_why)
		kill(s->own_group ? -pid : pid, SIGKILL);
	if (s->own_group) {
		/* the child ended (not reaped yet, so its group's id is not reused): what it left in its
		 * group goes with it */
		siginfo_t si;
		while (waitid(P_PID, (id_t)pid, &si, WEXITED | WNOWAIT) < 0 && errno == EINTR)
			;
		kill(-pid, SIGKILL);
	}
	while (waitpid(pid, wstatus, 0) < 0 && errno == EINTR)
		;
	int exec_err = 0;
	if (read(epfd[0], &exec_err, sizeof exec_err) != (ssize_t)sizeof exec_err)
		exec_err = 0;
	close(epfd[0]);
	return exec_err ? -exec_err : -kill_why;
}

int rd_spawn_adopt_orphans(void)
{
	return prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) < 0 ? -errno : 0;
}

/* Kills every child /proc lists for this process's threads; how many. */
static size_t kill_children(void)
{
	size_t n = 0;
	DIR *d = opendir("/proc/self/task");
	if (!d)
		return 0;
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.')
			continue;
		char path[64], buf[4096];
		snprintf(path, sizeof path, "/proc/self/task/%.20s/children", e->d_name);
		int fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			continue;
		ssize_t len = read(fd, buf, sizeof buf - 1);
		close(fd);
		if (len <= 0)
			continue;
		buf[len] = '\0';
		for (char *p = buf, *end; *p; p = end) {
			long pid = strtol(p, &end, 10);
			if (end == p)
				break;
			if (pid > 1 && kill((pid_t)pid, SIGKILL) == 0)
				n++;
		}
	}
	closedir(d);
	return n;
}

size_t rd_spawn_end_orphans(int ms)
{
	size_t ended = 0;
	long long deadline = rd_mono_ms() + ms;
	for (;;) {
		size_t k = kill_children();
		ended += k;
		int st;
		bool reaped = false;
		while (waitpid(-1, &st, WNOHANG) > 0)
			reaped = true;
		if (!k && !reaped)
			break;
		if (rd_mono_ms() >= deadline)
			break;
		if (k && !reaped) { /* killed, not yet dead: a moment */
			struct timespec nap = {0, 10 * 1000000L};
			nanosleep(&nap, NULL);
		}
	}
	return ended;
}
