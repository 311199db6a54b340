/*
 * landlock.c — filesystem, network and scope restrictions with Landlock
 * (landlock(7), Documentation/userspace-api/landlock.rst).
 *
 * Landlock only ever adds rights to a ruleset that handles (denies) a set of
 * access types. The TypeScript side already turned "deny reads below X
 * inside a readable tree" into rules on X's siblings; here every rule is an
 * allow rule on an existing path.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include "landlock-abi.h"
#include "launcher.h"

#define FS_READ (LL_FS_READ_FILE | LL_FS_READ_DIR)
/* Rights that make sense on a non-directory (the kernel refuses the others). */
#define FS_FILE_ONLY (LL_FS_EXECUTE | LL_FS_WRITE_FILE | LL_FS_READ_FILE | LL_FS_TRUNCATE | LL_FS_IOCTL_DEV)

int landlock_abi_version(void) {
  long v = syscall(SYS_landlock_create_ruleset, NULL, 0, LL_CREATE_RULESET_VERSION);
  return v < 0 ? -errno : (int)v;
}

static uint64_t rights_for(unsigned acc, uint64_t handled) {
  uint64_t r = 0;
  if (acc & ACC_READ) r |= FS_READ | LL_FS_EXECUTE;
  if (acc & ACC_EXEC) r |= LL_FS_EXECUTE;
  /* A write root gets everything, REFER included, so renames inside it work. */
  if (acc & ACC_WRITE) r |= handled;
  if (acc & ACC_DEV) r |= LL_FS_READ_FILE | LL_FS_WRITE_FILE | LL_FS_IOCTL_DEV;
  return r & handled;
}

/* The TypeScript side canonicalised every path, so no component may be a
 * symlink now. One that is was planted (or swapped in) by sandboxed code
 * after planning to redirect this rule onto another tree: refuse to follow
 * it anywhere in the path (openat2(2) RESOLVE_NO_SYMLINKS, Linux 5.6; before
 * that, O_NOFOLLOW guards the last component only). */
int cordon_open_no_symlinks(const char *path) {
  struct { uint64_t flags, mode, resolve; } how = {O_PATH | O_CLOEXEC, 0, 0x04 /* RESOLVE_NO_SYMLINKS */};
  int fd = (int)syscall(SYS_openat2, AT_FDCWD, path, &how, sizeof how);
  if (fd < 0 && errno == ENOSYS) fd = open(path, O_PATH | O_CLOEXEC | O_NOFOLLOW);
  return fd;
}

static int add_path_rule(int ruleset, const struct ll_rule *rule, uint64_t handled, struct cordon_err *e) {
  struct ll_path_beneath_attr pb;
  struct stat st;
  int fd = cordon_open_no_symlinks(rule->path);
  if (fd < 0 && errno == ENOENT) return 1;
  if (fd < 0) {
    cordon_err_set(e, "landlock", "openat2", errno);
    snprintf(e->detail, sizeof e->detail, "%s", rule->path);
    return -1;
  }
  if (fstat(fd, &st) < 0) { close(fd); cordon_err_set(e, "landlock", "fstat", errno); return -1; }
  if (S_ISLNK(st.st_mode)) { /* swapped for a symlink after planning: fail closed */
    close(fd);
    cordon_err_set(e, "landlock", "open", ELOOP);
    snprintf(e->detail, sizeof e->detail, "%s", rule->path);
    return -1;
  }
  pb.allowed_access = rights_for(rule->access, handled);
  if (!S_ISDIR(st.st_mode)) pb.allowed_access &= FS_FILE_ONLY;
  pb.parent_fd = fd;
  if (pb.allowed_access && syscall(SYS_landlock_add_rule, ruleset, LL_RULE_PATH_BENEATH, &pb, 0) < 0) {
    cordon_err_set(e, "landlock", "landlock_add_rule", errno);
    snprintf(e->detail, sizeof e->detail, "%s", rule->path);
    close(fd);
    return -1;
  }
  close(fd);
  return 0;
}

/* Every filesystem right the negotiated ABI knows is handled, so nothing is
 * allowed by omission (landlock-abi.c says what each right stops). */
static int create_ruleset(const struct plan *p, const struct cordon_landlock_abi *abi, struct applied *a,
                          struct cordon_err *e) {
  struct ll_ruleset_attr attr = {abi->fs, 0, 0};
  /* TCP bind/connect handled with no port rule = denied (ABI 4). UDP and
   * other families are left to seccomp, which denies the socket() call.
   * With a network proxy both stay handled and add_port_rules() lets
   * connect() through to the proxy's port only: bind() has no rule, so the
   * command cannot listen for a way in either. */
  if (p->ll_network_off || p->n_ll_connect_ports) attr.handled_access_net = abi->net & (LL_NET_BIND_TCP | LL_NET_CONNECT_TCP);
  /* Scopes (ABI 6): no signals to processes outside the sandbox, no connect
   * to abstract unix sockets created outside it (e.g. a host D-Bus). */
  if (p->ll_scope_signal) attr.scoped |= abi->scoped & LL_SCOPE_SIGNAL;
  if (p->ll_scope_abstract_unix) attr.scoped |= abi->scoped & LL_SCOPE_ABSTRACT_UNIX_SOCKET;
  /* Only the fields this ABI reads: older kernels reject a larger struct. */
  int fd = (int)syscall(SYS_landlock_create_ruleset, &attr, (size_t)abi->attr_size, 0);
  if (fd < 0) { cordon_err_set(e, "landlock", "landlock_create_ruleset", errno); return -1; }
  a->fs_handled = attr.handled_access_fs;
  a->net_handled = attr.handled_access_net != 0;
  a->scoped = (unsigned)attr.scoped;
  return fd;
}

/* Landlock (ABI <= 7) matches the port only, not the address: connect to
 * ANY host's port P passes. The proxy listens on loopback; the TypeScript
 * side reports what remains (docs/network.md). A kernel without the network
 * rights (ABI < 4) cannot enforce this at all: fail closed, whatever the
 * compat — the planner already refuses such a plan, this is the second wall. */
static int add_port_rules(int ruleset, const struct plan *p, const struct cordon_landlock_abi *abi, struct cordon_err *e) {
  if (!p->n_ll_connect_ports) return 0;
  if (!(abi->net & LL_NET_CONNECT_TCP)) { cordon_err_set(e, "landlock", "landlock_add_rule", EOPNOTSUPP); return -1; }
  for (size_t i = 0; i < p->n_ll_connect_ports; i++) {
    struct ll_net_port_attr np = {LL_NET_CONNECT_TCP, (uint64_t)p->ll_connect_ports[i]};
    if (syscall(SYS_landlock_add_rule, ruleset, LL_RULE_NET_PORT, &np, 0) < 0) {
      cordon_err_set(e, "landlock", "landlock_add_rule", errno);
      snprintf(e->detail, sizeof e->detail, "TCP port %d", p->ll_connect_ports[i]);
      return -1;
    }
  }
  return 0;
}

static int restrict_self(int ruleset, const struct cordon_landlock_abi *abi, const struct plan *p, struct applied *a,
                         struct cordon_err *e) {
  /* ABI 7: keep logging denials after execve, so the audit log shows what
   * the sandboxed program tried (off by default for the new program). */
  unsigned flags = p->ll_log ? abi->restrict_flags & LL_RESTRICT_SELF_LOG_NEW_EXEC_ON : 0;
  if (syscall(SYS_landlock_restrict_self, ruleset, flags) < 0) {
    cordon_err_set(e, "landlock", "landlock_restrict_self", errno);
    return -1;
  }
  a->log_flags = (int)flags;
  return 0;
}

int step_landlock(const struct plan *p, struct applied *a, struct cordon_err *e) {
  int version, ruleset, rc = 0;
  if (!p->landlock) return 0;
  version = landlock_abi_version();
  if (version <= 0) {
    /* Best-effort runs without Landlock and says so; hard refuses. A
     * network allowlist is never run without it: every TCP connect would
     * bypass the proxy. */
    if (!p->hard && !p->n_ll_connect_ports) return 0;
    cordon_err_set(e, "landlock", "landlock_create_ruleset", -version);
    return -1;
  }
  const struct cordon_landlock_abi *abi = cordon_landlock_rights(version); /* capped at the newest known */
  if ((ruleset = create_ruleset(p, abi, a, e)) < 0) return -1;
  for (size_t i = 0; i < p->n_ll_rules && rc >= 0; i++) {
    rc = add_path_rule(ruleset, &p->ll_rules[i], a->fs_handled, e);
    if (rc == 1) a->skipped_rules++; /* path vanished since planning: fewer rights, never more */
  }
  if (rc >= 0) rc = add_port_rules(ruleset, p, abi, e);
  if (rc >= 0) rc = restrict_self(ruleset, abi, p, a, e);
  close(ruleset);
  if (rc < 0) return -1;
  a->landlock_abi = abi->abi;
  return 0;
}
