/*
 * main.c — cordon-launcher.exe: one confined command (launcher.h has the
 * sequence). Started by cordon's Node process with the command's stdio on
 * 0..2, the plan pipe on CRT descriptor 3 and the status pipe on 4.
 *
 * The plan pipe stays open for the whole run and is the stop channel: when
 * it reaches end of file — cordon stops the run (timeout, abort), or
 * cordon's process is gone — the job is terminated, the ACLs are restored
 * and the exit record says so.
 */
#include <windows.h>
#include <io.h>
#include <sddl.h>
#include <stdlib.h>
#include <string.h>
#include "cordon-wire.h"
#include "launcher.h"

struct run {
  HANDLE plan_pipe;
  HANDLE job;
  volatile LONG stopped;
};

/* The stop channel: any return of ReadFile (end of file, a broken pipe, a byte) ends the job. */
static DWORD WINAPI watch_stop(void *arg) {
  struct run *r = arg;
  char b;
  DWORD got;
  ReadFile(r->plan_pipe, &b, 1, &got, NULL);
  InterlockedExchange(&r->stopped, 1);
  TerminateJobObject(r->job, 1);
  return 0;
}

/* A CRT descriptor's handle, kept out of every child (the handle list is the main guard; this is the second). */
static HANDLE crt_handle(int fd) {
  intptr_t h = _get_osfhandle(fd);
  if (h == -1 || h == -2) return NULL;
  SetHandleInformation((HANDLE)h, HANDLE_FLAG_INHERIT, 0);
  return (HANDLE)h;
}

static int fail(HANDLE status, const struct werr *e) {
  status_err(status, e);
  /* A program that was not found is 127, as on Linux and in the shells; every other setup failure 125. */
  int missing = e->code == ERROR_FILE_NOT_FOUND || e->code == ERROR_PATH_NOT_FOUND;
  return !strcmp(e->step, "spawn") && missing ? CORDON_EXIT_NOT_FOUND : CORDON_EXIT_SETUP;
}

/* Confine and start; on failure everything done so far is undone. */
static HANDLE start(const struct wplan *p, PSID sid, struct run *r, struct journal **j, DWORD *pid, int *mitigations, struct werr *e) {
  HANDLE token = NULL, process = NULL;
  acl_sweep(p->journal);
  *j = acl_apply(p, sid, e);
  if (*j && (token = token_make(p, sid, e)) && (r->job = job_make(p, e)))
    process = spawn_confined(p, token, r->job, pid, mitigations, e);
  if (token) CloseHandle(token);
  if (!process && *j) {
    struct werr ignored;
    acl_restore(*j, sid, &ignored);
    *j = NULL;
  }
  return process;
}

static int supervise(struct run *r, HANDLE process, struct journal *j, PSID sid, HANDLE status) {
  DWORD code = 1;
  struct werr restore;
  HANDLE watcher = CreateThread(NULL, 0, watch_stop, r, 0, NULL);
  WaitForSingleObject(process, INFINITE);
  GetExitCodeProcess(process, &code);
  /* What the command left behind in the job ends with it (kill-on-close would do the same as this launcher exits). */
  TerminateJobObject(r->job, code);
  ZeroMemory(&restore, sizeof restore);
  int restored = acl_restore(j, sid, &restore) == 0;
  status_exit(status, code, r->stopped, restored ? NULL : &restore);
  if (watcher) CloseHandle(watcher);
  return (int)code;
}

int main(void) {
  struct wplan p;
  struct werr e;
  struct run r = {0};
  struct journal *j = NULL;
  PSID sid = NULL;
  DWORD pid = 0;
  int mitigations = 0;
  HANDLE status = crt_handle(CORDON_FD_STATUS);
  r.plan_pipe = crt_handle(CORDON_FD_PLAN);
  ZeroMemory(&e, sizeof e);
  if (!status || !r.plan_pipe) return CORDON_EXIT_SETUP;
  if (plan_read(r.plan_pipe, &p, &e)) return fail(status, &e);
  if (!ConvertStringSidToSidW(p.sid, &sid)) return werr_set(&e, "plan", "ConvertStringSidToSidW", GetLastError()), fail(status, &e);
  HANDLE process = start(&p, sid, &r, &j, &pid, &mitigations, &e);
  if (!process) return fail(status, &e);
  status_ok(status, &p, pid, mitigations, r.plan_pipe);
  return supervise(&r, process, j, sid, status);
}
