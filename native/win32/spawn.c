/*
 * spawn.c — create the command: restricted token, suspended, with only the
 * handles it is meant to have, hardened by mitigation policies, put into
 * the job before its first instruction runs.
 */
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "launcher.h"

/* UTF-16 environment block: NAME=value\0…\0\0 (MSDN, CreateProcess, lpEnvironment). */
static WCHAR *env_block(const struct wlist *env) {
  size_t n = 2;
  for (size_t i = 0; i < env->len; i++) n += wcslen(env->items[i]) + 1;
  WCHAR *b = calloc(n, sizeof(WCHAR)), *at = b;
  for (size_t i = 0; b && i < env->len; i++) {
    size_t len = wcslen(env->items[i]) + 1;
    memcpy(at, env->items[i], len * sizeof(WCHAR));
    at += len;
  }
  return b;
}

/*
 * The command's stdio, made inheritable, deduplicated (stdout and stderr
 * may be one pipe; a duplicate in PROC_THREAD_ATTRIBUTE_HANDLE_LIST is
 * refused). Only these reach the command: the plan/stop pipe and the
 * status pipe, and anything else this launcher inherited from Node, stay
 * behind even though bInheritHandles must be TRUE for the list to apply
 * (MSDN, UpdateProcThreadAttribute, PROC_THREAD_ATTRIBUTE_HANDLE_LIST).
 */
static DWORD stdio_handles(HANDLE out[3], HANDLE std[3]) {
  const DWORD ids[3] = {STD_INPUT_HANDLE, STD_OUTPUT_HANDLE, STD_ERROR_HANDLE};
  DWORD n = 0;
  for (int i = 0; i < 3; i++) {
    HANDLE h = GetStdHandle(ids[i]);
    std[i] = h;
    if (h == NULL || h == INVALID_HANDLE_VALUE || !SetHandleInformation(h, HANDLE_FLAG_INHERIT, HANDLE_FLAG_INHERIT)) continue;
    int seen = 0;
    for (DWORD j = 0; j < n; j++) seen |= out[j] == h;
    if (!seen) out[n++] = h;
  }
  return n;
}

/*
 * Mitigations that cost a command-line tool nothing (MSDN,
 * UpdateProcThreadAttribute, PROC_THREAD_ATTRIBUTE_MITIGATION_POLICY):
 *  - EXTENSION_POINT_DISABLE: no AppInit_DLLs, no legacy IME or winevent
 *    hook DLLs injected into the command;
 *  - STRICT_HANDLE_CHECKS: a bad handle is fatal, not an error code a
 *    handle-guessing exploit can retry on;
 *  - IMAGE_LOAD_NO_REMOTE: no DLL from a network share (a planted UNC path);
 *  - HEAP_TERMINATE: heap corruption ends the process;
 *  - BOTTOM_UP_ASLR + HIGH_ENTROPY_ASLR.
 * Not IMAGE_LOAD_NO_LOW_LABEL: the write roots are labeled low for the
 * launch, and a project's own binaries there must still run. Not
 * CHILD_PROCESS or WIN32K lockdown: build tools spawn children and some
 * use user32.
 */
static DWORD64 mitigation_policy(void) {
  return PROCESS_CREATION_MITIGATION_POLICY_EXTENSION_POINT_DISABLE_ALWAYS_ON |
         PROCESS_CREATION_MITIGATION_POLICY_STRICT_HANDLE_CHECKS_ALWAYS_ON |
         PROCESS_CREATION_MITIGATION_POLICY_IMAGE_LOAD_NO_REMOTE_ALWAYS_ON |
         PROCESS_CREATION_MITIGATION_POLICY_HEAP_TERMINATE_ALWAYS_ON |
         PROCESS_CREATION_MITIGATION_POLICY_BOTTOM_UP_ASLR_ALWAYS_ON |
         PROCESS_CREATION_MITIGATION_POLICY_HIGH_ENTROPY_ASLR_ALWAYS_ON;
}

static LPPROC_THREAD_ATTRIBUTE_LIST attributes(HANDLE *handles, DWORD n, DWORD64 *policy, struct werr *e) {
  SIZE_T size = 0;
  InitializeProcThreadAttributeList(NULL, 2, 0, &size);
  LPPROC_THREAD_ATTRIBUTE_LIST list = malloc(size);
  if (!list || !InitializeProcThreadAttributeList(list, 2, 0, &size)) {
    werr_set(e, "spawn", "InitializeProcThreadAttributeList", GetLastError());
    free(list);
    return NULL;
  }
  if (!UpdateProcThreadAttribute(list, 0, PROC_THREAD_ATTRIBUTE_HANDLE_LIST, handles, n * sizeof(HANDLE), NULL, NULL)) {
    werr_set(e, "spawn", "UpdateProcThreadAttribute(HANDLE_LIST)", GetLastError());
  } else if (!UpdateProcThreadAttribute(list, 0, PROC_THREAD_ATTRIBUTE_MITIGATION_POLICY, policy, sizeof *policy, NULL, NULL)) {
    werr_set(e, "spawn", "UpdateProcThreadAttribute(MITIGATION_POLICY)", GetLastError());
  } else {
    return list;
  }
  DeleteProcThreadAttributeList(list);
  free(list);
  return NULL;
}

/* Into the job, then run: the command never executes an instruction outside the job. */
static int enter_job(PROCESS_INFORMATION *pi, HANDLE job, struct werr *e) {
  if (AssignProcessToJobObject(job, pi->hProcess) && ResumeThread(pi->hThread) != (DWORD)-1) return 0;
  werr_set(e, "job", "AssignProcessToJobObject", GetLastError());
  TerminateProcess(pi->hProcess, 1);
  CloseHandle(pi->hProcess);
  return -1;
}

HANDLE spawn_confined(const struct wplan *p, HANDLE token, HANDLE job, DWORD *pid, int *mitigations, struct werr *e) {
  HANDLE inherit[3], std[3];
  DWORD n = stdio_handles(inherit, std);
  DWORD64 policy = mitigation_policy();
  STARTUPINFOEXW si;
  PROCESS_INFORMATION pi;
  ZeroMemory(&si, sizeof si);
  ZeroMemory(&pi, sizeof pi);
  si.StartupInfo.cb = sizeof si;
  si.StartupInfo.dwFlags = STARTF_USESTDHANDLES;
  si.StartupInfo.hStdInput = std[0];
  si.StartupInfo.hStdOutput = std[1];
  si.StartupInfo.hStdError = std[2];
  si.lpAttributeList = attributes(inherit, n, &policy, e);
  WCHAR *env = env_block(&p->env);
  WCHAR *cmdline = _wcsdup(p->cmdline); /* CreateProcessW may write to lpCommandLine */
  HANDLE process = NULL;
  if (si.lpAttributeList && env && cmdline) {
    DWORD flags = CREATE_SUSPENDED | CREATE_UNICODE_ENVIRONMENT | EXTENDED_STARTUPINFO_PRESENT;
    /* lpApplicationName is the resolved program: no search of the current directory or PATH happens here. */
    if (!CreateProcessAsUserW(token, p->app, cmdline, NULL, NULL, TRUE, flags, env, p->cwd, &si.StartupInfo, &pi)) {
      werr_set(e, "spawn", "CreateProcessAsUserW", GetLastError());
      werr_detail(e, p->app);
    } else if (enter_job(&pi, job, e) == 0) {
      process = pi.hProcess;
      *pid = pi.dwProcessId;
      *mitigations = 1;
    }
    if (pi.hThread) CloseHandle(pi.hThread);
  } else if (si.lpAttributeList) {
    werr_set(e, "spawn", "malloc", ERROR_NOT_ENOUGH_MEMORY);
  }
  if (si.lpAttributeList) DeleteProcThreadAttributeList(si.lpAttributeList);
  free(si.lpAttributeList);
  free(env);
  free(cmdline);
  return process;
}
