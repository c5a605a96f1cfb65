/* sscanf's float conversions on concrete text: glibc's grammar and values,
 * fast path and hook alike, checked by the native replay of the one path.
 * expect: exit=1
 * Every input is concrete: one path, and the hook (over 15 digits, large
 * exponents, hex, long double) concretises nothing. Its stdout, each
 * result and what was consumed, must be what glibc prints natively.
 */
#include <stdio.h>
#include <string.h>

static const char *inputs[] = {
    "1e", "1e+x", ".", "-", "+.5", "-.", "nan", "nan(12)", "-NaN x", "inf", "infx", "infi", "infinit",
    "Infinity!", "-INF", "nx", "0x", "0xg", "0x1p3", "0x1P-2q", "0x.8", "1.e5", ".e5", "1e+-5", "5.",
    "0.1", "1e400", "1e-400", "-0", "  3.25", "1.5.6", "1e5e3", "00012.50", "2.5e-3", "1,5", "0e", "0xe",
    "--1", "123456789012345678901234567890", "9007199254740993", "0.30000000000000004", "1e23",
    "3.4028236e38", "1e-45", "16777217", "7e22", "1e0005",
};
static const char *formats[] = {"%lf%n", "%f%n", "%le%n", "%g%n", "%E%n", "%lG%n", "%a%n", "%3lf%n", "%2f%n"};

int main(void) {
  for (unsigned i = 0; i < sizeof inputs / sizeof *inputs; i++) {
    for (unsigned j = 0; j < sizeof formats / sizeof *formats; j++) {
      double d = -7;
      float f = -7;
      unsigned long long db;
      unsigned fb;
      int n = -1, r;
      if (strchr(formats[j], 'l'))
        r = sscanf(inputs[i], formats[j], &d, &n);
      else
        r = sscanf(inputs[i], formats[j], &f, &n);
      memcpy(&db, &d, sizeof db);
      memcpy(&fb, &f, sizeof fb);
      printf("%s %s: %d %d %llx %x\n", formats[j], inputs[i], r, n, db, fb);
    }
    {
      /* Bytes, not a long double: the engine does not compute on x87. */
      unsigned char bytes[16];
      int n = -1, r;
      memset(bytes, 0x55, sizeof bytes);
      r = sscanf(inputs[i], "%Lf%n", (void *)bytes, &n);
      printf("%%Lf %s: %d %d", inputs[i], r, n);
      for (int k = 9; k >= 0; k--)
        printf("%02x", bytes[k]);
      printf("\n");
    }
  }
  {
    double a = 0, c = 0;
    int r = sscanf("1.5 skip 2.25", "%lf %*s %lf", &a, &c);
    printf("%d %g %g\n", r, a, c);
    r = sscanf("3.5 4.5", "%*f %lf", &a);
    printf("%d %g\n", r, a);
  }
  return 0;
}
