/* testutil.h: small helpers shared by the Check suites (temporary dirs and files). */
#pragma once
#include <stddef.h>

char *tu_mkdtemp(void); /* malloc'd path of a new temp dir */
char *tu_write(const char *dir, const char *name, const char *content); /* returns malloc'd path */
char *tu_read(const char *path, size_t *len); /* malloc'd, NUL-terminated, NULL if missing */
void tu_rmrf(const char *dir);
