/*
 * journal.c — the ACL journal: what a launch changed, so that it can be
 * undone even when the launcher that made the changes is gone.
 *
 * One file per launch, JOURNAL\SID.acl (the state directory cordon chose,
 * outside every write root): a line per change, KIND, PATH, EXTRA separated by tabs, in
 * UTF-8, written and flushed before the change is made (acl.c). The file is
 * held open with no sharing while its launcher lives; the launcher undoes
 * it last line first and deletes it. A journal that can be opened
 * exclusively has no live owner: the next launch's sweep undoes it
 * (docs/windows.md, "Crash safety").
 *   S SID        the sandbox SID (informational)
 *   A PATH       an ACE for the SID was added: remove the SID's ACEs
 *   L PATH SDDL  the label was changed: set SDDL back ("" = none)
 */
#include <windows.h>
#include <sddl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>
#include "launcher.h"

struct journal {
  HANDLE file;
  WCHAR path[MAX_PATH + 64];
};

int journal_line(struct journal *j, const WCHAR *kind, const WCHAR *path, const WCHAR *extra, struct werr *e) {
  if (!extra) extra = L"";
  /* Sized for the line: a write root may be a long path (\\?\ form, up to 32,767 characters). */
  size_t chars = wcslen(kind) + wcslen(path) + wcslen(extra) + 4;
  WCHAR *line = malloc(chars * sizeof(WCHAR));
  char *utf8 = malloc(chars * 3);
  int n = line ? _snwprintf(line, chars, L"%ls\t%ls\t%ls\n", kind, path, extra) : -1;
  int len = n > 0 && utf8 ? WideCharToMultiByte(CP_UTF8, 0, line, n, utf8, (int)(chars * 3), NULL, NULL) : 0;
  DWORD w = 0;
  /* Flushed before the change it describes is made: a crash never leaves a change the journal lacks. */
  BOOL ok = len > 0 && WriteFile(j->file, utf8, (DWORD)len, &w, NULL) && w == (DWORD)len && FlushFileBuffers(j->file);
  DWORD err = GetLastError();
  free(line);
  free(utf8);
  if (!ok) { werr_set(e, "acl", "WriteFile(journal)", len > 0 ? err : ERROR_NOT_ENOUGH_MEMORY); return werr_detail(e, path); }
  return 0;
}

struct journal *journal_open(const WCHAR *dir, const WCHAR *sid, struct werr *e) {
  struct journal *j = calloc(1, sizeof *j);
  if (!j) { werr_set(e, "acl", "calloc", ERROR_NOT_ENOUGH_MEMORY); return NULL; }
  /* A name cut short would be a journal no sweep finds: refused instead. */
  if (_snwprintf(j->path, sizeof j->path / sizeof *j->path - 1, L"%ls\\%ls.acl", dir, sid) < 0) {
    werr_set(e, "acl", "journal path", ERROR_FILENAME_EXCED_RANGE);
    werr_detail(e, dir);
    free(j);
    return NULL;
  }
  CreateDirectoryW(dir, NULL);
  /* Share mode 0: no sweep can open (and undo) it while this launcher lives. */
  j->file = CreateFileW(j->path, GENERIC_READ | GENERIC_WRITE, 0, NULL, CREATE_NEW, FILE_ATTRIBUTE_NORMAL, NULL);
  if (j->file == INVALID_HANDLE_VALUE) {
    werr_set(e, "acl", "CreateFileW(journal)", GetLastError());
    werr_detail(e, j->path);
    free(j);
    return NULL;
  }
  return j;
}

/* The journal's lines, last first, undone one by one; the SID comes from its first line. */
static int undo_text(char *text, PSID sid, struct werr *e) {
  int failed = 0;
  for (char *end = text + strlen(text); end > text;) {
    char *start = end - 1;
    while (start > text && start[-1] != '\n') start--;
    *end = 0;
    if (end > start && end[-1] == '\n') end[-1] = 0;
    WCHAR *w = utf8_to_wide(start, strlen(start));
    WCHAR *path = w ? wcschr(w, L'\t') : NULL, *extra = path ? wcschr(path + 1, L'\t') : NULL;
    if (path && extra) {
      *extra++ = 0;
      path++;
      if (w[0] == L'A' && acl_remove_aces(path, sid, e)) failed = 1;
      if (w[0] == L'L' && acl_set_label(path, extra, "restore", e)) failed = 1;
    }
    free(w);
    end = start;
  }
  return failed ? -1 : 0;
}

static char *read_journal(HANDLE f) {
  LARGE_INTEGER size;
  if (!GetFileSizeEx(f, &size) || size.QuadPart > (64 << 20)) return NULL;
  char *text = calloc((size_t)size.QuadPart + 1, 1);
  DWORD got = 0;
  SetFilePointer(f, 0, NULL, FILE_BEGIN);
  if (text && size.QuadPart && !ReadFile(f, text, (DWORD)size.QuadPart, &got, NULL)) { free(text); return NULL; }
  return text;
}

/* Undo the journal in `f`; delete it when everything was undone. */
static int undo_journal(HANDLE f, const WCHAR *path, PSID sid, struct werr *e) {
  char *text = read_journal(f);
  if (!text) {
    werr_set(e, "restore", "ReadFile(journal)", GetLastError());
    CloseHandle(f);
    return -1;
  }
  int r = undo_text(text, sid, e);
  free(text);
  CloseHandle(f);
  if (r == 0) DeleteFileW(path); /* kept on failure: the next sweep tries again */
  return r;
}

int acl_restore(struct journal *j, PSID sid, struct werr *e) {
  int r = undo_journal(j->file, j->path, sid, e);
  free(j);
  return r;
}

/* A stale journal's SID: the file is named after it. */
static PSID sid_from_name(const WCHAR *name) {
  WCHAR s[256];
  PSID sid = NULL;
  wcsncpy(s, name, 255);
  s[255] = 0;
  WCHAR *dot = wcsrchr(s, L'.');
  if (dot) *dot = 0;
  return ConvertStringSidToSidW(s, &sid) ? sid : NULL;
}

int acl_sweep(const WCHAR *dir) {
  WCHAR pattern[MAX_PATH + 16], path[MAX_PATH + 300];
  WIN32_FIND_DATAW fd;
  int swept = 0;
  _snwprintf(pattern, sizeof pattern / sizeof *pattern - 1, L"%ls\\*.acl", dir);
  pattern[sizeof pattern / sizeof *pattern - 1] = 0;
  HANDLE find = FindFirstFileW(pattern, &fd);
  if (find == INVALID_HANDLE_VALUE) return 0;
  do {
    _snwprintf(path, sizeof path / sizeof *path - 1, L"%ls\\%ls", dir, fd.cFileName);
    path[sizeof path / sizeof *path - 1] = 0;
    /* Opens only when no launcher holds it: its owner died before restoring. */
    HANDLE f = CreateFileW(path, GENERIC_READ, 0, NULL, OPEN_EXISTING, FILE_ATTRIBUTE_NORMAL, NULL);
    PSID sid = f != INVALID_HANDLE_VALUE ? sid_from_name(fd.cFileName) : NULL;
    struct werr ignored;
    if (sid && undo_journal(f, path, sid, &ignored) == 0) swept++;
    if (f != INVALID_HANDLE_VALUE && !sid) CloseHandle(f);
    LocalFree(sid);
  } while (FindNextFileW(find, &fd));
  FindClose(find);
  return swept;
}
