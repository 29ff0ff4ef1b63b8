/*
 * task.c - a task row's memory and size: the helpers that the library
 * and every back-end object (backend.h) share
 *
 * Linked into libwymcp and, a copy of its own, into each back end, so
 * that a back end calls nothing of the library.  It calls nothing.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdlib.h>
#include <string.h>

#include "store/backend.h"

void
wymcp__task_clear(struct wymcp__task *t)
{
	free(t->principal);
	free(t->tool);
	free(t->args);
	free(t->context);
	free(t->answers);
	free(t->pending);
	free(t->result);
	free(t->error);
	free(t->message);
	memset(t, 0, sizeof(*t));
}

/* strlen(3), 0 for NULL. */
static long long
len0(const char *s)
{
	return s != NULL ? (long long)strlen(s) : 0;
}

/*
 * The bytes task `t' holds in the store, as the quotas count them
 * (struct wymcp__quota): its JSON and text columns.
 */
long long
wymcp__task_bytes(const struct wymcp__task *t)
{
	return len0(t->args) + len0(t->context) + len0(t->answers) +
	    len0(t->pending) + len0(t->result) + len0(t->error) +
	    len0(t->message);
}
