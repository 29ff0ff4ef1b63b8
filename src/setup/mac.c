/*
 * mac.c - messages between the processes of one deployment,
 * authenticated under the state keys (wymcp_server_mac())
 *
 * The MAC is a keyed BLAKE2b of the message, keyed by a BLAKE2b of the
 * state key under the label "wymcp-control-key": a key of its own, so
 * that no MAC made here is one of the relay's (core/seal.c) or a seal.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <string.h>

#include <sodium.h>

#include "setup/setup.h"

#define CONTROL_LABEL	"wymcp-control-key"

static void
control_mac(const struct wymcp__key *k, const char *msg, size_t len,
    unsigned char *mac)
{
	unsigned char	 sub[32];

	crypto_generichash(sub, sizeof(sub),
	    (const unsigned char *)CONTROL_LABEL, strlen(CONTROL_LABEL),
	    k->key, sizeof(k->key));
	crypto_generichash(mac, WYMCP_MAC_LEN, (const unsigned char *)msg,
	    len, sub, sizeof(sub));
	sodium_memzero(sub, sizeof(sub));
}

enum wymcp_err
wymcp_server_mac(const struct wymcp_server *srv, const char *msg,
    size_t len, unsigned char *kid, unsigned char *mac)
{
	if (srv == NULL || srv->nkeys == 0 || (msg == NULL && len > 0) ||
	    kid == NULL || mac == NULL)
		return WYMCP_ERR_INVAL;
	control_mac(&srv->keys[0], msg, len, mac);
	memcpy(kid, srv->keys[0].id, WYMCP_KEY_ID_LEN);
	return WYMCP_OK;
}

int
wymcp_server_mac_check(const struct wymcp_server *srv,
    const unsigned char *kid, const char *msg, size_t len,
    const unsigned char *mac)
{
	unsigned char	 want[WYMCP_MAC_LEN];
	size_t		 i;
	int		 ok = 0;

	if (srv == NULL || kid == NULL || mac == NULL ||
	    (msg == NULL && len > 0))
		return 0;
	for (i = 0; i < srv->nkeys; i++) {
		if (memcmp(srv->keys[i].id, kid, WYMCP_KEY_ID_LEN) != 0)
			continue;
		control_mac(&srv->keys[i], msg, len, want);
		if (sodium_memcmp(want, mac, WYMCP_MAC_LEN) == 0)
			ok = 1;
	}
	sodium_memzero(want, sizeof(want));
	return ok;
}
