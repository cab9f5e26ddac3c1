/*
 * A profile as one JSON text: the bound on how many values it may hold, parsing it (with
 * duplicate keys refused and the parser's complaint made safe to print) and writing it in
 * the one form apportion writes (indented, keys sorted, reals in their shortest exact
 * form). Private to profiles/.
 */
#ifndef APO_RUNTIME_PROFILES_JSON_TEXT_H
#define APO_RUNTIME_PROFILES_JSON_TEXT_H

#include <jansson.h>
#include <stddef.h>

/* An upper bound on the JSON values of `text`: the ':' and ',' outside strings, plus one.
 * Cheap enough to run before the parser, which is what it protects (APO_PROFILE_VALUES_MAX). */
size_t apo__json_count_values(const char *text, size_t len);

/* Parses the whole text of a profile, or returns NULL with err naming `name` and where the
 * text went wrong. Files and in-memory texts (apo__*_parse) go through here alike. */
json_t *apo__json_parse(const char *name, const char *text, size_t len, char *err, size_t err_size);

/* Serialises a tree: indented, keys sorted, every real in its shortest form that reads back
 * to the same double, and a final newline. Returns a malloc'ed text of *len bytes, or NULL
 * when out of memory. */
char *apo__json_dump(const json_t *root, size_t *len);

#endif
