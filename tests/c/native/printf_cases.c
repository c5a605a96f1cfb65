/* Ground truth for the printf formatter: reads cases, one a line, as
 * KIND<TAB>FORMAT<TAB>VALUE and prints what glibc's snprintf makes of each,
 * as LENGTH:BYTES. KIND: i int, l long, b double given by its bits in
 * hex (so that NaN payloads and signs arrive exactly), s string,
 * n null string, p pointer. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void) {
  char line[512], out[4096];
  while (fgets(line, sizeof line, stdin)) {
    line[strcspn(line, "\n")] = 0;
    char *fmt = strchr(line, '\t');
    if (!fmt) return 2;
    *fmt++ = 0;
    char *val = strchr(fmt, '\t');
    if (!val) return 2;
    *val++ = 0;
    int n;
    switch (line[0]) {
    case 'i': n = snprintf(out, sizeof out, fmt, (int)strtol(val, NULL, 10)); break;
    case 'l': n = snprintf(out, sizeof out, fmt, strtol(val, NULL, 10)); break;
    case 'b': {
      unsigned long long bits = strtoull(val, NULL, 16);
      double d;
      memcpy(&d, &bits, sizeof d);
      n = snprintf(out, sizeof out, fmt, d);
      break;
    }
    case 's': n = snprintf(out, sizeof out, fmt, val); break;
    case 'n': n = snprintf(out, sizeof out, fmt, (char *)NULL); break;
    case 'p': n = snprintf(out, sizeof out, fmt, (void *)strtoul(val, NULL, 16)); break;
    default: return 2;
    }
    if (n < 0 || (size_t)n >= sizeof out) return 3;
    printf("%d:", n);
    fwrite(out, 1, (size_t)n, stdout);
  }
  return 0;
}
