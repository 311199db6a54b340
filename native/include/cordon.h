/*
 * cordon.h — the plain C contract between the OS-specific confinement code,
 * the launcher executable and the N-API binding (native/binding.cc).
 *
 * Nothing here depends on Node. Every fallible function fills a
 * `struct cordon_err` (step, syscall, errno) so that the caller can report
 * *which* protection could not be applied instead of a free-text message.
 */
#ifndef CORDON_H
#define CORDON_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct cordon_err {
  const char *step;    /* launcher step, e.g. "landlock" */
  const char *syscall; /* failing call, e.g. "landlock_restrict_self" */
  int err;             /* errno value (0 when the failure is a policy check) */
  char detail[256];    /* optional human detail (a path, a syscall name) */
};

void cordon_err_set(struct cordon_err *e, const char *step, const char *syscall, int err);

/* ---------- probe (what the kernel offers) ---------- */
struct cordon_probe {
  int landlock_abi;     /* highest ABI, or -1 */
  int landlock_errno;   /* why not (ENOSYS: not built, EOPNOTSUPP: disabled at boot) */
  int landlock_errata;  /* errata bitmask (ABI >= 7 kernels), -1 when unknown */
  int seccomp;          /* 1 when seccomp filters can be installed */
  int seccomp_errno;
  int userns;           /* 1 when an unprivileged user+mount namespace works, -1 not tested */
  int userns_errno;
  const char *userns_step; /* "unshare" or "mount" when userns == 0 */
  int max_user_namespaces;            /* -1 unknown */
  int unprivileged_userns_clone;      /* Debian sysctl, -1 when absent */
  int apparmor_restrict_userns;       /* Ubuntu sysctl, -1 when absent */
  int no_new_privs;     /* state of the calling process */
  char kernel[128];     /* uname release */
  char machine[65];
};
/* with_userns: also fork a child to try a user+mount namespace (costs a fork). */
void cordon_probe_run(struct cordon_probe *p, int with_userns);

/* ---------- Landlock rights by ABI (linux/landlock-abi.c) ---------- */
/* One row per Landlock ABI: every right the kernel knows at that ABI (each
 * row includes the rows before it). The launcher handles exactly these
 * rights; the addon exports the table (binding.landlock) so that the
 * TypeScript side reports what an older kernel leaves uncontrolled from the
 * same data. Values: include/uapi/linux/landlock.h, landlock(7). */
struct cordon_landlock_abi {
  int abi;
  const char *kernel;       /* first mainline release with this ABI */
  uint64_t fs;              /* landlock_ruleset_attr.handled_access_fs */
  uint64_t net;             /* .handled_access_net (ABI 4) */
  uint64_t scoped;          /* .scoped (ABI 6) */
  uint32_t restrict_flags;  /* landlock_restrict_self() flags (ABI 7) */
  uint32_t attr_size;       /* bytes of landlock_ruleset_attr this ABI reads */
  const char *protection;   /* what cordon reports missing below this ABI, or NULL */
};
/* The highest ABI in the table. A newer kernel still works: cordon handles
 * the rights it knows and reports the ABI it used. */
#define CORDON_LANDLOCK_ABI_KNOWN 7
/* The row for `abi`, the last row for a newer one, NULL below 1. */
const struct cordon_landlock_abi *cordon_landlock_rights(int abi);

/* ---------- Windows: the OS the addon runs on (win32/probe.c) ---------- */
struct cordon_win32_probe {
  unsigned major, minor, build; /* RtlGetVersion: not rewritten by compatibility shims */
  char wine[64];                /* wine_get_version() when ntdll is Wine's, else "" */
};
void cordon_win32_probe_run(struct cordon_win32_probe *p);

/* ---------- hardening of the calling process ---------- */
struct cordon_hardening {
  int dumpable_off;  /* PR_SET_DUMPABLE 0 applied */
  int core_zero;     /* RLIMIT_CORE 0 applied */
  int scrubbed;      /* number of LD_ / DYLD_ variables removed */
};
int cordon_harden_self(struct cordon_hardening *h, struct cordon_err *e);

/* ---------- seccomp compilation (addon side, libseccomp) ---------- */
enum { CORDON_OP_EQ = 1, CORDON_OP_NE, CORDON_OP_MASKED_EQ, CORDON_OP_GT, CORDON_OP_LT };
struct cordon_sc_arg { unsigned arg; int op; uint64_t mask; uint64_t value; };
struct cordon_sc_rule {
  const char *syscall;
  int kill;   /* 1: kill the process; 0: fail with errno `err` (or notify) */
  int notify; /* 1: ask the listener (SECCOMP_RET_USER_NOTIF): the metadata filter */
  int err;
  struct cordon_sc_arg args[3];
  unsigned nargs;
};
/* Compile rules into a BPF program (struct sock_filter[]); *out is malloc'd. */
int cordon_seccomp_compile(const struct cordon_sc_rule *rules, size_t n, uint8_t **out, size_t *len, struct cordon_err *e);

/* ---------- descriptor passing (linux/fdpass.c, in the addon and the launcher) ---------- */
/* One message with up to 64 descriptors attached (SCM_RIGHTS); 0 or -1 with errno. */
int cordon_send_fds(int sock, const void *msg, size_t len, const int *fds, size_t nfds);

/* ---------- the command's own terminal (addon side of linux/pty.c) ---------- */
/* A new PTY, both ends close-on-exec and above fd 2: fds[0] the master
 * (non-blocking), fds[1] the slave. like >= 0: the slave starts with that
 * terminal's line settings and window size; -1: the kernel's defaults. */
int cordon_pty_open(int like, int fds[2], struct cordon_err *e);
struct cordon_tty {
  unsigned rows, cols; /* window size, 0×0 when the terminal has none */
  int foreground;      /* 1 when this process may set its modes and read it now */
};
/* 0 with *t filled when fd is a terminal; -1 with errno (ENOTTY) otherwise. */
int cordon_tty_info(int fd, struct cordon_tty *t);
/* TIOCSWINSZ: the kernel signals SIGWINCH to the terminal's foreground group. */
int cordon_tty_set_size(int fd, unsigned rows, unsigned cols, struct cordon_err *e);

/* ---------- zygote client (addon side of linux/zygote.c) ---------- */
int cordon_pipe(int fds[2], struct cordon_err *e);
int cordon_seqpacket_pair(int fds[2], struct cordon_err *e);
int cordon_close(int fd, struct cordon_err *e);
/* An O_PATH descriptor for an absolute path reached without following any
 * symlink (ELOOP when one is on the way): a bind source handed to bwrap by
 * descriptor cannot be swapped for a link after cordon checked it. */
int cordon_open_nofollow(const char *path, struct cordon_err *e);
/* A close-on-exec memfd holding `data`, sealed against any change, offset 0. */
int cordon_sealed_memfd(const uint8_t *data, size_t len, struct cordon_err *e);
/* Start `path --zygote` (posix_spawn, empty environment): `req` becomes its
 * fd 3; *events_out is the read end of the pipe that is its fd 4. */
int cordon_spawn_zygote(const char *path, int req, int *pid_out, int *events_out, struct cordon_err *e);
/* waitpid(pid, WNOHANG): 1 when it was collected. */
int cordon_reap(int pid);
/* Send one request with its descriptors and wait (at most timeout_ms) for
 * the int32 reply: a pid, 0, or -errno from the zygote. */
int cordon_zygote_call(int sock, const void *msg, size_t len, const int *fds, size_t nfds, int timeout_ms, int *result,
                       struct cordon_err *e);

#ifdef __cplusplus
}
#endif
#endif
