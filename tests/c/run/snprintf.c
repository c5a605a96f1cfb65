/* snprintf and vsnprintf: truncation, the returned full length, a
 * va_list passed on, and "%02x" of a symbolic byte.
 *
 * Paths: "%02x" pads to 2 digits, so its text has one length and does not
 * fork; "%x" of the same byte has 1 or 2 digits: 2 paths. The truncated
 * snprintf calls have concrete arguments.
 * expect: exit=2
 */
#include <klee/klee.h>
#include <stdarg.h>
#include <stdio.h>

static int format(char *buf, size_t n, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int r = vsnprintf(buf, n, fmt, ap);
  va_end(ap);
  return r;
}

int main(void) {
  unsigned char b;
  klee_make_symbolic(&b, sizeof b, "b");
  char small[4], hex[8], var[8];
  int full = snprintf(small, sizeof small, "%s-%d", "abcdef", 42);
  int none = snprintf(NULL, 0, "%d", 123456);
  int padded = format(hex, sizeof hex, "%02x", b);
  int short_or_long = snprintf(var, sizeof var, "%x", b);
  printf("%s %d %d %s %d %s %d\n", small, full, none, hex, padded, var, short_or_long);
  return short_or_long;
}
