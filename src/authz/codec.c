/* codec.c - base64url, strict JSON and a growing buffer for wymcp-authz */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <sodium.h>

#include "authz/authz.h"

/* Append len bytes; on failure mark the buffer failed, keep it. */
void
authz_buf_add(struct authz_buf *b, const char *s, size_t len)
{
	size_t	 cap;
	char	*nd;

	if (b->failed)
		return;
	if (b->len + len + 1 > b->cap) {
		cap = b->cap == 0 ? 512 : b->cap;
		while (cap < b->len + len + 1)
			cap *= 2;
		if ((nd = realloc(b->data, cap)) == NULL) {
			b->failed = 1;
			return;
		}
		b->data = nd;
		b->cap = cap;
	}
	memcpy(b->data + b->len, s, len);
	b->len += len;
	b->data[b->len] = '\0';
}

void
authz_buf_str(struct authz_buf *b, const char *s)
{
	authz_buf_add(b, s, strlen(s));
}

void
authz_buf_printf(struct authz_buf *b, const char *fmt, ...)
{
	va_list	 ap;
	char	 small[256], *big;
	int	 n;

	va_start(ap, fmt);
	n = vsnprintf(small, sizeof(small), fmt, ap);
	va_end(ap);
	if (n < 0) {
		b->failed = 1;
		return;
	}
	if ((size_t)n < sizeof(small)) {
		authz_buf_add(b, small, (size_t)n);
		return;
	}
	if ((big = malloc((size_t)n + 1)) == NULL) {
		b->failed = 1;
		return;
	}
	va_start(ap, fmt);
	(void)vsnprintf(big, (size_t)n + 1, fmt, ap);
	va_end(ap);
	authz_buf_add(b, big, (size_t)n);
	free(big);
}

void
authz_buf_free(struct authz_buf *b)
{
	free(b->data);
	memset(b, 0, sizeof(*b));
}

/*
 * Decode unpadded base64url (RFC 7515 section 2, "Base64url Encoding":
 * no padding, no line breaks, no other characters).  Returns a
 * malloc(3)ed buffer of *len bytes plus a NUL, or NULL when `s` is not
 * exactly that encoding (or out of memory).  Caller frees.
 */
unsigned char *
authz_b64url(const char *s, size_t slen, size_t *len)
{
	unsigned char	*bin;
	const char	*end;
	size_t		 max = slen / 4 * 3 + 3;

	if ((bin = malloc(max + 1)) == NULL)
		return NULL;
	if (sodium_base642bin(bin, max, s, slen, NULL, len, &end,
	    sodium_base64_VARIANT_URLSAFE_NO_PADDING) != 0 ||
	    end != s + slen) {
		free(bin);
		return NULL;
	}
	bin[*len] = '\0';
	return bin;
}

/*
 * Parse exactly `len` bytes as one JSON value (RFC 8259, json-c's
 * strict mode): no NUL byte, nothing after the value, at most
 * AUTHZ_JSON_DEPTH levels.  A duplicate member keeps its last value,
 * as RFC 7515 section 4 allows.  Caller puts the object; NULL when it
 * is not JSON.
 */
struct json_object *
authz_json(const unsigned char *buf, size_t len)
{
	struct json_tokener	*tok;
	struct json_object	*o;

	if (len == 0 || len > AUTHZ_JWKS_MAX || memchr(buf, '\0', len))
		return NULL;
	if ((tok = json_tokener_new_ex(AUTHZ_JSON_DEPTH)) == NULL)
		return NULL;
	json_tokener_set_flags(tok, JSON_TOKENER_STRICT);
	o = json_tokener_parse_ex(tok, (const char *)buf, (int)len);
	if (o != NULL && (json_tokener_get_error(tok) != json_tokener_success
	    || json_tokener_get_parse_end(tok) != len)) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	return o;
}

/* Is `word` one of the space-separated words of `list`? */
int
authz_words_has(const char *list, const char *word)
{
	size_t	 n = strlen(word), k;

	if (n == 0)
		return 0;
	while (*list != '\0') {
		while (*list == ' ')
			list++;
		for (k = 0; list[k] != '\0' && list[k] != ' '; k++)
			continue;
		if (k == n && strncmp(list, word, n) == 0)
			return 1;
		list += k;
	}
	return 0;
}
