/*
 * spawn.c - one process of an exec tool's run, isolated, and its end
 *
 * The program runs in a session and process group of its own, with no
 * new privileges, the rlimits of its manifest, every descriptor closed
 * but 0 (its input), 1 (the result), 2 (stderr) and 3 (progress and
 * log lines), and, where the kernel has Landlock, file system rules
 * that let it read the system's programs and libraries, its manifest's
 * directory and paths.read, and write only its private TMPDIR and
 * paths.write (with scoping, ABI 6, it cannot signal a process outside
 * its domain either).  When the worker runs as root, the run gets
 * another user, never root.  Nothing is prepared in the child that can
 * be prepared before the fork: the child only makes system calls.
 *
 * The parent feeds stdin and reads stdout, stderr and fd 3 in one poll
 * loop with the run's deadline, and ends the run however it ends: the
 * whole process group is sent SIGTERM, then SIGKILL after the grace,
 * and any process that left the group (setsid(), a daemon) is found
 * among the worker's children, the worker being a child subreaper, and
 * killed too.  Nothing a run starts outlives it.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <sys/prctl.h>
#include <sched.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <linux/landlock.h>

#include "core/core.h"
#include "store/store.h"
#include "core/spawn.h"

/* Landlock, whatever the headers this was built with know. */
#define LL_TRUNCATE	(1ULL << 14)	/* ABI 3 */
#define LL_IOCTL_DEV	(1ULL << 15)	/* ABI 5 */
#define LL_SCOPE_UNIX	(1ULL << 0)	/* ABI 6 */
#define LL_SCOPE_SIGNAL	(1ULL << 1)
struct ll_ruleset {
	unsigned long long	 fs;
	unsigned long long	 net;
	unsigned long long	 scoped;
};
struct ll_beneath {
	unsigned long long	 allowed;
	int			 fd;
} __attribute__((packed));
#define LL_READ		(LANDLOCK_ACCESS_FS_EXECUTE |		\
	LANDLOCK_ACCESS_FS_READ_FILE | LANDLOCK_ACCESS_FS_READ_DIR)
#define LL_FILE		(LANDLOCK_ACCESS_FS_EXECUTE |		\
	LANDLOCK_ACCESS_FS_READ_FILE |				\
	LANDLOCK_ACCESS_FS_WRITE_FILE | LL_TRUNCATE | LL_IOCTL_DEV)

/*
 * What every run may read: the programs, libraries and the few files
 * of /etc that the C library, interpreters and TLS read.  Not /etc as a
 * whole: the state key file, a config file or a database password may
 * live there.
 */
static const char *const sysread[] = {
	"/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
	"/opt", "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d",
	"/etc/localtime", "/etc/alternatives", "/etc/ssl",
	"/etc/ca-certificates", "/etc/nsswitch.conf", "/etc/passwd",
	"/etc/group", "/etc/hosts", "/etc/resolv.conf", "/etc/host.conf",
	"/etc/gai.conf", "/etc/mime.types", "/etc/locale.alias",
	"/etc/os-release", "/usr/lib/os-release", "/proc/self",
	"/dev/urandom", "/dev/random", "/dev/zero", "/sys/devices/system/cpu",
	"/proc/stat", "/proc/meminfo", "/proc/cpuinfo", NULL
};
/* What every run may write. */
static const char *const syswrite[] = { "/dev/null", NULL };

int
wymcp__landlock_abi(void)
{
	static int	 abi = -2;
	long		 v;

	if (abi == -2) {
		v = syscall(SYS_landlock_create_ruleset, NULL, 0,
		    LANDLOCK_CREATE_RULESET_VERSION);
		abi = v < 0 ? 0 : (int)v;
	}
	return abi;
}

/* The file system rights this ABI handles. */
static unsigned long long
ll_handled(int abi)
{
	unsigned long long	 fs = (1ULL << 13) - 1;	/* ABI 1 */

	if (abi >= 2)
		fs |= LANDLOCK_ACCESS_FS_REFER;
	if (abi >= 3)
		fs |= LL_TRUNCATE;
	if (abi >= 5)
		fs |= LL_IOCTL_DEV;
	return fs;
}

/* Allow `access' beneath `path' (a file: its file rights only). */
static void
ll_allow(int rs, const char *path, unsigned long long access,
    unsigned long long handled)
{
	struct ll_beneath	 pb;
	struct stat		 st;
	int			 fd;

	if ((fd = open(path, O_PATH | O_CLOEXEC)) == -1)
		return;
	if (fstat(fd, &st) == 0 && !S_ISDIR(st.st_mode))
		access &= LL_FILE;
	pb.allowed = access & handled;
	pb.fd = fd;
	(void)syscall(SYS_landlock_add_rule, rs, LANDLOCK_RULE_PATH_BENEATH,
	    &pb, 0);
	close(fd);
}

/* In the child: restrict it.  0, or -1 (the run must not go on). */
static int
ll_restrict(const struct wymcp__spawn *sp)
{
	struct ll_ruleset	 attr;
	const struct wymcp__exec *x = sp->x;
	unsigned long long	 h, all;
	size_t			 i, size;
	int			 rs, abi = sp->abi;

	if (abi < 1)
		return 0;
	memset(&attr, 0, sizeof(attr));
	attr.fs = h = ll_handled(abi);
	size = sizeof(attr.fs);
	if (abi >= 6) {
		attr.scoped = LL_SCOPE_UNIX | LL_SCOPE_SIGNAL;
		size = sizeof(attr);
	}
	if ((rs = (int)syscall(SYS_landlock_create_ruleset, &attr, size,
	    0)) < 0)
		return -1;
	all = h;
	for (i = 0; sysread[i] != NULL; i++)
		ll_allow(rs, sysread[i], LL_READ, h);
	for (i = 0; syswrite[i] != NULL; i++)
		ll_allow(rs, syswrite[i], LL_FILE, h);
	ll_allow(rs, x->dir, LL_READ, h);
	ll_allow(rs, x->argv[0], LL_READ, h);
	for (i = 0; i < x->nrd; i++)
		ll_allow(rs, x->rd[i], LL_READ, h);
	for (i = 0; i < x->nwr; i++)
		ll_allow(rs, x->wr[i], all, h);
	ll_allow(rs, sp->tmp, all, h);
	if (syscall(SYS_landlock_restrict_self, rs, 0) != 0) {
		close(rs);
		return -1;
	}
	close(rs);
	return 0;
}

/* In the child: an rlimit, soft `cur' and hard `max'. */
static int
lim(int res, long long cur, long long max)
{
	struct rlimit	 rl;

	/* Never above what the worker may: its own limit stays. */
	if (getrlimit(res, &rl) == 0 && rl.rlim_max != RLIM_INFINITY) {
		if ((rlim_t)max > rl.rlim_max)
			max = (long long)rl.rlim_max;
		if (cur > max)
			cur = max;
	}
	rl.rlim_cur = (rlim_t)cur;
	rl.rlim_max = (rlim_t)max;
	return setrlimit(res, &rl);
}

/* What a seccomp filter denying setrlimit(2) leads to. */
#define SETRLIMIT_FAILED "setrlimit refused: the run's limits cannot be "   \
	"set (under systemd, SystemCallFilter=~@resources denies it: "     \
	"allow setrlimit prlimit64)"

/* In the child: write a fixed message and end. */
static void __attribute__((noreturn))
die(const char *msg)
{
	size_t	 n = strlen(msg);

	(void)!write(2, "wymcp: ", 7);
	(void)!write(2, msg, n);
	(void)!write(2, "\n", 1);
	_exit(127);
}

/* In the child: write `text' to /proc/self/`file'. */
static int
proc_write(const char *file, const char *text)
{
	char	 path[64];
	size_t	 n = strlen(text);
	int	 fd, ok;

	memcpy(path, "/proc/self/", 11);
	memcpy(path + 11, file, strlen(file) + 1);
	if ((fd = open(path, O_WRONLY | O_CLOEXEC)) == -1)
		return -1;
	ok = write(fd, text, n) == (ssize_t)n;
	close(fd);
	return ok ? 0 : -1;
}

/* In the child: "ID ID 1", for a map of its own id alone. */
static void
id_map(char *buf, size_t len, unsigned long id)
{
	char	 num[24];
	size_t	 k = sizeof(num), n;

	num[--k] = '\0';
	do {
		num[--k] = (char)('0' + id % 10);
	} while ((id /= 10) != 0 && k > 0);
	n = strlen(num + k);
	if (2 * n + 4 > len)
		return;
	memcpy(buf, num + k, n);
	buf[n] = ' ';
	memcpy(buf + n + 1, num + k, n);
	memcpy(buf + 2 * n + 1, " 1", 3);
}

/* In the child: wait for `pid' and end as it ended. */
static void __attribute__((noreturn))
follow(pid_t pid)
{
	pid_t	 w;
	int	 st;

	for (;;) {
		w = waitpid(pid, &st, 0);
		if (w == -1 && errno == EINTR)
			continue;
		if (w == -1)
			_exit(127);
		if (w == pid)
			break;
	}
	if (WIFSIGNALED(st)) {
		(void)signal(WTERMSIG(st), SIG_DFL);
		(void)prctl(PR_SET_PDEATHSIG, 0);
		(void)kill(getpid(), WTERMSIG(st));
		_exit(128 + WTERMSIG(st));
	}
	_exit(WEXITSTATUS(st));
}

/*
 * In the child: a user and PID namespace of the run's own, where its
 * processes count alone against RLIMIT_NPROC and all end when its
 * first process, the program, does.  This process stays outside and
 * follows the program (ends as it did); the program returns from here.
 * 0, or -1: no namespace (the manifest's "namespaces": false, or the
 * kernel or its settings refuse them), and the run goes on without.
 */
static int
pid_namespace(const struct wymcp__spawn *sp)
{
	char	 map[64];
	pid_t	 pid;

	if (sp->x->no_ns || unshare(CLONE_NEWUSER | CLONE_NEWPID) != 0)
		return -1;
	id_map(map, sizeof(map), (unsigned long)geteuid());
	if (proc_write("uid_map", map) != 0)
		die("cannot map the run's user");
	id_map(map, sizeof(map), (unsigned long)getegid());
	if (proc_write("setgroups", "deny") != 0 ||
	    proc_write("gid_map", map) != 0)
		die("cannot map the run's group");
	(void)signal(SIGTERM, SIG_IGN);
	if ((pid = fork()) == -1)
		die("fork failed");
	if (pid > 0)
		follow(pid);
	/*
	 * The program is the namespace's init (no init of ours: a fork
	 * less per run): when it ends, all in the namespace do.  As an
	 * init, it gets from outside only the signals it handles, and
	 * SIGKILL: a stop is SIGTERM, then SIGKILL after the grace.
	 */
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	(void)signal(SIGTERM, SIG_DFL);
	return 0;
}

/* The child, after fork(): isolate, then run the program. */
static void __attribute__((noreturn))
child(const struct wymcp__spawn *sp)
{
	const struct wymcp__exec_limits *l = &sp->x->lim;
	sigset_t	 none;
	long long	 n;
	int		 sig, ns;

	if (setsid() == -1)
		die("setsid failed");
	(void)prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (dup2(sp->fd[0], 0) == -1 || dup2(sp->fd[1], 1) == -1 ||
	    dup2(sp->fd[2], 2) == -1 || dup2(sp->fd[3], 3) == -1)
		die("dup2 failed");
	if (syscall(SYS_close_range, 4, ~0U, 0) != 0) {
		long	 fd, max = sysconf(_SC_OPEN_MAX);

		for (fd = 4; fd < max; fd++)
			(void)close((int)fd);
	}
	for (sig = 1; sig < NSIG; sig++)
		(void)signal(sig, SIG_DFL);
	sigemptyset(&none);
	(void)sigprocmask(SIG_SETMASK, &none, NULL);
	/* Past limits.cpu SIGXCPU, which the program may see; then KILL. */
	if (lim(RLIMIT_AS, l->memory, l->memory) != 0 ||
	    lim(RLIMIT_CPU, l->cpu, l->cpu + 1) != 0 ||
	    lim(RLIMIT_NOFILE, l->files, l->files) != 0 ||
	    lim(RLIMIT_FSIZE, l->file_size, l->file_size) != 0 ||
	    lim(RLIMIT_CORE, 0, 0) != 0)
		die(SETRLIMIT_FAILED);
	if (sp->uid >= 0 && (uid_t)sp->uid != geteuid()) {
		if (setgroups(0, NULL) != 0 || setgid((gid_t)sp->gid) != 0 ||
		    setuid((uid_t)sp->uid) != 0 || setuid(0) == 0)
			die("cannot switch to the run's user");
		/* Its own /proc files, for the namespace's maps. */
		(void)prctl(PR_SET_DUMPABLE, 1);
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		die("PR_SET_NO_NEW_PRIVS failed");
	ns = pid_namespace(sp) == 0;
	/*
	 * In a namespace of its own the run's processes alone count;
	 * else every process of its user does (machine_threads()).
	 */
	n = ns ? l->processes + 1 : sp->nproc;
	if ((ns || sp->nproc > 0) && lim(RLIMIT_NPROC, n, n) != 0)
		die(SETRLIMIT_FAILED);
	if (ll_restrict(sp) != 0)
		die("Landlock refused the rules");
	if (chdir(sp->x->dir) != 0)
		die("cannot enter the manifest's directory");
	execve(sp->x->argv[0], sp->x->argv, sp->envp);
	die("cannot execute the program");
}

/*
 * The number of threads the machine runs (/proc/loadavg's 4th field's
 * denominator): RLIMIT_NPROC counts every process of the run's user,
 * so "processes" is what a run may add to that.  0 when unknown.
 */
static long
machine_threads(void)
{
	char	 buf[128], *p;
	ssize_t	 n;
	int	 fd;

	if ((fd = open("/proc/loadavg", O_RDONLY | O_CLOEXEC)) == -1)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	if ((p = strchr(buf, '/')) == NULL)
		return 0;
	return strtol(p + 1, NULL, 10);
}

/* Once per process: the worker reaps what runs leave behind. */
static void
subreaper(void)
{
	static int	 done;

	if (!done) {
		(void)prctl(PR_SET_CHILD_SUBREAPER, 1);
		done = 1;
	}
}

/*
 * Start the run: pipes, then fork.  0 with sp->pid and the parent's
 * ends in sp->io[] (stdin, stdout, stderr, fd 3), or -1 (errno).
 */
int
wymcp__spawn(struct wymcp__spawn *sp)
{
	sigset_t	 all, old;
	int		 p[4][2] = {
		{ -1, -1 }, { -1, -1 }, { -1, -1 }, { -1, -1 }
	};
	int		 i, e;

	subreaper();
	/* Unknown (no /proc/loadavg): the worker's limit stays. */
	sp->nproc = machine_threads();
	if (sp->nproc > 0)
		sp->nproc += sp->x->lim.processes;
	sp->abi = wymcp__landlock_abi();
	for (i = 0; i < 4; i++)
		if (pipe2(p[i], O_CLOEXEC) == -1)
			goto fail;
	/* The child's ends: stdin reads, the others write. */
	sp->fd[0] = p[0][0];
	for (i = 1; i < 4; i++)
		sp->fd[i] = p[i][1];
	/*
	 * Every signal held across the fork: the child must not run a
	 * handler of ours (a stop that comes at once, a test harness's
	 * handler that signals its process group) before it has put
	 * each back to its default (child()).
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	if ((sp->pid = fork()) == 0)
		child(sp);
	e = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	errno = e;
	if (sp->pid == -1)
		goto fail;
	sp->io[0] = p[0][1];
	close(p[0][0]);
	for (i = 1; i < 4; i++) {
		sp->io[i] = p[i][0];
		close(p[i][1]);
	}
	for (i = 0; i < 4; i++)
		(void)fcntl(sp->io[i], F_SETFL, O_NONBLOCK);
	sp->pidfd = (int)syscall(SYS_pidfd_open, sp->pid, 0);
	return 0;
fail:
	e = errno;
	for (i = 0; i < 4; i++) {
		if (p[i][0] != -1)
			close(p[i][0]);
		if (p[i][1] != -1)
			close(p[i][1]);
	}
	errno = e;
	return -1;
}

/*
 * Kill with `sig' and reap every child of the worker that is not in
 * its session: what a run left, reparented to the worker (a child
 * subreaper).  1 when there was one.
 */
static int
orphans(pid_t self_sid, int sig)
{
	char		 path[300], buf[4096], *p, *e;
	DIR		*d;
	struct dirent	*de;
	ssize_t		 n;
	pid_t		 pid;
	int		 fd, found = 0;

	if ((d = opendir("/proc/self/task")) == NULL)
		return 0;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children",
		    de->d_name);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			continue;
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		if (n <= 0)
			continue;
		buf[n] = '\0';
		for (p = buf; *p != '\0'; p = e) {
			pid = (pid_t)strtol(p, &e, 10);
			if (e == p)
				break;
			/* The worker's own children keep its session. */
			if (pid <= 0 || getsid(pid) == self_sid)
				continue;
			found = 1;
			(void)kill(-pid, sig);
			(void)kill(pid, sig);
			(void)waitpid(pid, NULL, 0);
		}
	}
	closedir(d);
	return found;
}

/*
 * Wait up to `ms' for the program to end (reaped into sp->status) and
 * its group to be empty (its members that are the worker's children,
 * reparented, reaped): 1 when it is.
 */
static int
group_gone(struct wymcp__spawn *sp, long ms)
{
	struct timespec	 ts = { 0, 5 * 1000 * 1000 };
	siginfo_t	 si;
	long		 waited = 0;

	for (;;) {
		if (!sp->reaped && waitpid(sp->pid, &sp->status, WNOHANG) ==
		    sp->pid)
			sp->reaped = 1;
		if (sp->reaped) {
			for (;;) {
				si.si_pid = 0;
				if (waitid(P_PGID, (id_t)sp->pid, &si,
				    WEXITED | WNOHANG) != 0 || si.si_pid == 0)
					break;
			}
			if (kill(-sp->pid, 0) == -1 && errno == ESRCH)
				return 1;
		}
		if (waited >= ms)
			return 0;
		nanosleep(&ts, NULL);
		waited += 5;
	}
}

/*
 * End the run's processes: the program itself (reaped into
 * sp->status when not yet), its group (SIGTERM, then SIGKILL after the
 * grace), and whatever left the group.  `now': SIGKILL at once.
 */
void
wymcp__spawn_end(struct wymcp__spawn *sp, int now)
{
	pid_t	 self = getsid(0);
	int	 i;

	if (sp->pid <= 0)
		return;
	if (!group_gone(sp, 0)) {
		(void)kill(-sp->pid, now ? SIGKILL : SIGTERM);
		if (!sp->reaped)
			(void)kill(sp->pid, now ? SIGKILL : SIGTERM);
		if (!group_gone(sp, now ? 0 : sp->x->grace_ms)) {
			(void)kill(-sp->pid, SIGKILL);
			if (!sp->reaped)
				(void)kill(sp->pid, SIGKILL);
			(void)group_gone(sp, 5000);
		}
	}
	if (!sp->reaped && waitpid(sp->pid, &sp->status, 0) == sp->pid)
		sp->reaped = 1;
	for (i = 0; i < 64 && orphans(self, SIGKILL); i++)
		;
	for (i = 0; i < 4; i++)
		if (sp->io[i] != -1) {
			close(sp->io[i]);
			sp->io[i] = -1;
		}
	if (sp->pidfd >= 0) {
		close(sp->pidfd);
		sp->pidfd = -1;
	}
}

/* nftw(): make every directory ours to empty (pre-order). */
static int
open_up(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	if (type == FTW_D || type == FTW_DNR)
		(void)chmod(path, 0700);
	return 0;
}

/* nftw(): remove each entry (post-order). */
static int
rm(const char *path, const struct stat *st, int type, struct FTW *f)
{
	(void)st;
	(void)f;
	if (type == FTW_DP)
		(void)rmdir(path);
	else
		(void)unlink(path);
	return 0;
}

/* Remove a run's TMPDIR and all in it (its processes are gone). */
void
wymcp__tmp_remove(const char *dir)
{
	if (rmdir(dir) == 0 || errno == ENOENT)
		return;
	(void)nftw(dir, open_up, 16, FTW_PHYS | FTW_MOUNT);
	(void)nftw(dir, rm, 16, FTW_PHYS | FTW_MOUNT | FTW_DEPTH);
}
