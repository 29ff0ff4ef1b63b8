/*
 * bus.c - the bus of a back end, for the programs that drive it
 * (wymcp-fcgi's hub and --publish): wymcp_bus_*() of wymcp.h over the
 * bus operations of the object wymcp_backend_load() loaded (pg.so),
 * so that no program includes the back ends' private interface.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>

#include "wymcp.h"
#include "store/backend.h"

struct wymcp_bus {
	const struct wymcp__bus_ops *ops;
	void		*c;		/* the back end's connection */
};

/* The bus operations of the back end `be', or NULL: it carries none. */
static const struct wymcp__bus_ops *
bus_ops(const void *be)
{
	const struct wymcp__backend *b = be;

	return b != NULL ? b->bus : NULL;
}

int
wymcp_backend_has_bus(const void *be)
{
	return bus_ops(be) != NULL;
}

enum wymcp_err
wymcp_bus_publish(const void *be, const char *uri, const char *channel,
    const char *msg, char *err, size_t errlen)
{
	const struct wymcp__bus_ops *ops = bus_ops(be);

	if (ops == NULL || uri == NULL || channel == NULL || msg == NULL) {
		snprintf(err, errlen, "no bus: %s", ops == NULL ?
		    "the back end carries none" : "a NULL argument");
		return WYMCP_ERR_INVAL;
	}
	return ops->publish(uri, channel, msg, err, errlen) == 0 ?
	    WYMCP_OK : WYMCP_ERR_IO;
}

enum wymcp_err
wymcp_bus_start(const void *be, const char *uri, struct wymcp_bus **bus)
{
	const struct wymcp__bus_ops *ops = bus_ops(be);

	*bus = NULL;
	if (ops == NULL || uri == NULL)
		return WYMCP_ERR_INVAL;
	if ((*bus = calloc(1, sizeof(**bus))) == NULL)
		return WYMCP_ERR_NOMEM;
	(*bus)->ops = ops;
	return ops->start(uri, &(*bus)->c) == 0 ? WYMCP_OK : WYMCP_ERR_IO;
}

int
wymcp_bus_poll(struct wymcp_bus *bus)
{
	switch (bus->ops->poll(bus->c)) {
	case WYMCP__BUS_READ:
		return WYMCP_BUS_READ;
	case WYMCP__BUS_WRITE:
		return WYMCP_BUS_WRITE;
	case 0:
		return 0;
	default:
		return -1;
	}
}

int
wymcp_bus_fd(struct wymcp_bus *bus)
{
	return bus != NULL && bus->c != NULL ? bus->ops->fd(bus->c) : -1;
}

int
wymcp_bus_listen(struct wymcp_bus *bus, const char *channel)
{
	return bus->ops->listen(bus->c, channel);
}

int
wymcp_bus_notify(struct wymcp_bus *bus, const char *channel,
    const char *msg)
{
	return bus->ops->notify(bus->c, channel, msg);
}

int
wymcp_bus_flush(struct wymcp_bus *bus)
{
	return bus->ops->flush(bus->c);
}

int
wymcp_bus_input(struct wymcp_bus *bus)
{
	return bus->ops->input(bus->c);
}

int
wymcp_bus_done(struct wymcp_bus *bus)
{
	return bus->ops->done(bus->c);
}

void
wymcp_bus_notified(struct wymcp_bus *bus, wymcp_bus_fn fn, void *arg)
{
	bus->ops->notified(bus->c, fn, arg);
}

int
wymcp_bus_bad(struct wymcp_bus *bus)
{
	return bus->c == NULL || bus->ops->bad(bus->c);
}

const char *
wymcp_bus_error(struct wymcp_bus *bus)
{
	return bus != NULL && bus->c != NULL ? bus->ops->error(bus->c) : "";
}

void
wymcp_bus_close(struct wymcp_bus *bus)
{
	if (bus == NULL)
		return;
	if (bus->c != NULL)
		bus->ops->close(bus->c);
	free(bus);
}
