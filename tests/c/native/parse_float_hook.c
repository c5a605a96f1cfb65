/* The engine's __psychic_parse_float, natively, for the builds that link the
 * libc model's stdlib.c beside glibc (included by their drivers): glibc's own
 * conversion of the model's text, found past the model's strtod and strtof,
 * which interpose. */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

int __psychic_parse_float(const char *text, unsigned long len, unsigned size, void *out) {
  char buf[512];
  int saved = errno, err;
  if (len >= sizeof buf)
    abort();
  memcpy(buf, text, len);
  buf[len] = 0;
  errno = 0;
  if (size == 4)
    *(float *)out = ((float (*)(const char *, char **))dlsym(RTLD_NEXT, "strtof"))(buf, NULL);
  else if (size == 8)
    *(double *)out = ((double (*)(const char *, char **))dlsym(RTLD_NEXT, "strtod"))(buf, NULL);
  else
    *(long double *)out = strtold(buf, NULL);
  err = errno;
  errno = saved;
  return err;
}
