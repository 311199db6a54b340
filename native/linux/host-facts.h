/*
 * host-facts.h — reads of the caller's own state that the TypeScript layers
 * repeat on every launch (linux/host-facts.c), the addon side only:
 * native/binding.cc calls them, the launcher does not link them.
 */
#ifndef CORDON_HOST_FACTS_H
#define CORDON_HOST_FACTS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* What lstat(2) says of a path, as profile/paths.ts lstatOrNull reads it. */
enum cordon_path_kind {
  CORDON_PATH_MISSING = 0, /* ENOENT, ENOTDIR, EACCES: the path keeps its written form */
  CORDON_PATH_SYMLINK = 1,
  CORDON_PATH_PRESENT = 2, /* anything that is not a symbolic link */
  CORDON_PATH_ERROR = 3    /* another errno: the caller looks again itself */
};

/* The process environment (environ(7)) as one block: each "NAME=value"
 * entry followed by a NUL, in environ's order. *len gets the block's
 * length. NULL (errno ENOMEM) when it cannot be allocated; free() it. */
char *cordon_environ_block(size_t *len);

/* lstat(2) of one path, classified. */
enum cordon_path_kind cordon_path_kind(const char *path);

#ifdef __cplusplus
}
#endif
#endif
