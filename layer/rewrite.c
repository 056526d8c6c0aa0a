/*
 * The layer's source rewriting: which built-ins a program uses, and the kernels of a program
 * that uses cl_intel_concurrent_dispatch's given a hidden last parameter and a prologue
 * (device/opencl/wgs_layer.cl). Every insertion stays on its line, so the build log and
 * __LINE__ (the sites a checked build names) count the user's lines.
 *
 * The scan is lexical: comments, string and character literals and preprocessor lines are
 * skipped; a kernel is `kernel` or `__kernel`, then identifiers and __attribute__((...)) groups
 * that include `void`, then the name and its parenthesised parameters. Kernels that a macro
 * produces are not seen (layer/README in docs/layer.md says so).
 */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "layer_internal.h"

static int ident_start(char c) { return isalpha((unsigned char)c) || c == '_'; }
static int ident_char(char c) { return isalnum((unsigned char)c) || c == '_'; }

/* Skips one comment or literal at s[i] and returns the index after it, or i if none starts
 * there. */
static size_t skip_noise(const char *s, size_t n, size_t i)
{
  if (i + 1 < n && s[i] == '/' && s[i + 1] == '/') {
    while (i < n && s[i] != '\n')
      i++;
    return i;
  }
  if (i + 1 < n && s[i] == '/' && s[i + 1] == '*') {
    i += 2;
    while (i + 1 < n && !(s[i] == '*' && s[i + 1] == '/'))
      i++;
    return i + 2 <= n ? i + 2 : n;
  }
  if (s[i] == '"' || s[i] == '\'') {
    char q = s[i++];
    while (i < n && s[i] != q && s[i] != '\n')
      i += s[i] == '\\' && i + 1 < n ? 2 : 1;
    return i < n ? i + 1 : n;
  }
  return i;
}

/* Whitespace and comments. */
static size_t skip_space(const char *s, size_t n, size_t i)
{
  for (;;) {
    while (i < n && isspace((unsigned char)s[i]))
      i++;
    if (i + 1 < n && s[i] == '/' && (s[i + 1] == '/' || s[i + 1] == '*'))
      i = skip_noise(s, n, i);
    else
      return i;
  }
}

/* s[i] is '(': the index of its matching ')', or n. */
static size_t match_paren(const char *s, size_t n, size_t i)
{
  int depth = 0;
  while (i < n) {
    size_t j = skip_noise(s, n, i);
    if (j != i) {
      i = j;
      continue;
    }
    if (s[i] == '(')
      depth++;
    else if (s[i] == ')' && --depth == 0)
      return i;
    i++;
  }
  return n;
}

int wgs__layer_mentions(const char *src, size_t n, const char *word)
{
  size_t w = strlen(word);
  for (size_t i = 0; i + w <= n; i++) {
    size_t j = skip_noise(src, n, i);
    if (j != i) {
      i = j - 1;
      continue;
    }
    if (memcmp(src + i, word, w) == 0 && (i == 0 || !ident_char(src[i - 1])) &&
        (i + w == n || !ident_char(src[i + w])))
      return 1;
  }
  return 0;
}

typedef struct {
  size_t at;        /* insert before this index */
  size_t cut;       /* characters replaced from there (an empty or void parameter list) */
  const char *text;
  char *owned;      /* text, when it was made for this edit */
} edit;

/* s[b..e) as blanks, its line breaks kept (malloc'd). */
static char *blanks(const char *s, size_t b, size_t e)
{
  char *t = malloc(e - b + 1);
  if (t) {
    for (size_t i = b; i < e; i++)
      t[i - b] = s[i] == '\n' ? '\n' : ' ';
    t[e - b] = '\0';
  }
  return t;
}

/* From just after a `kernel` keyword at i: the kernel's parameter list and body. Fills the
 * edits (at most 2) and returns how many, 0 if what follows is not a kernel definition or
 * declaration. */
static int parse_kernel(const char *s, size_t n, size_t i, const char *prologue, edit *e)
{
  int saw_void = 0, have_name = 0;
  for (;;) {
    i = skip_space(s, n, i);
    if (i >= n)
      return 0;
    if (ident_start(s[i])) {
      size_t b = i;
      while (i < n && ident_char(s[i]))
        i++;
      if (i - b == 13 && memcmp(s + b, "__attribute__", 13) == 0) {
        i = skip_space(s, n, i);
        if (i >= n || s[i] != '(')
          return 0;
        i = match_paren(s, n, i) + 1;
        continue;
      }
      if (i - b == 4 && memcmp(s + b, "void", 4) == 0)
        saw_void = 1;
      have_name = 1;
      continue;
    }
    if (s[i] == '(' && have_name && saw_void)
      break;
    return 0; /* `kernel` used as a name, or something this scan does not follow */
  }
  size_t open = i, close = match_paren(s, n, i);
  if (close >= n)
    return 0;
  size_t p = skip_space(s, n, open + 1);
  int empty = p == close;
  if (!empty && close - p >= 4 && memcmp(s + p, "void", 4) == 0 &&
      skip_space(s, n, p + 4) == close)
    empty = 1;
  int k = 0;
  if (empty)
    e[k++] = (edit){open + 1, close - (open + 1), "__global uint *wgs__layer_state", NULL};
  else
    e[k++] = (edit){close, 0, ", __global uint *wgs__layer_state", NULL};
  size_t b = close + 1;
  for (;;) { /* attributes after the parameters */
    b = skip_space(s, n, b);
    if (b + 13 <= n && memcmp(s + b, "__attribute__", 13) == 0) {
      b = skip_space(s, n, b + 13);
      if (b >= n || s[b] != '(')
        return 0;
      b = match_paren(s, n, b) + 1;
      continue;
    }
    break;
  }
  if (b < n && s[b] == '{' && prologue)
    e[k++] = (edit){b + 1, 0, prologue, NULL};
  return k;
}

/* At file scope, s[i..) after the name of a built-in: the end of its prototype (after the ';'),
 * or 0 when it is not one. */
static size_t prototype_end(const char *s, size_t n, size_t i)
{
  i = skip_space(s, n, i);
  if (i >= n || s[i] != '(')
    return 0;
  i = skip_space(s, n, match_paren(s, n, i) + 1);
  return i < n && s[i] == ';' ? i + 1 : 0;
}

/* A `#pragma OPENCL EXTENSION cl_intel_split_work_group_barrier` or `cl_intel_concurrent_dispatch`
 * line (s[0] is its '#'). */
static int extension_pragma(const char *s, size_t n)
{
  static const char *const words[] = {"#", "pragma", "OPENCL", "EXTENSION"};
  size_t i = 0;
  for (int w = 0; w < 4; w++) {
    while (i < n && (s[i] == ' ' || s[i] == '\t'))
      i++;
    size_t l = strlen(words[w]);
    if (i + l > n || memcmp(s + i, words[w], l) != 0)
      return 0;
    i += l;
  }
  while (i < n && (s[i] == ' ' || s[i] == '\t'))
    i++;
  size_t b = i;
  while (i < n && ident_char(s[i]))
    i++;
  return (i - b == 33 && memcmp(s + b, "cl_intel_split_work_group_barrier", 33) == 0) ||
         (i - b == 28 && memcmp(s + b, "cl_intel_concurrent_dispatch", 28) == 0);
}

static void free_edits(edit *edits, size_t count)
{
  for (size_t m = 0; m < count; m++)
    free(edits[m].owned);
  free(edits);
}

/* Every kernel function gets the hidden parameter (hidden != 0) and the prologue (if any). With
 * the hidden parameter, prototypes of the device barrier's built-ins (which a program declares
 * where a compiler lacks them: Intel's CPU runtime) are blanked out: the glue defines them. */
/* Room for 2 more edits after count: 1, or 0 with the edits freed (out of memory). */
static int room(edit **edits, size_t *cap, size_t count)
{
  if (count + 2 <= *cap)
    return 1;
  edit *more = realloc(*edits, 2 * *cap * sizeof *more);
  if (!more) {
    free_edits(*edits, count);
    return 0;
  }
  *edits = more;
  *cap *= 2;
  return 1;
}

char *wgs__layer_rewrite(const char *src, size_t n, int hidden, const char *prologue,
                         unsigned *kernels)
{
  size_t cap = 16, count = 0;
  edit *edits = malloc(cap * sizeof *edits);
  if (!edits)
    return NULL;
  *kernels = 0;
  int line_start = 1, depth = 0;
  size_t stmt = 0; /* where the current file-scope declaration began */
  for (size_t i = 0; i < n;) {
    size_t j = skip_noise(src, n, i);
    if (j != i) {
      i = j;
      continue;
    }
    char c = src[i];
    if (c == '\n') {
      line_start = 1;
      i++;
      continue;
    }
    if (isspace((unsigned char)c)) {
      i++;
      continue;
    }
    if (c == '#' && line_start) { /* a preprocessor line, with its continuations */
      size_t b = i;
      while (i < n && src[i] != '\n')
        i += src[i] == '\\' && i + 1 < n ? 2 : 1;
      if (depth == 0)
        stmt = i;
      /* `#pragma OPENCL EXTENSION` for an extension the layer provides: blanked, as a compiler
       * that lacks it warns on every build that it is unknown (the layer defines its macro) */
      if (extension_pragma(src + b, i - b)) {
        if (!room(&edits, &cap, count))
          return NULL;
        char *t = blanks(src, b, i);
        if (!t) {
          free_edits(edits, count);
          return NULL;
        }
        edits[count++] = (edit){b, i - b, t, t};
      }
      continue;
    }
    line_start = 0;
    if (!ident_start(c)) {
      depth += c == '{' ? 1 : c == '}' && depth > 0 ? -1 : 0;
      if (depth == 0 && (c == ';' || c == '}' || c == '{'))
        stmt = i + 1;
      i++;
      continue;
    }
    size_t b = i;
    while (i < n && ident_char(src[i]))
      i++;
    size_t len = i - b;
    if (!room(&edits, &cap, count))
      return NULL;
    if (hidden && depth == 0 &&
        ((len == 20 && memcmp(src + b, "intel_device_barrier", 20) == 0) ||
         (len == 29 && memcmp(src + b, "intel_is_device_barrier_valid", 29) == 0))) {
      size_t end = prototype_end(src, n, i);
      if (end) {
        char *t = blanks(src, stmt, end);
        if (!t) {
          free_edits(edits, count);
          return NULL;
        }
        edits[count++] = (edit){stmt, end - stmt, t, t};
        i = stmt = end;
      }
      continue;
    }
    if (!((len == 6 && memcmp(src + b, "kernel", 6) == 0) ||
          (len == 8 && memcmp(src + b, "__kernel", 8) == 0)))
      continue;
    edit e[2];
    int k = parse_kernel(src, n, i, prologue, e);
    for (int m = 0; m < k; m++) {
      if (!hidden && e[m].text != prologue)
        continue;
      edits[count++] = e[m];
    }
    if (k > 0)
      (*kernels)++;
  }
  size_t extra = 0;
  for (size_t m = 0; m < count; m++)
    extra += strlen(edits[m].text) + 1;
  char *out = malloc(n + extra + 1);
  if (!out) {
    free_edits(edits, count);
    return NULL;
  }
  size_t o = 0, from = 0;
  for (size_t m = 0; m < count; m++) { /* the edits are in source order */
    memcpy(out + o, src + from, edits[m].at - from);
    o += edits[m].at - from;
    size_t t = strlen(edits[m].text);
    out[o++] = ' ';
    memcpy(out + o, edits[m].text, t);
    o += t;
    from = edits[m].at + edits[m].cut;
  }
  memcpy(out + o, src + from, n - from);
  o += n - from;
  out[o] = '\0';
  free_edits(edits, count);
  return out;
}
