/*
 * word.h - the one splitter of the lists the web server passes
 * (WYMCP_TOOLS, WYMCP_ALLOW_ORIGIN): words are separated by spaces,
 * tabs or commas.  Inline, so that what is not the library (the hub of
 * wymcp-fcgi, which tells which streams a tools/list_changed reaches)
 * splits a mount list exactly as tools/list does.
 */
#ifndef WYMCP_LIB_WORD_H
#define WYMCP_LIB_WORD_H

#include <stddef.h>

/*
 * The next word of the list at *pp: the word, its length in *len, *pp
 * advanced past it; or NULL at the end of the list.
 */
static inline const char *
wymcp__word(const char **pp, size_t *len)
{
	const char	*p = *pp, *e;

	while (*p == ' ' || *p == '\t' || *p == ',')
		p++;
	for (e = p; *e != '\0' && *e != ' ' && *e != '\t' && *e != ','; e++)
		continue;
	*pp = e;
	*len = (size_t)(e - p);
	return e == p ? NULL : p;
}

#endif /* WYMCP_LIB_WORD_H */
