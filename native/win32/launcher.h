/*
 * launcher.h — the Windows launcher's internal contract (native/win32).
 *
 * The launcher is a console program started by cordon's TypeScript side
 * with the command's stdio on 0..2, the plan on CRT descriptor 3 and the
 * status stream on CRT descriptor 4 (libuv hands descriptors above 2 to a
 * child through STARTUPINFO.lpReserved2, which the C runtime turns back
 * into descriptors). It confines one command and supervises it:
 *   plan → sweep stale ACL journals → journal + ACLs → restricted token →
 *   job object → CreateProcessAsUserW (suspended, named handles only,
 *   mitigation policies) → job → resume → wait → restore ACLs → exit record.
 * Wide-character (UTF-16) APIs throughout: the plan arrives as UTF-8.
 */
#ifndef CORDON_WIN32_LAUNCHER_H
#define CORDON_WIN32_LAUNCHER_H

#include <windows.h>

/* A failed step: which, the Win32 call, GetLastError(), and a detail (a path). */
struct werr {
  const char *step;
  const char *call;
  DWORD code;
  char detail[512];
};
int werr_set(struct werr *e, const char *step, const char *call, DWORD code);
int werr_detail(struct werr *e, const WCHAR *detail);

/* A list of UTF-16 strings. */
struct wlist {
  WCHAR **items;
  size_t len;
};

struct wplan {
  WCHAR *app;       /* absolute path of the program (resolved by the TypeScript side) */
  WCHAR *cmdline;   /* the whole command line, quoted for CommandLineToArgvW */
  WCHAR *cwd;
  WCHAR *sid;       /* the per-sandbox capability SID, S-1-15-3-… */
  WCHAR *journal;   /* directory of ACL journals (outside every write root) */
  int low_integrity;
  struct wlist env;       /* NAME=value, sorted */
  struct wlist allow;     /* write roots: the SID may write below them */
  struct wlist deny;      /* protected paths: the SID may not write them or below */
  struct wlist guard;     /* ancestors of protected paths: the SID may not delete or rename them */
  struct wlist noreadup;  /* deny-read paths: medium label, no-read-up (low integrity only) */
  ULONG procs;            /* active processes in the job, 0 = no limit */
  ULONGLONG memory;       /* committed bytes of the whole job, 0 = no limit */
  ULONGLONG cpu_seconds;  /* user-mode CPU time of the whole job, 0 = no limit */
};

/* plan.c */
int plan_read(HANDLE h, struct wplan *p, struct werr *e);
WCHAR *utf8_to_wide(const char *s, size_t n);

/* status.c: one JSON object per line on the status handle. */
/* `plan`: the plan/stop pipe's handle value, reported so a test can check that the command did not inherit it. */
void status_ok(HANDLE h, const struct wplan *p, DWORD pid, int mitigations, HANDLE plan);
void status_err(HANDLE h, const struct werr *e);
void status_exit(HANDLE h, DWORD code, int stopped, const struct werr *restore);

/* acl.c: the sandbox SID's ACEs and the labels of one launch */
struct journal;
struct journal *acl_apply(const struct wplan *p, PSID sid, struct werr *e);
int acl_remove_aces(const WCHAR *path, PSID sid, struct werr *e);
int acl_set_label(const WCHAR *path, const WCHAR *sddl, const char *step, struct werr *e);

/* journal.c: what acl.c changed, undone by this launcher or a later sweep */
struct journal *journal_open(const WCHAR *dir, const WCHAR *sid, struct werr *e);
int journal_line(struct journal *j, const WCHAR *kind, const WCHAR *path, const WCHAR *extra, struct werr *e);
int acl_restore(struct journal *j, PSID sid, struct werr *e);
int acl_sweep(const WCHAR *dir);

/* token.c */
HANDLE token_make(const struct wplan *p, PSID sid, struct werr *e);

/* job.c */
HANDLE job_make(const struct wplan *p, struct werr *e);

/* spawn.c */
HANDLE spawn_confined(const struct wplan *p, HANDLE token, HANDLE job, DWORD *pid, int *mitigations, struct werr *e);

#endif
