/* <stdlib.h> conversions, sorting and rand, as glibc does them in the C locale. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

static int space(int c) { return c == ' ' || (c >= '\t' && c <= '\r'); }

static int digit_value(int c) {
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'z')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'Z')
    return c - 'A' + 10;
  return 99;
}

/* The strto* core: the value of nptr in `base`, negated if it has a '-', clamped
 * to [min, max] of the target type with ERANGE. `umax` is the target type's
 * unsigned maximum; `is_signed` selects the signed limits. */
static unsigned long long convert(const char *nptr, char **endptr, int base, unsigned long long umax,
                                  int is_signed) {
  const char *s = nptr;
  unsigned long long acc = 0, limit;
  int neg = 0, any = 0, overflow = 0;
  if (base < 0 || base == 1 || base > 36) {
    errno = EINVAL; /* glibc leaves *endptr alone here */
    return 0;
  }
  while (space((unsigned char)*s))
    s++;
  if (*s == '-') {
    neg = 1;
    s++;
  } else if (*s == '+') {
    s++;
  }
  if ((base == 0 || base == 16) && s[0] == '0' && (s[1] == 'x' || s[1] == 'X') &&
      digit_value((unsigned char)s[2]) < 16) {
    s += 2;
    base = 16;
  } else if (base == 0) {
    base = s[0] == '0' ? 8 : 10;
  }
  limit = !is_signed ? umax : neg ? umax / 2 + 1 : umax / 2;
  for (;; s++) {
    int d = digit_value((unsigned char)*s);
    if (d >= base)
      break;
    any = 1;
    if (acc > (limit - d) / base)
      overflow = 1;
    else if (!overflow)
      acc = acc * base + d;
  }
  if (endptr)
    *endptr = (char *)(any ? s : nptr);
  if (overflow) {
    errno = ERANGE;
    if (!is_signed)
      return umax;
    return neg ? umax / 2 + 1 : umax / 2;
  }
  return neg ? -acc : acc;
}

MODEL long strtol(const char *restrict s, char **restrict end, int base) {
  return (long)convert(s, end, base, ULONG_MAX, 1);
}
MODEL long long strtoll(const char *restrict s, char **restrict end, int base) {
  return (long long)convert(s, end, base, ULLONG_MAX, 1);
}
MODEL unsigned long strtoul(const char *restrict s, char **restrict end, int base) {
  return (unsigned long)convert(s, end, base, ULONG_MAX, 0);
}
MODEL unsigned long long strtoull(const char *restrict s, char **restrict end, int base) {
  return convert(s, end, base, ULLONG_MAX, 0);
}
MODEL int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
MODEL long atol(const char *s) { return strtol(s, NULL, 10); }
MODEL long long atoll(const char *s) { return strtoll(s, NULL, 10); }

MODEL int abs(int x) { return x < 0 ? -x : x; }
MODEL long labs(long x) { return x < 0 ? -x : x; }
MODEL long long llabs(long long x) { return x < 0 ? -x : x; }

MODEL div_t div(int n, int d) {
  div_t r = {n / d, n % d};
  return r;
}
MODEL ldiv_t ldiv(long n, long d) {
  ldiv_t r = {n / d, n % d};
  return r;
}

static void swap_bytes(unsigned char *a, unsigned char *b, size_t size) {
  for (size_t i = 0; i < size; i++) {
    unsigned char t = a[i];
    a[i] = b[i];
    b[i] = t;
  }
}

/* glibc sorts with a stable merge sort, so any stable sort gives its result;
 * insertion sort is the simplest. */
MODEL void qsort(void *base, size_t n, size_t size, int (*cmp)(const void *, const void *)) {
  unsigned char *a = base;
  for (size_t i = 1; i < n; i++)
    for (size_t j = i; j > 0 && cmp(a + (j - 1) * size, a + j * size) > 0; j--)
      swap_bytes(a + (j - 1) * size, a + j * size, size);
}

/* glibc's loop, so that the comparisons made are the same. */
MODEL void *bsearch(const void *key, const void *base, size_t n, size_t size,
                    int (*cmp)(const void *, const void *)) {
  size_t l = 0, u = n;
  while (l < u) {
    size_t idx = (l + u) / 2;
    const void *p = (const unsigned char *)base + idx * size;
    int c = cmp(key, p);
    if (c < 0)
      u = idx;
    else if (c > 0)
      l = idx + 1;
    else
      return (void *)p;
  }
  return NULL;
}

/* glibc's TYPE_3 additive feedback generator (random_r.c), seeded as srandom. */
enum { DEG = 31, SEP = 3 };
static int32_t state[DEG];
static int front = SEP, rear = 0, seeded;

MODEL void srand(unsigned seed) {
  int32_t word;
  state[0] = seed ? (int32_t)seed : 1;
  word = state[0];
  for (int i = 1; i < DEG; i++) {
    /* state[i] = 16807 * state[i - 1] % 2147483647 without overflow. */
    long hi = word / 127773, lo = word % 127773;
    word = (int32_t)(16807 * lo - 2836 * hi);
    if (word < 0)
      word += 2147483647;
    state[i] = word;
  }
  front = SEP;
  rear = 0;
  seeded = 1;
  for (int i = 0; i < 10 * DEG; i++)
    (void)rand();
}

MODEL int rand(void) {
  uint32_t val;
  if (!seeded)
    srand(1);
  val = (uint32_t)state[front] + (uint32_t)state[rear];
  state[front] = (int32_t)val;
  front = front + 1 == DEG ? 0 : front + 1;
  rear = rear + 1 == DEG ? 0 : rear + 1;
  return (int)(val >> 1);
}

MODEL void srandom(unsigned seed) { srand(seed); }
MODEL long random(void) { return rand(); }

/* A symbolic run has no environment. */
MODEL char *getenv(const char *name) {
  (void)name;
  return NULL;
}
