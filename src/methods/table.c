/* table.c - the method table of each era */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include "methods/methods.h"

/*
 * The method table.  Methods removed in 2026-07-28 (initialize, ping,
 * logging/setLevel, resources/subscribe, ...) are simply absent, so
 * they get 404 and -32601 like any unknown method; the legacy era has
 * them (legacy.c).
 */
static const struct wymcp__method methods[] = {
	{ "completion/complete",	NULL,	wymcp__complete },
	{ "prompts/get",		"name",	wymcp__prompts_get },
	{ "prompts/list",		NULL,	wymcp__prompts_list },
	{ "resources/directory/read",	NULL,	wymcp__directory_read },
	{ "resources/list",		NULL,	wymcp__resources_list },
	{ "resources/read",		"uri",	wymcp__resources_read },
	{ "resources/templates/list",	NULL,	wymcp__templates_list },
	{ "server/discover",		NULL,	wymcp__discover },
	{ "skills/get",			NULL,	wymcp__skills_get },
	{ "skills/list",		NULL,	wymcp__skills_list },
	{ "subscriptions/listen",	NULL,	wymcp__subscriptions_listen },
	{ "tasks/cancel",		"taskId", wymcp__tasks_cancel },
	{ "tasks/get",			"taskId", wymcp__tasks_get },
	{ "tasks/update",		"taskId", wymcp__tasks_update },
	{ "tools/call",			"name",	wymcp__tools_call },
	{ "tools/list",			NULL,	wymcp__tools_list },
};

const struct wymcp__method *
wymcp__method_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < sizeof(methods) / sizeof(methods[0]); i++)
		if (strcmp(methods[i].name, name) == 0)
			return &methods[i];
	return NULL;
}

/* The methods only the legacy era has. */
static const struct wymcp__method legacy_methods[] = {
	{ "initialize",			NULL,	wymcp__initialize },
	{ "logging/setLevel",		NULL,	wymcp__set_level },
	{ "ping",			NULL,	wymcp__ping },
	{ "resources/subscribe",	NULL,	wymcp__subscribe },
	{ "resources/unsubscribe",	NULL,	wymcp__subscribe },
};

const struct wymcp__method *
wymcp__legacy_method_find(const char *name)
{
	size_t	 i;

	for (i = 0; i < sizeof(legacy_methods) / sizeof(legacy_methods[0]);
	    i++)
		if (strcmp(legacy_methods[i].name, name) == 0)
			return &legacy_methods[i];
	return NULL;
}
