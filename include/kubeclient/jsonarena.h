/* jsonarena.h: a JSON parser for the hot path (LIST pages, watch events) that builds ordinary,
 * read-only cJSON trees whose nodes and strings live in one arena, freed all at once. */
#pragma once
#include <cjson/cJSON.h>
#include <stddef.h>

typedef struct kc_json_arena kc_json_arena;

/* Parses len bytes of JSON text (not necessarily NUL-terminated) as cJSON_ParseWithLength does:
 * same tree, same types, numbers and strings, whitespace after the value ignored. Returns NULL
 * when the text is not JSON. The tree is read-only: read it with cJSON's accessors, never
 * cJSON_Delete, detach or add to it; it stays valid until kc_json_arena_free(*arena). *arena is
 * set (to be freed) even when parsing fails. */
cJSON *kc_json_parse(const char *text, size_t len, kc_json_arena **arena);
void kc_json_arena_free(kc_json_arena *a); /* NULL is a no-op */
/* The JSON value at the start of text (leading whitespace skipped), whatever follows it: *used is
 * set to the bytes it took (to just after it). NULL when the text holds no whole value there (cut
 * short, or not JSON; an object, array or string is whole only with its closing character, a
 * number at the very end may be cut). As kc_json_parse otherwise (listsplit.c parses a list's
 * objects with it, so each is scanned once). */
cJSON *kc_json_parse_prefix(const char *text, size_t len, kc_json_arena **arena, size_t *used);
/* The same, lean, for objects read by the decoders (velero.h): the value of every member named
 * "fieldsV1" that is an object (metadata.managedFields[].fieldsV1) keeps its members' names only;
 * each of their values that is an object or array is skipped by a scan (balanced brackets, whole
 * strings, bounded nesting; not its grammar) and is an empty one of its kind in the tree. The rest
 * of the tree is kc_json_parse's. */
cJSON *kc_json_parse_lean(const char *text, size_t len, kc_json_arena **arena);
cJSON *kc_json_parse_prefix_lean(const char *text, size_t len, kc_json_arena **arena, size_t *used);
