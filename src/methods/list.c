/*
 * list.c - pagination and cache hints shared by the list methods
 *
 * MCP 2026-07-28 server/utilities/pagination.mdx: tools/list,
 * resources/list, resources/templates/list and prompts/list answer one
 * page at a time; a page that is not the last carries nextCursor, an
 * opaque string the client sends back as params.cursor.
 *
 * The cursor is base64url (no padding) of the text
 *
 *	"1:<kind>:<offset>:<id>"
 *
 * where 1 is the format version, <kind> the list ("tools", "resources",
 * "resourceTemplates", "prompts"), <offset> the decimal index of the
 * page's first entry and <id> 16 hexadecimal digits of a BLAKE2b digest
 * of the list's identity: its kind, its length and the digest of every
 * entry's listing object, in order (for tools/list, the mount list of
 * the request).  Nothing is kept between requests, so any worker of any
 * host serving the same modules accepts the cursor; a cursor from
 * another deployment, another mount list or another list, or one that
 * was altered, is refused with -32602 "Invalid cursor".  The cursor is
 * not sealed: it only names a position in a list the client may read
 * anyway, so forging one gains nothing.
 *
 * The empty string is a valid cursor value in the protocol, but only
 * one the server issued means anything; wymcp never issues "", so it is
 * refused like any other unknown cursor.  A JSON null cursor is read as
 * no cursor (the first page), since some clients send absent optional
 * members as null.
 *
 * Cache hints (server/utilities/caching.mdx): every page carries ttlMs
 * and cacheScope.  The caller computes both once for the whole list
 * (the smallest ttl of the modules whose entries the list holds,
 * private if any of them is), so all pages of a list have the same
 * scope, as the specification requires.
 */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "methods/methods.h"

#define CURSOR_VERSION	1
#define CURSOR_MAX	256	/* longest cursor accepted, in characters */
#define TTL_MAX		INT64_C(9007199254740991)	/* 2^53 - 1 */

/* Add ttlMs and cacheScope to a cacheable result. */
void
wymcp__cache_hints_ttl(struct json_object *result, int64_t ttl, int private)
{
	json_object_object_add(result, "ttlMs", json_object_new_int64(ttl));
	json_object_object_add(result, "cacheScope",
	    json_object_new_string(private ? "private" : "public"));
}

/* The list's identity as 16 hex digits (17 bytes with the NUL). */
static void
list_id(const struct wymcp__list *l, char *hex)
{
	crypto_generichash_state st;
	struct json_object	*listing;
	const unsigned char	*d;
	unsigned char		 h[8];
	char			 n[32];
	size_t			 i;

	crypto_generichash_init(&st, NULL, 0, sizeof(h));
	crypto_generichash_update(&st, (const unsigned char *)l->kind,
	    strlen(l->kind) + 1);
	snprintf(n, sizeof(n), "%zu", l->n);
	crypto_generichash_update(&st, (const unsigned char *)n,
	    strlen(n) + 1);
	if (l->id != NULL)
		crypto_generichash_update(&st, l->id, 32);
	else
		for (i = 0; i < l->n; i++) {
			l->at(l->arg, i, &listing, &d);
			crypto_generichash_update(&st, d, 32);
		}
	crypto_generichash_final(&st, h, sizeof(h));
	sodium_bin2hex(hex, 17, h, sizeof(h));
}

/* The cursor for the page starting at `off`; arena-owned or NULL. */
static const char *
cursor_make(struct wymcp_ctx *ctx, const struct wymcp__list *l,
    const char *id, size_t off)
{
	char	*text, *tok;
	size_t	 len, toklen;

	if ((text = wymcp_printf(ctx, "%d:%s:%zu:%s", CURSOR_VERSION,
	    l->kind, off, id)) == NULL)
		return NULL;
	len = strlen(text);
	toklen = sodium_base64_encoded_len(len,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING);
	if ((tok = wymcp_alloc(ctx, toklen)) == NULL)
		return NULL;
	return sodium_bin2base64(tok, toklen, (const unsigned char *)text,
	    len, sodium_base64_VARIANT_URLSAFE_NO_PADDING);
}

/*
 * Read a cursor back: 1 with *off, 0 when it is not one this list
 * issued, -1 when out of memory.  The decoded text must be exactly what
 * cursor_make() writes for that offset, so no other spelling of a
 * number (sign, leading zeros, white space) is taken.
 */
static int
cursor_read(struct wymcp_ctx *ctx, const struct wymcp__list *l,
    const char *id, const char *tok, size_t *off)
{
	unsigned char	*bin;
	const char	*want;
	size_t		 toklen = strlen(tok), binlen;
	unsigned long long v;
	char		*end, prefix[64];
	int		 plen;

	if (toklen == 0 || toklen > CURSOR_MAX)
		return 0;
	if ((bin = wymcp_alloc(ctx, toklen + 1)) == NULL)
		return -1;
	if (sodium_base642bin(bin, toklen, tok, toklen, NULL, &binlen, NULL,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0)
		return 0;
	bin[binlen] = '\0';
	if (strlen((char *)bin) != binlen)
		return 0;
	plen = snprintf(prefix, sizeof(prefix), "%d:%s:", CURSOR_VERSION,
	    l->kind);
	if (plen < 0 || (size_t)plen >= sizeof(prefix) ||
	    strncmp((char *)bin, prefix, (size_t)plen) != 0)
		return 0;
	if (bin[plen] < '1' || bin[plen] > '9')
		return 0;
	v = strtoull((char *)bin + plen, &end, 10);
	if (*end != ':' || v >= l->n)
		return 0;
	*off = (size_t)v;
	if ((want = wymcp_printf(ctx, "%d:%s:%zu:%s", CURSOR_VERSION,
	    l->kind, *off, id)) == NULL)
		return -1;
	return strcmp(want, (char *)bin) == 0;
}

/*
 * Answer a list request with the page params.cursor names (the first
 * page without one): {resultType, <kind>: [...], nextCursor?, ttlMs,
 * cacheScope}.  Listing objects are shared, never copied.
 */
void
wymcp__list_reply(struct wymcp_ctx *ctx, struct wymcp__reply *r,
    const struct wymcp__list *l)
{
	struct json_object	*cur = NULL, *res, *arr, *listing;
	const unsigned char	*d;
	const char		*next;
	char			 id[17];
	size_t			 off = 0, end, ps, i;
	int			 ok;

	ps = ctx->srv->page_size > 0 ? ctx->srv->page_size :
	    WYMCP_PAGE_SIZE_DEFAULT;
	if (sodium_init() < 0)
		goto nomem;
	list_id(l, id);
	if (json_object_object_get_ex(ctx->req.params, "cursor", &cur) &&
	    cur != NULL) {
		ok = json_object_is_type(cur, json_type_string) ?
		    cursor_read(ctx, l, id, json_object_get_string(cur),
		    &off) : 0;
		if (ok < 0)
			goto nomem;
		if (ok == 0) {
			wymcp__reply_error(ctx, r, 200, WYMCP__INVALID_PARAMS,
			    "Invalid cursor", NULL);
			return;
		}
	}
	end = l->n - off > ps ? off + ps : l->n;
	if ((res = wymcp__result_object()) == NULL)
		goto nomem;
	/* At least 1: malloc(0) may return NULL. */
	if ((arr = json_object_new_array_ext(end > off ? (int)(end - off) :
	    1)) == NULL ||
	    json_object_object_add(res, l->kind, arr)) {
		json_object_put(arr);
		json_object_put(res);
		goto nomem;
	}
	for (i = off; i < end; i++) {
		l->at(l->arg, i, &listing, &d);
		if (json_object_array_add(arr, json_object_get(listing))) {
			json_object_put(listing);
			json_object_put(res);
			goto nomem;
		}
	}
	if (end < l->n) {
		if ((next = cursor_make(ctx, l, id, end)) == NULL) {
			json_object_put(res);
			goto nomem;
		}
		json_object_object_add(res, "nextCursor",
		    json_object_new_string(next));
	}
	wymcp__cache_hints_ttl(res, l->ttl, l->private);
	wymcp__reply_result(ctx, r, res);
	return;
nomem:
	wymcp__reply_nomem(ctx, r);
}
