/*
 * landlock-abi.c — the one table of Landlock rights by ABI version.
 *
 * A ruleset must handle every right the running kernel knows, or an
 * operation it leaves unhandled stays allowed: REFER (ABI 2) unhandled
 * lets a file be renamed out of a read-only tree into a writable one,
 * TRUNCATE (ABI 3) unhandled lets O_TRUNC or truncate(2) empty a file the
 * sandbox may only read, IOCTL_DEV (ABI 5) unhandled leaves device ioctls
 * open. Asking for a right the kernel does not know fails the whole
 * ruleset with EINVAL (landlock_create_ruleset(2)), so the mask must be
 * exactly the kernel's: this table, indexed by the negotiated ABI.
 *
 * Each row repeats the rights of the rows before it (an ABI only ever adds
 * rights), so a row can be read alone. Values: include/uapi/linux/landlock.h;
 * the ABI each right arrived with: landlock(7) and
 * Documentation/userspace-api/landlock.rst, "Previous limitations".
 */
#include <stddef.h>
#include "cordon.h"
#include "landlock-abi.h"

/* ABI 1 (Linux 5.13): execute, read, write, and creating or removing each
 * kind of file. */
#define FS_ABI1                                                                                      \
  (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_READ_DIR | LL_FS_REMOVE_DIR |        \
   LL_FS_REMOVE_FILE | LL_FS_MAKE_CHAR | LL_FS_MAKE_DIR | LL_FS_MAKE_REG | LL_FS_MAKE_SOCK |        \
   LL_FS_MAKE_FIFO | LL_FS_MAKE_BLOCK | LL_FS_MAKE_SYM)
#define FS_ABI2 (FS_ABI1 | LL_FS_REFER)      /* 5.19: rename/link across directories */
#define FS_ABI3 (FS_ABI2 | LL_FS_TRUNCATE)   /* 6.2: truncate(2), O_TRUNC */
#define FS_ABI5 (FS_ABI3 | LL_FS_IOCTL_DEV)  /* 6.10: ioctl(2) on device files */
#define NET_ABI4 (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP)                 /* 6.7 */
#define SCOPE_ABI6 (LL_SCOPE_ABSTRACT_UNIX_SOCKET | LL_SCOPE_SIGNAL)    /* 6.12 */
#define RESTRICT_ABI7                                                   /* 6.15 */ \
  (LL_RESTRICT_SELF_LOG_SAME_EXEC_OFF | LL_RESTRICT_SELF_LOG_NEW_EXEC_ON | LL_RESTRICT_SELF_LOG_SUBDOMAINS_OFF)

/* struct landlock_ruleset_attr grew a field with ABI 4 and with ABI 6; an
 * older kernel refuses a larger struct whose extra bytes are not zero
 * (E2BIG), so the launcher passes the size its ABI reads. */
#define ATTR_FS 8u
#define ATTR_NET 16u
#define ATTR_SCOPED 24u

/* `protection` names what cordon reports missing on a kernel older than the
 * row (src/platform/linux/probe.ts words the reason). ABI 4 has none: the
 * seccomp filter already refuses sockets when the network is off. ABI 7
 * adds logging only. */
static const struct cordon_landlock_abi table[CORDON_LANDLOCK_ABI_KNOWN] = {
  {1, "5.13", FS_ABI1, 0, 0, 0, ATTR_FS, NULL},
  {2, "5.19", FS_ABI2, 0, 0, 0, ATTR_FS, "landlock-refer"},
  {3, "6.2", FS_ABI3, 0, 0, 0, ATTR_FS, "landlock-truncate"},
  {4, "6.7", FS_ABI3, NET_ABI4, 0, 0, ATTR_NET, NULL},
  {5, "6.10", FS_ABI5, NET_ABI4, 0, 0, ATTR_NET, "landlock-ioctl-dev"},
  {6, "6.12", FS_ABI5, NET_ABI4, SCOPE_ABI6, 0, ATTR_SCOPED, "signal-scope"},
  {7, "6.15", FS_ABI5, NET_ABI4, SCOPE_ABI6, RESTRICT_ABI7, ATTR_SCOPED, NULL},
};

const struct cordon_landlock_abi *cordon_landlock_rights(int abi) {
  if (abi < 1) return NULL;
  /* A newer kernel: the newest rights cordon knows, which it accepts too. */
  if (abi > CORDON_LANDLOCK_ABI_KNOWN) abi = CORDON_LANDLOCK_ABI_KNOWN;
  return &table[abi - 1];
}
