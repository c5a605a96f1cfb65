/* Runs each function of the symbolic libc model (linked into this binary, so it
 * interposes) beside glibc's own (dlsym RTLD_NEXT) and reports every mismatch.
 * Exit status: 0 when all agree. Built with -fno-builtin so calls reach the model. */
#define _GNU_SOURCE
#define __NO_CTYPE 1 /* functions, not glibc's macros */
#include <ctype.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int failures, checks;

#define GLIBC(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

static void check(int ok, const char *what, const char *detail) {
  checks++;
  if (!ok) {
    failures++;
    if (failures < 50)
      printf("MISMATCH %s: %s\n", what, detail);
  }
}

static const char *strings[] = {
    "", "a", "abc", "abd", "ab", "ABC", "aBc", "hello world", "hello", "\x80", "\xff\x01",
    "a\x80", "  \t\n-42x", "xyzzy", "abcabcabd", "bca", "b", "c", "cab", "aaa", "aa",
};
#define NSTR (sizeof strings / sizeof *strings)

static void check_strings(void) {
  char detail[256];
  for (size_t i = 0; i < NSTR; i++) {
    const char *a = strings[i];
    snprintf(detail, sizeof detail, "\"%s\"", a);
    check(strlen(a) == GLIBC(strlen)(a), "strlen", detail);
    for (size_t n = 0; n < 5; n++)
      check(strnlen(a, n) == GLIBC(strnlen)(a, n), "strnlen", detail);
    for (int c = -1; c < 256; c += 7) {
      check(strchr(a, c) == GLIBC(strchr)(a, c), "strchr", detail);
      check(strrchr(a, c) == GLIBC(strrchr)(a, c), "strrchr", detail);
      check(strchrnul(a, c) == GLIBC(strchrnul)(a, c), "strchrnul", detail);
      check(memchr(a, c, strlen(a)) == GLIBC(memchr)(a, c, strlen(a)), "memchr", detail);
      check(memrchr(a, c, strlen(a)) == GLIBC(memrchr)(a, c, strlen(a)), "memrchr", detail);
    }
    for (size_t j = 0; j < NSTR; j++) {
      const char *b = strings[j];
      snprintf(detail, sizeof detail, "\"%s\" vs \"%s\"", a, b);
      /* The C standard fixes only the sign; programs print the value, so the
       * model must give glibc's exact value. */
      check(strcmp(a, b) == GLIBC(strcmp)(a, b), "strcmp", detail);
      check(strcasecmp(a, b) == GLIBC(strcasecmp)(a, b), "strcasecmp", detail);
      for (size_t n = 0; n < 6; n++) {
        check(strncmp(a, b, n) == GLIBC(strncmp)(a, b, n), "strncmp", detail);
        check(strncasecmp(a, b, n) == GLIBC(strncasecmp)(a, b, n), "strncasecmp", detail);
        size_t m = strlen(a) < strlen(b) ? strlen(a) : strlen(b);
        if (n <= m + 1)
          check(memcmp(a, b, n) == GLIBC(memcmp)(a, b, n), "memcmp", detail);
      }
      check(strstr(a, b) == GLIBC(strstr)(a, b), "strstr", detail);
      check(strspn(a, b) == GLIBC(strspn)(a, b), "strspn", detail);
      check(strcspn(a, b) == GLIBC(strcspn)(a, b), "strcspn", detail);
      check(strpbrk(a, b) == GLIBC(strpbrk)(a, b), "strpbrk", detail);
      {
        char x[64] = "pre", y[64] = "pre";
        strcat(x, a);
        GLIBC(strcat)(y, a);
        check(memcmp(x, y, sizeof x) == 0, "strcat", detail);
        for (size_t n = 0; n < 5; n++) {
          memset(x, 'Z', sizeof x);
          memset(y, 'Z', sizeof y);
          strcpy(x, b);
          strcpy(y, b);
          strncat(x, a, n);
          GLIBC(strncat)(y, a, n);
          check(memcmp(x, y, sizeof x) == 0, "strncat", detail);
          memset(x, 'Z', sizeof x);
          memset(y, 'Z', sizeof y);
          strncpy(x, a, n);
          GLIBC(strncpy)(y, a, n);
          check(memcmp(x, y, sizeof x) == 0, "strncpy", detail);
        }
      }
    }
    {
      char x[64], y[64];
      memset(x, 'Z', sizeof x);
      memset(y, 'Z', sizeof y);
      check(stpcpy(x, a) - x == GLIBC(stpcpy)(y, a) - y && memcmp(x, y, sizeof x) == 0, "stpcpy", detail);
      char *d = strdup(a), *e = strndup(a, 2);
      check(strcmp(d, a) == 0 && strncmp(e, a, 2) == 0 && strlen(e) <= 2, "strdup/strndup", detail);
      free(d);
      free(e);
    }
  }
  {
    char x[32], y[32];
    for (int k = 0; k < 32; k++)
      x[k] = y[k] = (char)k;
    memmove(x + 3, x, 20);
    GLIBC(memmove)(y + 3, y, 20);
    check(memcmp(x, y, 32) == 0, "memmove forward", "");
    memmove(x, x + 5, 20);
    GLIBC(memmove)(y, y + 5, 20);
    check(memcmp(x, y, 32) == 0, "memmove backward", "");
    memset(x, 0x1ab, 7);
    GLIBC(memset)(y, 0x1ab, 7);
    check(memcmp(x, y, 32) == 0, "memset", "");
  }
  {
    char a[] = "  a,b;;c ,", b[] = "  a,b;;c ,";
    char *sa, *sb;
    char *ta = strtok_r(a, " ,;", &sa), *tb = GLIBC(strtok_r)(b, " ,;", &sb);
    while (ta && tb) {
      check(ta - a == tb - b, "strtok_r", "token");
      ta = strtok_r(NULL, " ,;", &sa);
      tb = GLIBC(strtok_r)(NULL, " ,;", &sb);
    }
    check(!ta && !tb, "strtok_r", "end");
  }
}

static void check_ctype(void) {
  const unsigned short *mine = *__ctype_b_loc(), *theirs = *GLIBC(__ctype_b_loc)();
  const int32_t *mu = *__ctype_toupper_loc(), *tu = *GLIBC(__ctype_toupper_loc)();
  const int32_t *ml = *__ctype_tolower_loc(), *tl = *GLIBC(__ctype_tolower_loc)();
  char detail[64];
  for (int c = -128; c < 256; c++) {
    snprintf(detail, sizeof detail, "c=%d: 0x%x vs 0x%x", c, mine[c], theirs[c]);
    check(mine[c] == theirs[c], "ctype table", detail);
    check(mu[c] == tu[c] && ml[c] == tl[c], "case tables", detail);
    check(isalnum(c) == GLIBC(isalnum)(c) && isalpha(c) == GLIBC(isalpha)(c) &&
              isblank(c) == GLIBC(isblank)(c) && iscntrl(c) == GLIBC(iscntrl)(c) &&
              isdigit(c) == GLIBC(isdigit)(c) && isgraph(c) == GLIBC(isgraph)(c) &&
              islower(c) == GLIBC(islower)(c) && isprint(c) == GLIBC(isprint)(c) &&
              ispunct(c) == GLIBC(ispunct)(c) && isspace(c) == GLIBC(isspace)(c) &&
              isupper(c) == GLIBC(isupper)(c) && isxdigit(c) == GLIBC(isxdigit)(c) &&
              toupper(c) == GLIBC(toupper)(c) && tolower(c) == GLIBC(tolower)(c) &&
              isascii(c) == GLIBC(isascii)(c) && toascii(c) == GLIBC(toascii)(c),
          "ctype functions", detail);
  }
}

static const char *numbers[] = {
    "", "0", "12", " \t\n12abc", "-0x1f", "0X1F", "0x", "0xg", "077", "089", "-", "+", "+-3", "  -7",
    "9223372036854775807", "9223372036854775808", "-9223372036854775808", "-9223372036854775809",
    "18446744073709551615", "18446744073709551616", "-1", "-18446744073709551615", "2147483647",
    "2147483648", "-2147483649", "4294967296", "zz", "ZZ", "1010", "99999999999999999999999", "0x7fffffffffffffff",
    "0x8000000000000000", "0xffffffffffffffffff", " +0", "1e5", "3.7",
};

static void check_numbers(void) {
  static const int bases[] = {0, 2, 8, 10, 16, 36, 1, 37, -1};
  char detail[128];
  for (size_t i = 0; i < sizeof numbers / sizeof *numbers; i++) {
    const char *s = numbers[i];
    for (size_t b = 0; b < sizeof bases / sizeof *bases; b++) {
      char *e1 = NULL, *e2 = NULL;
      int base = bases[b];
      snprintf(detail, sizeof detail, "\"%s\" base %d", s, base);
#define SAME(fn)                                                                                   \
  do {                                                                                             \
    errno = 0;                                                                                     \
    __typeof__(fn(s, &e1, base)) v1 = fn(s, &e1, base);                                            \
    int err1 = errno;                                                                              \
    errno = 0;                                                                                     \
    __typeof__(fn(s, &e1, base)) v2 = GLIBC(fn)(s, &e2, base);                                     \
    int err2 = errno;                                                                              \
    check(v1 == v2 && e1 == e2 && err1 == err2, #fn, detail);                                      \
  } while (0)
      SAME(strtol);
      SAME(strtoll);
      SAME(strtoul);
      SAME(strtoull);
#undef SAME
    }
    snprintf(detail, sizeof detail, "\"%s\"", s);
    check(atoi(s) == GLIBC(atoi)(s) && atol(s) == GLIBC(atol)(s) && atoll(s) == GLIBC(atoll)(s), "atoi", detail);
  }
  for (int x = -3; x <= 3; x++)
    check(abs(x) == GLIBC(abs)(x) && labs(x) == GLIBC(labs)(x) && llabs(x) == GLIBC(llabs)(x), "abs", "");
  check(abs(-2147483647 - 1) == GLIBC(abs)(-2147483647 - 1), "abs", "INT_MIN");
  {
    div_t d1 = div(-7, 2), d2 = GLIBC(div)(-7, 2);
    ldiv_t l1 = ldiv(7, -2), l2 = GLIBC(ldiv)(7, -2);
    check(d1.quot == d2.quot && d1.rem == d2.rem && l1.quot == l2.quot && l1.rem == l2.rem, "div", "");
  }
}

struct item {
  int key, tag;
};
static int by_key(const void *a, const void *b) {
  const struct item *x = a, *y = b;
  return (x->key > y->key) - (x->key < y->key);
}

static void check_sort_and_rand(void) {
  static const unsigned seeds[] = {0, 1, 2, 42, 12345, 4294967295u};
  for (size_t s = 0; s < sizeof seeds / sizeof *seeds; s++) {
    int mine[400], theirs[400];
    srand(seeds[s]);
    for (int i = 0; i < 400; i++)
      mine[i] = rand();
    GLIBC(srand)(seeds[s]);
    for (int i = 0; i < 400; i++)
      theirs[i] = GLIBC(rand)();
    check(memcmp(mine, theirs, sizeof mine) == 0, "srand/rand", "sequence");
  }
  {
    struct item a[60], b[60];
    GLIBC(srand)(7);
    for (int i = 0; i < 60; i++) {
      a[i].key = b[i].key = GLIBC(rand)() % 9;
      a[i].tag = b[i].tag = i;
    }
    qsort(a, 60, sizeof *a, by_key);
    GLIBC(qsort)(b, 60, sizeof *b, by_key);
    check(memcmp(a, b, sizeof a) == 0, "qsort", "stable order of equal keys");
    for (int k = -1; k < 10; k++) {
      struct item key = {k, 0};
      void *p1 = bsearch(&key, a, 60, sizeof *a, by_key), *p2 = GLIBC(bsearch)(&key, a, 60, sizeof *a, by_key);
      check(p1 == p2, "bsearch", "");
    }
  }
}

#include "native/parse_float_hook.c"

static const char *float_texts[] = {
    "", " ", "1", "-1", "+1", "1e", "1e+", "1e-", "1e+x", ".", "-.", "+.5", ".5", "5.", "5.e3", ".e5", "e5",
    "0", "-0", "00012.50", "0.1", "0.2", "0.3", "2.5", "-2.5e-3", "1e22", "1e23", "1e-22", "1e-23",
    "123456789012345", "1234567890123456", "12345678901234567890", "9007199254740993", "0.000001",
    "1.7976931348623157e308", "1e309", "2e-324", "4.9e-324", "1e-400", "1e0005", "1e99999999999",
    "3.4028235e38", "3.4028236e38", "1.17549435e-38", "1e-45", "16777217", "1234567", "12345678", "0.1e1",
    "inf", "-INF", "infinity", "Infinity!", "infinit", "infx", "nan", "-nan", "NaN", "nan(12)", "nan()",
    "nan(0x7)", "nan(abc", "nan(a_b)", "nx", "0x", "0x.", "0xg", "0x1p3", "0x1P-2q", "0x.8", "0x1.8p",
    "0xe", "0x1p+", "-0x10", "0xffffffffffffffffff", "1,5", "1.5.6", "1e5e3", "--1", "\t\n 42 ", "x",
    "999999999999999", "0.9999999", "7e22", "7e-22", "12.34e-5", "1e+005",
};

static void check_floats(void) {
  char detail[128];
  for (size_t i = 0; i < sizeof float_texts / sizeof *float_texts; i++) {
    const char *s = float_texts[i];
    char *e1, *e2;
    int err1, err2;
    snprintf(detail, sizeof detail, "\"%s\"", s);
    errno = 0;
    double d1 = strtod(s, &e1);
    err1 = errno;
    errno = 0;
    double d2 = GLIBC(strtod)(s, &e2);
    err2 = errno;
    check(memcmp(&d1, &d2, sizeof d1) == 0 && e1 == e2 && err1 == err2, "strtod", detail);
    errno = 0;
    float f1 = strtof(s, &e1);
    err1 = errno;
    errno = 0;
    float f2 = GLIBC(strtof)(s, &e2);
    err2 = errno;
    check(memcmp(&f1, &f2, sizeof f1) == 0 && e1 == e2 && err1 == err2, "strtof", detail);
    d1 = atof(s), d2 = GLIBC(atof)(s);
    check(memcmp(&d1, &d2, sizeof d1) == 0, "atof", detail);
  }
  /* Random decimals on the fast path's edges: up to 17 digits, a point
   * anywhere, exponents around +-22. */
  srand(11);
  for (int i = 0; i < 20000; i++) {
    char s[64];
    int n = 0, digits = 1 + rand() % 17, point = rand() % (digits + 2);
    if (rand() % 4 == 0)
      s[n++] = '-';
    for (int k = 0; k < digits; k++) {
      if (k == point)
        s[n++] = '.';
      s[n++] = (char)('0' + rand() % 10);
    }
    if (rand() % 2)
      n += snprintf(s + n, sizeof s - (size_t)n, "e%d", rand() % 61 - 30);
    s[n] = 0;
    char *e1, *e2;
    double d1 = strtod(s, &e1), d2 = GLIBC(strtod)(s, &e2);
    float f1 = strtof(s, &e1), f2 = GLIBC(strtof)(s, &e2);
    snprintf(detail, sizeof detail, "\"%s\"", s);
    check(memcmp(&d1, &d2, sizeof d1) == 0 && memcmp(&f1, &f2, sizeof f1) == 0 && e1 == e2, "strtod/strtof",
          detail);
  }
}

int main(void) {
  check_floats();
  check_strings();
  check_ctype();
  check_numbers();
  check_sort_and_rand();
  printf("%d checks, %d mismatches\n", checks, failures);
  return failures != 0;
}
