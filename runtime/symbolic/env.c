/* The process state glibc's headers refer to: errno, the standard streams
 * and their buffering. The engine recognises the stream objects by address. */
#include <errno.h>
#include <stdio.h>

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
