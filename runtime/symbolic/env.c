/* The process state glibc's headers refer to: errno, the standard streams
 * and their buffering, the locale. The engine recognises the stream objects
 * by address. */
#define _GNU_SOURCE /* LC_IDENTIFICATION */
#include <errno.h>
#include <locale.h>
#include <stdio.h>
#include <string.h>

#include "model.h"

MODEL int *__errno_location(void) {
  static int value;
  return &value;
}

static FILE streams[3];
MODEL FILE *stdin = &streams[0];
MODEL FILE *stdout = &streams[1];
MODEL FILE *stderr = &streams[2];

/* The engine records output as it is written: there are no buffers. */
MODEL int fflush(FILE *f) {
  (void)f;
  return 0;
}
MODEL int setvbuf(FILE *restrict f, char *restrict buf, int mode, size_t size) {
  (void)f, (void)buf, (void)mode, (void)size;
  return 0;
}
MODEL void setbuf(FILE *restrict f, char *restrict buf) { (void)f, (void)buf; }

/* The environment sets no locale variable (getenv finds none), so "" is
 * the C locale, as for glibc without them; everything the model and the
 * engine do is the C locale's. Another locale is not modelled (musl's
 * setlocale, beneath, would make "" C.UTF-8). */
MODEL char *setlocale(int category, const char *name) {
  static char c_locale[] = "C";
  if (category < 0 || category > LC_IDENTIFICATION) {
    errno = EINVAL;
    return 0;
  }
  if (name && *name && strcmp(name, "C") && strcmp(name, "POSIX"))
    __psychic_unmodelled("setlocale of a locale other than C");
  return c_locale;
}
