/* <stdlib.h> conversions, sorting and rand, as glibc does them in the C locale. */
#include <errno.h>
#include <limits.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
/* <inttypes.h>'s, whose intmax_t is 64 bits as long long is. musl defines
 * them beside its strtoll, which the model has, so its member never links
 * (src/ir/archive.rs) and they were unmodelled calls. */
MODEL long long strtoimax(const char *restrict s, char **restrict end, int base) {
  return strtoll(s, end, base);
}
MODEL unsigned long long strtoumax(const char *restrict s, char **restrict end, int base) {
  return strtoull(s, end, base);
}
MODEL int atoi(const char *s) { return (int)strtol(s, NULL, 10); }
MODEL long atol(const char *s) { return strtol(s, NULL, 10); }
MODEL long long atoll(const char *s) { return strtoll(s, NULL, 10); }

/* Floats. The engine's hook (src/exec/special.rs): the value glibc gives
 * the `len` bytes at `text` as a float of `size` bytes (4, 8, or 16 for a long
 * double), stored at `out`; symbolic bytes are made concrete first (recorded
 * as an approximation). Returns the errno glibc set (0 or ERANGE). */
int __psychic_parse_float(const char *text, unsigned long len, unsigned size, void *out);

static int is_dec(int c) { return (unsigned)(c - '0') < 10; }
static int is_hex(int c) { return is_dec(c) | ((unsigned)((c | 0x20) - 'a') < 6); }
/* (c | 0x20) == letter matches exactly the two cases of a lowercase letter. */
static int letter(int c, int lower) { return (c | 0x20) == lower; }

static int word(const unsigned char *s, const char *lower) {
  for (; *lower; s++, lower++)
    if (!letter(*s, *lower))
      return 0;
  return 1;
}

/* Exact powers of ten: 10^22 is the largest a double holds exactly (5^22 <
 * 2^53), 10^10 the largest a float does (5^10 < 2^24). */
static const double pow10_d[23] = {1e0,  1e1,  1e2,  1e3,  1e4,  1e5,  1e6,  1e7,
                                   1e8,  1e9,  1e10, 1e11, 1e12, 1e13, 1e14, 1e15,
                                   1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22};
static const float pow10_f[11] = {1e0f, 1e1f, 1e2f, 1e3f, 1e4f, 1e5f, 1e6f, 1e7f, 1e8f, 1e9f, 1e10f};

static void store_float(void *out, unsigned size, int neg, double d, float f) {
  if (size == 4)
    *(float *)out = neg ? -f : f;
  else
    *(double *)out = neg ? -d : d;
}

/* An exponent `mark` [+-] digits at *s, if there is one: *s moves past it,
 * *exp gets its value, and the number of its digits is returned. */
static int exponent(const unsigned char **s, int mark, int *exp) {
  const unsigned char *p = *s + 1;
  int neg = 0, n = 0;
  if (!letter(**s, mark))
    return 0;
  if (*p == '-')
    neg = 1, p++;
  else if (*p == '+')
    p++;
  for (; is_dec(*p); p++, n++)
    if (n < 9) /* more digits take the hook's way, whatever their value */
      *exp = *exp * 10 + (*p - '0');
  if (n) {
    *s = p;
    if (neg)
      *exp = -*exp;
  }
  return n;
}

/* strtod's grammar over `nptr` in the C locale; the value (of `size` bytes)
 * goes to `out` unless nothing converts, and the end is returned (nptr when
 * nothing converts). A decimal of at most 15 digits (7 for a float) with a
 * decimal exponent k, |k| <= 22 (10), takes Clinger's fast path: the digits
 * as an integer m are exact in the type, so is 10^|k|, and one IEEE
 * multiplication or division of exact operands is correctly rounded, as
 * glibc's result is. Everything else (more digits, larger exponents, hex, NaN
 * payloads, long double) goes through the engine's hook. */
static const char *parse_float(const char *nptr, unsigned size, void *out) {
  const unsigned char *s = (const unsigned char *)nptr, *text, *p;
  unsigned long long m = 0;
  int neg = 0, digits = 0, frac = 0, exp = 0, slow = size == 16, k;
  while (space(*s))
    s++;
  text = s;
  if (*s == '-')
    neg = 1, s++;
  else if (*s == '+')
    s++;
  if (word(s, "inf")) {
    s += word(s + 3, "inity") ? 8 : 3;
    if (!slow) {
      store_float(out, size, neg, __builtin_inf(), __builtin_inff());
      return (const char *)s;
    }
  } else if (word(s, "nan")) {
    s += 3;
    if (*s == '(') {
      for (p = s + 1; is_dec(*p) | ((unsigned)((*p | 0x20) - 'a') < 26) | (*p == '_'); p++)
        ;
      if (*p == ')') /* a payload, which glibc reads its own way */
        s = p + 1, slow = 1;
    }
    if (!slow) {
      store_float(out, size, neg, __builtin_nan(""), __builtin_nanf(""));
      return (const char *)s;
    }
  } else if (*s == '0' && letter(s[1], 'x') && (is_hex(s[2]) || (s[2] == '.' && is_hex(s[3])))) {
    for (s += 2; is_hex(*s); s++)
      ;
    if (*s == '.')
      for (s++; is_hex(*s); s++)
        ;
    exponent(&s, 'p', &exp);
    slow = 1;
  } else {
    for (; is_dec(*s); s++, digits++)
      m = m * 10 + (unsigned)(*s - '0');
    if (*s == '.') {
      for (p = s + 1; is_dec(*p); p++, digits++, frac++)
        m = m * 10 + (unsigned)(*p - '0');
      if (digits)
        s = p;
    }
    if (!digits)
      return nptr;
    /* Past 4 exponent digits `exp` may have wrapped. */
    slow |= exponent(&s, 'e', &exp) > 4 || digits > (size == 4 ? 7 : 15);
  }
  k = exp - frac;
  if (!slow && size == 4 && k >= -10 && k <= 10) {
    float f = (float)m;
    store_float(out, size, neg, 0, k < 0 ? f / pow10_f[-k] : f * pow10_f[k]);
  } else if (!slow && size == 8 && k >= -22 && k <= 22) {
    double d = (double)m;
    store_float(out, size, neg, k < 0 ? d / pow10_d[-k] : d * pow10_d[k], 0);
  } else {
    int err = __psychic_parse_float((const char *)text, (unsigned long)(s - text), size, out);
    if (err)
      errno = err;
  }
  return (const char *)s;
}

MODEL double strtod(const char *restrict s, char **restrict end) {
  double d = 0;
  const char *e = parse_float(s, 8, &d);
  if (end)
    *end = (char *)e;
  return d;
}
MODEL float strtof(const char *restrict s, char **restrict end) {
  float f = 0;
  const char *e = parse_float(s, 4, &f);
  if (end)
    *end = (char *)e;
  return f;
}
MODEL double atof(const char *s) { return strtod(s, NULL); }

int __psychic_scan_float(const char *text, unsigned size, void *out) {
  unsigned char tmp[16];
  const char *e = parse_float(text, size, tmp);
  if (e == text)
    return 0;
  memcpy(out, tmp, size == 16 ? 10 : size);
  return 1;
}

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

/* atexit: exit runs the handlers, the last registered first, then ends the
 * run. The engine turns a call of `exit` into one of __psychic_exit, and a
 * return from the run's first function too; `_exit` ends it at once. */
static void (*atexit_handlers[64])(void);
static int atexit_count;

/* Beyond 64 handlers registration fails, as ISO C allows (it guarantees 32);
 * glibc's takes any number. */
MODEL int atexit(void (*handler)(void)) {
  if (atexit_count == 64)
    return -1;
  atexit_handlers[atexit_count++] = handler;
  return 0;
}

void __psychic_exit(int status) __attribute__((noreturn));
void __psychic_exit(int status) {
  while (atexit_count > 0)
    atexit_handlers[--atexit_count]();
  _exit(status);
}

/* A symbolic run has no environment. */
MODEL char *getenv(const char *name) {
  (void)name;
  return NULL;
}
