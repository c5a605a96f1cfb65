/* <string.h> for the engine: byte loops only. */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "model.h"

MODEL void *memcpy(void *restrict dst, const void *restrict src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  for (size_t i = 0; i < n; i++)
    d[i] = s[i];
  return dst;
}

MODEL void *memmove(void *dst, const void *src, size_t n) {
  unsigned char *d = dst;
  const unsigned char *s = src;
  if (d < s) {
    for (size_t i = 0; i < n; i++)
      d[i] = s[i];
  } else {
    for (size_t i = n; i > 0; i--)
      d[i - 1] = s[i - 1];
  }
  return dst;
}

MODEL void *memset(void *dst, int c, size_t n) {
  unsigned char *d = dst;
  for (size_t i = 0; i < n; i++)
    d[i] = (unsigned char)c;
  return dst;
}

MODEL int memcmp(const void *a, const void *b, size_t n) {
  const unsigned char *x = a, *y = b;
  for (size_t i = 0; i < n; i++)
    if (x[i] != y[i])
      return x[i] - y[i];
  return 0;
}

MODEL void *memchr(const void *s, int c, size_t n) {
  const unsigned char *p = s;
  for (size_t i = 0; i < n; i++)
    if (p[i] == (unsigned char)c)
      return (void *)(p + i);
  return NULL;
}

MODEL void *memrchr(const void *s, int c, size_t n) {
  const unsigned char *p = s;
  for (size_t i = n; i > 0; i--)
    if (p[i - 1] == (unsigned char)c)
      return (void *)(p + i - 1);
  return NULL;
}

MODEL size_t strlen(const char *s) {
  size_t n = 0;
  while (s[n])
    n++;
  return n;
}

MODEL size_t strnlen(const char *s, size_t max) {
  size_t n = 0;
  while (n < max && s[n])
    n++;
  return n;
}

MODEL int strcmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  while (*x && *x == *y) {
    x++;
    y++;
  }
  return *x - *y;
}

MODEL int strncmp(const char *a, const char *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (; n > 0; n--, x++, y++) {
    if (*x != *y)
      return *x - *y;
    if (!*x)
      return 0;
  }
  return 0;
}

static int lower(int c) { return c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c; }

MODEL int strcasecmp(const char *a, const char *b) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  while (*x && lower(*x) == lower(*y)) {
    x++;
    y++;
  }
  return lower(*x) - lower(*y);
}

MODEL int strncasecmp(const char *a, const char *b, size_t n) {
  const unsigned char *x = (const unsigned char *)a, *y = (const unsigned char *)b;
  for (; n > 0; n--, x++, y++) {
    if (lower(*x) != lower(*y))
      return lower(*x) - lower(*y);
    if (!*x)
      return 0;
  }
  return 0;
}

MODEL char *strcpy(char *restrict dst, const char *restrict src) {
  size_t i = 0;
  while ((dst[i] = src[i]))
    i++;
  return dst;
}

MODEL char *stpcpy(char *restrict dst, const char *restrict src) {
  while ((*dst = *src)) {
    dst++;
    src++;
  }
  return dst;
}

MODEL char *strncpy(char *restrict dst, const char *restrict src, size_t n) {
  size_t i = 0;
  for (; i < n && src[i]; i++)
    dst[i] = src[i];
  for (; i < n; i++)
    dst[i] = 0;
  return dst;
}

MODEL char *strcat(char *restrict dst, const char *restrict src) {
  strcpy(dst + strlen(dst), src);
  return dst;
}

MODEL char *strncat(char *restrict dst, const char *restrict src, size_t n) {
  char *d = dst + strlen(dst);
  size_t i = 0;
  for (; i < n && src[i]; i++)
    d[i] = src[i];
  d[i] = 0;
  return dst;
}

MODEL char *strchr(const char *s, int c) {
  for (;; s++) {
    if (*s == (char)c)
      return (char *)s;
    if (!*s)
      return NULL;
  }
}

MODEL char *strrchr(const char *s, int c) {
  const char *found = NULL;
  for (;; s++) {
    if (*s == (char)c)
      found = s;
    if (!*s)
      return (char *)found;
  }
}

MODEL char *strchrnul(const char *s, int c) {
  while (*s && *s != (char)c)
    s++;
  return (char *)s;
}

MODEL char *strstr(const char *hay, const char *needle) {
  size_t n = strlen(needle);
  for (; *hay; hay++)
    if (strncmp(hay, needle, n) == 0)
      return (char *)hay;
  return *needle ? NULL : (char *)hay;
}

MODEL size_t strspn(const char *s, const char *accept) {
  size_t n = 0;
  while (s[n] && strchr(accept, s[n]))
    n++;
  return n;
}

MODEL size_t strcspn(const char *s, const char *reject) {
  size_t n = 0;
  while (s[n] && !strchr(reject, s[n]))
    n++;
  return n;
}

MODEL char *strpbrk(const char *s, const char *accept) {
  s += strcspn(s, accept);
  return *s ? (char *)s : NULL;
}

MODEL char *strtok_r(char *restrict s, const char *restrict delim, char **restrict save) {
  char *end;
  if (!s)
    s = *save;
  s += strspn(s, delim);
  if (!*s) {
    *save = s;
    return NULL;
  }
  end = s + strcspn(s, delim);
  if (*end) {
    *end = 0;
    *save = end + 1;
  } else {
    *save = end;
  }
  return s;
}

MODEL char *strtok(char *restrict s, const char *restrict delim) {
  static char *save;
  return strtok_r(s, delim, &save);
}

MODEL char *strdup(const char *s) {
  size_t n = strlen(s) + 1;
  char *d = malloc(n);
  return d ? memcpy(d, s, n) : NULL;
}

MODEL char *strndup(const char *s, size_t max) {
  size_t n = strnlen(s, max);
  char *d = malloc(n + 1);
  if (!d)
    return NULL;
  memcpy(d, s, n);
  d[n] = 0;
  return d;
}
