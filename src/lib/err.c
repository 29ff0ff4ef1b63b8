/* err.c - the sentences of enum wymcp_err */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "lib/lib.h"

static const char *const errs[WYMCP_ERR__MAX] = {
	"success",					/* WYMCP_OK */
	"out of memory",				/* NOMEM */
	"invalid argument",				/* INVAL */
	"the tool failed",				/* TOOL */
	"the client did not declare this capability",	/* NOTSUP */
	"no tool run is open in this thread",		/* NORUN */
	"the schema is not of the required form",	/* SCHEMA */
	"the module could not be loaded",		/* MODULE */
	"the name is already registered",		/* DUP */
	"the request state could not be opened",	/* STATE */
	"input/output error",				/* IO */
	"the question waits for wymcp_input_flush()",	/* PENDING */
	"no such resource",				/* NOTFOUND */
	"the user declined",				/* DECLINED */
	"the user cancelled",				/* CANCELLED */
	"the handler refused",				/* REFUSED */
};

const char *
wymcp_strerror(enum wymcp_err e)
{
	if ((int)e < 0 || e >= WYMCP_ERR__MAX)
		return "unknown error";
	return errs[e];
}
