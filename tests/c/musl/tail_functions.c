/* The long tail the libc model lacks, served by musl 1.2.3 beneath it:
 * each call's result printed, for the native build (glibc) to print alike.
 * expect: exit=1
 * Every input is concrete: one path. Left out where musl and glibc differ:
 * regcomp/regexec (their types differ: not linked), strptime's tm_wday
 * (glibc computes it, musl does not), getopt's messages.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fnmatch.h>
#include <inttypes.h>
#include <locale.h>
#include <search.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>
#include <wchar.h>
#include <wctype.h>

static int cmp_int(const void *a, const void *b) { return *(const int *)a - *(const int *)b; }

int main(void) {
  printf("setlocale %d\n", setlocale(LC_ALL, "") != 0);
  char buf[64];
  printf("ffs %d %d\n", ffs(0x50), ffsll(1LL << 40));
  swab("abcdef", buf, 6); buf[6] = 0; printf("swab %s\n", buf);
  memset(buf, 0, sizeof buf); stpncpy(buf, "hello", 3); printf("stpncpy %s\n", buf);
  printf("memccpy %d\n", memccpy(buf, "xy:z", ':', 4) != 0);
  printf("strverscmp %d\n", strverscmp("a9", "a10") < 0);
  printf("strerror %s\n", strerror(ENOENT));
  printf("wcslen %zu\n", wcslen(L"four"));
  wchar_t w[8]; printf("mbstowcs %zu %lc\n", mbstowcs(w, "abc", 8), (wint_t)w[1]);
  printf("towupper %lc iswalpha %d\n", (wint_t)towupper(L'q'), iswalpha(L'z') != 0);
  lldiv_t d = lldiv(-17, 5); printf("lldiv %lld %lld\n", d.quot, d.rem);
  imaxdiv_t e = imaxdiv(17, -5); printf("imaxdiv %jd %jd\n", e.quot, e.rem);
  srand48(42); printf("lrand48 %ld %ld\n", lrand48(), lrand48());
  printf("a64l %ld l64a %s\n", a64l("./"), l64a(100));
  printf("fnmatch %d %d\n", fnmatch("*.c", "x.c", 0), fnmatch("a?c", "abd", 0) != 0);
  char opts[] = "ro,size=5", *o = opts, *val; char *const tokens[] = {"ro", "size", 0};
  while (*o) { int k = getsubopt(&o, tokens, &val); printf("getsubopt %d %s\n", k, val ? val : "-"); }
  int keys[] = {5, 3, 9}; void *root = 0;
  for (int i = 0; i < 3; i++) tsearch(&keys[i], &root, cmp_int);
  int k9 = 9, k4 = 4; printf("tfind %d %d\n", tfind(&k9, &root, cmp_int) != 0, tfind(&k4, &root, cmp_int) != 0);
  hcreate(8); ENTRY it = {"key", "value"}; hsearch(it, ENTER);
  ENTRY q = {"key", 0}; ENTRY *f = hsearch(q, FIND); printf("hsearch %s\n", f ? (char *)f->data : "none");
  struct tm tm; time_t t = 1000000000; gmtime_r(&t, &tm);
  strftime(buf, sizeof buf, "%Y-%m-%d %H:%M:%S %a %b %j", &tm); printf("strftime %s\n", buf);
  printf("timegm %lld\n", (long long)timegm(&tm));
  memset(&tm, 0, sizeof tm); strptime("2024-02-29 13:45", "%Y-%m-%d %H:%M", &tm);
  printf("strptime %d %d %d %d\n", tm.tm_year, tm.tm_mon, tm.tm_mday, tm.tm_hour);
  char *line = strdup("a b  c"); int n = 0; for (char *p = line, *s; (s = strsep(&p, " ")); ) n++; printf("strsep %d\n", n);
  printf("strcasestr %s\n", strcasestr("Hello World", "WORLD"));
  t = 86400 * 365; gmtime_r(&t, &tm);
  char ab[32];
  printf("asctime_r %s", asctime_r(&tm, ab));
  printf("index %s rindex %s\n", index("abcabc", 'b'), rindex("abcabc", 'b'));
  printf("bcmp %d\n", bcmp("ab", "ac", 2) != 0);
  printf("wcscmp %d wcschr %d\n", wcscmp(L"ab", L"ac") < 0, wcschr(L"abc", L'c') != 0);
  printf("wcwidth %d\n", wcwidth(L'a'));
  return 0;
}
