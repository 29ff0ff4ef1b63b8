/*
 * spawn.h - one process of an exec tool's run (spawn.c), for exec.c
 */
#ifndef WYMCP_SPAWN_H
#define WYMCP_SPAWN_H

#include "setup/setup.h"

/* A run's process: what the child needs, then the parent's ends. */
struct wymcp__spawn {
	const struct wymcp__exec *x;
	char			**envp;		/* NULL-ended */
	const char		*tmp;		/* its TMPDIR */
	long long		 uid;		/* -1: the worker's */
	long long		 gid;
	long long		 nproc;		/* RLIMIT_NPROC */
	int			 abi;		/* Landlock's, 0: none */
	int			 fd[4];		/* the child's ends */
	int			 io[4];		/* ours: stdin, stdout,
						   stderr, fd 3 */
	int			 pidfd;		/* or -1 */
	pid_t			 pid;
	int			 status;	/* waitpid()'s */
	int			 reaped;
};

int	 wymcp__landlock_abi(void);
int	 wymcp__spawn(struct wymcp__spawn *);
void	 wymcp__spawn_end(struct wymcp__spawn *, int now);
void	 wymcp__tmp_remove(const char *);

#endif /* WYMCP_SPAWN_H */
