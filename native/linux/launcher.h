/*
 * launcher.h — internal contract of the Linux launcher executable.
 *
 * The launcher is exec'd fresh by the TypeScript side (never forked from
 * Node) — once per command, or once per caller as a zygote that forks a
 * fresh single-threaded copy of itself per command (main.c) —, reads one
 * validated plan as JSON from a dedicated fd, applies the confinement steps
 * in a fixed order and execve()s the command. Doing the
 * work in a fresh single-threaded process means none of the restrictions
 * after fork() in a multi-threaded parent apply (see signal-safety(7)).
 */
#ifndef CORDON_LAUNCHER_H
#define CORDON_LAUNCHER_H

#include <stddef.h>
#include <stdint.h>
#include "cordon.h"

/* ---------- a tiny JSON DOM (json.c) ---------- */
enum json_type { J_NULL, J_BOOL, J_NUM, J_STR, J_ARR, J_OBJ };
struct json {
  enum json_type type;
  double num;
  int boolean;
  char *str;              /* J_STR */
  char *key;              /* set when this value is an object member */
  struct json *child;     /* first element / member */
  struct json *next;      /* next sibling */
};
struct json *json_parse(const char *text, size_t len, const char **error_at);
const struct json *json_get(const struct json *obj, const char *key);
size_t json_len(const struct json *arr);

/* ---------- the plan (plan.c) ---------- */
enum cordon_access { ACC_READ = 1, ACC_WRITE = 2, ACC_DEV = 4, ACC_EXEC = 8 };

struct ll_rule { const char *path; unsigned access; };

struct rlim { int resource; uint64_t soft, hard; };

struct plan {
  char **argv;
  char **envp;
  const char *cwd;
  int keep_fds[16]; size_t n_keep;
  int hard;                         /* compat: hard refuses partial enforcement */
  struct rlim rlimits[8]; size_t n_rlimits;
  int landlock;                     /* apply Landlock at all */
  struct ll_rule *ll_rules; size_t n_ll_rules;
  int ll_network_off;               /* handle TCP bind/connect with no rule */
  int ll_connect_ports[4]; size_t n_ll_connect_ports; /* network proxy: TCP connect only to these ports, bind none */
  int ll_scope_signal, ll_scope_abstract_unix;
  int ll_log;                       /* ABI >= 7: log denials after execve */
  int seccomp;
  uint8_t *sc_bpf; size_t sc_len;   /* compiled BPF program (struct sock_filter[]) */
  int sc_count;                     /* rules it was compiled from, for the report */
  int metadata;                     /* Landlock mode: the metadata filter (metadata.h) */
  uint8_t *md_bpf; size_t md_len;   /* its program, SECCOMP_RET_USER_NOTIF for each syscall */
  int md_count;
  int ctty;                         /* fd of cordon's PTY to make the command's controlling terminal, or -1 */
  int fwd_port;                     /* namespace mode + network allowlist: forwarder port (0: none) */
  const char *fwd_socket;           /* ... and the proxy's unix socket inside the sandbox */
  uint8_t *fwd_bpf; size_t fwd_len; /* ... and its own seccomp program (absent without seccomp) */
  int fwd_count;
};
int plan_from_json(const struct json *root, struct plan *p, struct cordon_err *e);

/* ---------- what was actually applied, reported to the parent ---------- */
struct applied {
  int landlock_abi;         /* negotiated, 0 when not applied */
  uint64_t fs_handled;      /* Landlock filesystem rights handled */
  int net_handled;          /* TCP bind/connect denied by Landlock */
  unsigned scoped;          /* LANDLOCK_SCOPE_* applied */
  int log_flags;            /* restrict_self flags used */
  int seccomp_rules;        /* rules in the loaded program, -1 when seccomp off */
  int no_new_privs;
  int caps_dropped;         /* eff/perm/inh/ambient empty (verified) */
  int bounding_dropped;     /* bounding set emptied (needs CAP_SETPCAP) */
  int skipped_rules;        /* Landlock rules skipped: path vanished */
  int metadata;             /* 1 supervisor decides, 0 refused outright (no listener), -1 not planned */
};

/* ---------- steps (one file each) ---------- */
int step_setsid(struct cordon_err *e);
int step_parent_death(struct cordon_err *e);
int step_close_fds(const struct plan *p, int status_fd, struct cordon_err *e);
/* close every fd in [lo, hi]: close_range(2), or one by one before Linux 5.9 */
int cordon_close_from(int lo, int hi);
int step_rlimits(const struct plan *p, struct cordon_err *e);
int step_drop_caps(struct applied *a, struct cordon_err *e);
int step_no_new_privs(struct applied *a, struct cordon_err *e);
int step_landlock(const struct plan *p, struct applied *a, struct cordon_err *e);
int step_seccomp(const struct plan *p, struct applied *a, struct cordon_err *e);
/* seccomp.c: load a compiled program (the command's, or the forwarder's) */
int cordon_seccomp_load(const uint8_t *bpf, size_t len, const char *step, struct cordon_err *e);
/* metadata-filter.c: before step_seccomp (whose filter refuses NEW_LISTENER) */
int step_metadata(const struct plan *p, int listener_sock, struct applied *a, struct cordon_err *e);
int step_exec(const struct plan *p, struct cordon_err *e);
/* pty.c: in the command's process, a session of its own with the PTY as controlling terminal */
int step_ctty(const struct plan *p, struct cordon_err *e);
int step_supervise(const struct plan *p, int status_fd, struct applied *a, struct cordon_err *e);

/* forwarder.c: 127.0.0.1:PORT in the sandbox's network namespace → the proxy's unix socket */
int cordon_forwarder_listen(int port, struct cordon_err *e);
int cordon_forwarder_start(int lfd, const struct plan *p, struct cordon_err *e);
/* forwarder-serve.c: in the confined forwarder, relay every connection on `lfd` to the unix socket `path` */
void cordon_forwarder_serve(int lfd, const char *path);

/* The running kernel's Landlock ABI, or -errno (landlock.c). */
int landlock_abi_version(void);
/* An O_PATH fd on a canonical absolute path, refusing any symlink on the way (landlock.c). */
int cordon_open_no_symlinks(const char *path);

/* launcher.c: one confined command on an open plan fd and status fd (from
 * main.c, or in a child of the zygote). Returns only on failure, with the
 * exit status to use. */
int launcher_run(int plan_fd, int status_fd);

/* status.c: one JSON line on the close-on-exec status fd */
void status_write_ok(int fd, const struct applied *a);
void status_write_err(int fd, const struct cordon_err *e);
void status_write_exit(int fd, int wait_status);

#endif
