/*
 * landlock-abi.h — the Landlock UAPI cordon relies on, spelled out here so
 * the launcher builds against old kernel headers (Debian 12 ships 6.1
 * headers, ABI 3) and still uses every right a newer running kernel offers.
 * Values from include/uapi/linux/landlock.h and landlock(7).
 */
#ifndef CORDON_LANDLOCK_ABI_H
#define CORDON_LANDLOCK_ABI_H
#include <stdint.h>

struct ll_ruleset_attr { uint64_t handled_access_fs, handled_access_net, scoped; };
struct ll_path_beneath_attr { uint64_t allowed_access; int32_t parent_fd; } __attribute__((packed));

#define LL_RULE_PATH_BENEATH 1
#define LL_RULE_NET_PORT 2 /* ABI 4 (6.7) */
/* A TCP port rule: the port in host byte order (landlock(7)); not packed in the UAPI. */
struct ll_net_port_attr { uint64_t allowed_access; uint64_t port; };
#define LL_CREATE_RULESET_VERSION (1U << 0)
#define LL_CREATE_RULESET_ERRATA (1U << 1) /* kernel 6.15 */

/* Filesystem rights. ABI 1 (5.13): bits 0..12. */
#define LL_FS_EXECUTE (1ULL << 0)
#define LL_FS_WRITE_FILE (1ULL << 1)
#define LL_FS_READ_FILE (1ULL << 2)
#define LL_FS_READ_DIR (1ULL << 3)
#define LL_FS_REMOVE_DIR (1ULL << 4)
#define LL_FS_REMOVE_FILE (1ULL << 5)
#define LL_FS_MAKE_CHAR (1ULL << 6)
#define LL_FS_MAKE_DIR (1ULL << 7)
#define LL_FS_MAKE_REG (1ULL << 8)
#define LL_FS_MAKE_SOCK (1ULL << 9)
#define LL_FS_MAKE_FIFO (1ULL << 10)
#define LL_FS_MAKE_BLOCK (1ULL << 11)
#define LL_FS_MAKE_SYM (1ULL << 12)
#define LL_FS_REFER (1ULL << 13)     /* ABI 2 (5.19): rename/link across dirs */
#define LL_FS_TRUNCATE (1ULL << 14)  /* ABI 3 (6.2) */
#define LL_FS_IOCTL_DEV (1ULL << 15) /* ABI 5 (6.10) */

/* Network rights, ABI 4 (6.7). */
#define LL_NET_BIND_TCP (1ULL << 0)
#define LL_NET_CONNECT_TCP (1ULL << 1)

/* Scopes, ABI 6 (6.12). */
#define LL_SCOPE_ABSTRACT_UNIX_SOCKET (1ULL << 0)
#define LL_SCOPE_SIGNAL (1ULL << 1)

/* landlock_restrict_self() flags, ABI 7 (6.15): audit logging of denials. */
#define LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF (1U << 0)
#define LL_RESTRICT_SELF_LOG_NEW_EXEC_ON (1U << 1)
#define LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF (1U << 2)

/* Which of these each ABI knows: the table in landlock-abi.c (cordon.h). */

#endif
